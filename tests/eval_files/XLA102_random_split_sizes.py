"""Eval file for XLA102: ``random_split(full, [45000, 5000])`` gives subsets of those
sizes: a batch size that divides a subset's size leaves no short batch there, one that
does not may. Fractions of a dataset of known size split as torch does it
(``floor(n * f)`` each, the remainder one by one from the first subset on), also when
they are a module constant or computed from one (``[1 - VAL_FRAC, VAL_FRAC]``);
fractions of a dataset of unknown size leave the sizes unknown."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torchvision
from torch.utils.data import DataLoader, random_split

SPLIT = (0.9, 0.1)
VAL_FRAC = 0.2


def main(model, optimizer):
    device = torch_xla.device()
    full = torchvision.datasets.CIFAR10("data", train=True, download=True)
    train_set, val_set = random_split(full, [45000, 5000])
    part_a, part_b = random_split(full, [0.9, 0.1])  # 45000 and 5000
    rows = torch.utils.data.TensorDataset(torch.randn(1001, 8), torch.zeros(1001))
    half_a, half_b = random_split(rows, [0.5, 0.5])  # 501 and 500
    const_a, const_b = random_split(full, SPLIT)  # 45000 and 5000
    frac_a, frac_b = random_split(full, [1 - VAL_FRAC, VAL_FRAC])  # 40000 and 10000
    some = torchvision.datasets.ImageFolder("data/train")
    some_a, some_b = random_split(some, [0.8, 0.2])
    loaders = (DataLoader(train_set, batch_size=125, shuffle=True),
               DataLoader(val_set, batch_size=125),
               DataLoader(train_set, batch_size=128, shuffle=True),  # error: XLA102
               DataLoader(part_a, batch_size=125, shuffle=True),
               DataLoader(part_b, batch_size=128),  # error: XLA102
               DataLoader(half_a, batch_size=100, shuffle=True),  # error: XLA102
               DataLoader(half_b, batch_size=100),
               DataLoader(some_a, batch_size=125, shuffle=True))  # error: XLA102
    folded = (DataLoader(const_a, batch_size=125, shuffle=True),
               DataLoader(const_b, batch_size=125),
               DataLoader(frac_a, batch_size=125, shuffle=True),
               DataLoader(frac_b, batch_size=125),
               DataLoader(frac_b, batch_size=96))  # error: XLA102
    for loader in loaders:
        for x, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            xm.optimizer_step(optimizer)
    for loader in folded:
        for x, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            xm.optimizer_step(optimizer)
    del some_b
