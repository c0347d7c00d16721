"""Eval file for XLA102: ``RandomSampler(train_set)`` or ``SequentialSampler(test_set)``
handed to the DataLoader of that same dataset draws every sample once per epoch, as no
sampler does: a known dataset size that the batch divides leaves no short batch, one it
does not divide does. A sampler over another dataset may draw any number."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torchvision import datasets

flags = {"batch_size": 8}


def train(model, optimizer, transform, other):
    device = torch_xla.device()
    train_set = datasets.FashionMNIST("/tmp/f", train=True, download=True, transform=transform)
    test_set = datasets.FashionMNIST("/tmp/f", train=False, download=True, transform=transform)
    even = torch.utils.data.DataLoader(train_set, batch_size=flags["batch_size"],
                                       sampler=torch.utils.data.RandomSampler(train_set))
    ragged = torch.utils.data.DataLoader(  # error: XLA102
        test_set, batch_size=96, sampler=torch.utils.data.SequentialSampler(test_set))
    unknown = torch.utils.data.DataLoader(train_set, batch_size=8,  # error: XLA102
                                          sampler=torch.utils.data.RandomSampler(other))
    for loader in (even, ragged, unknown):
        for x, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            xm.optimizer_step(optimizer)
