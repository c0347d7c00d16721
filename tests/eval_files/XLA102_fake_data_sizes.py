"""Eval file for XLA102: torchvision's FakeData has as many images as its ``size``
(1000 by default), so its last batch is ragged or not by that number. A loader that
may load FakeData (under a debug flag) or a folder of any size may be ragged."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import torchvision
from torch.utils.data import DataLoader

NUM_SAMPLES = 51_200


def train(model, optimizer):
    device = torch_xla.device()
    # Traps: 51,200 and 1,000 images split evenly into batches of 128 and 100.
    even = DataLoader(torchvision.datasets.FakeData(size=NUM_SAMPLES), batch_size=128)
    default = DataLoader(torchvision.datasets.FakeData(), batch_size=100)
    ragged = DataLoader(torchvision.datasets.FakeData(1_003), batch_size=64)  # error: XLA102
    for loader in (even, default, ragged):
        for x, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()


def train_any(model, optimizer, args):
    device = torch_xla.device()
    if args.fake_data:
        dataset = torchvision.datasets.FakeData(size=NUM_SAMPLES)
    else:
        dataset = torchvision.datasets.ImageFolder(args.data_dir)
    loader = DataLoader(dataset, batch_size=128, shuffle=True)  # error: XLA102
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
