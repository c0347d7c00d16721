"""Eval file for XLA301: a project's own loader class whose ``__iter__`` yields each batch
and runs torch_xla.sync() in the same iteration places a barrier per batch, as
MpDeviceLoader does; a wrapper that only moves the batches places none. An attribute
set to an MpDeviceLoader on the TPU branch and to the plain loader on the GPU branch
(``else: self.device = torch.device("cuda")``) is the MpDeviceLoader on the XLA path."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


class SyncingLoader:
    def __init__(self, loader, device):
        self.loader = loader
        self.device = device

    def __iter__(self):
        for batch in self.loader:
            yield [t.to(self.device) for t in batch]
            torch_xla.sync()


class MovingLoader:
    def __init__(self, loader, device):
        self.loader = loader
        self.device = device

    def __iter__(self):
        for batch in self.loader:
            yield [t.to(self.device) for t in batch]


class Trainer:
    def __init__(self, model, optimizer, loader, use_tpu):
        self.use_tpu = use_tpu
        if self.use_tpu:
            self.device = torch_xla.device()
            self.loader = pl.MpDeviceLoader(loader, self.device)
        else:
            self.device = torch.device("cuda")
            self.loader = loader
        self.model = model.to(self.device)
        self.optimizer = optimizer

    def train_epoch(self):
        for x, y in self.loader:
            F.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()
            self.optimizer.zero_grad()


def train(model, optimizer, dataset):
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    device = torch_xla.device()
    model.to(device)
    for x, y in SyncingLoader(loader, device):
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
    for x, y in MovingLoader(loader, device):  # error: XLA301
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
    Trainer(model, optimizer, loader, use_tpu=True).train_epoch()
