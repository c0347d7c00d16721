"""Eval file for XLA301: a project's own loader class whose ``__iter__`` yields each batch
and runs torch_xla.sync() in the same iteration places a barrier per batch, as
MpDeviceLoader does; a wrapper that only moves the batches places none. An attribute
set to an MpDeviceLoader on the TPU branch and to the plain loader on the GPU branch
(``else: self.device = torch.device("cuda")``) is the MpDeviceLoader on the XLA path.
A generator that hands on an MpDeviceLoader's batches (``yield from loader``, or
``next(it)`` of ``it = iter(loader)``) is one too; over a plain loader it places none,
unless it runs torch_xla.sync() after each yield, like the loader class above."""
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


def forever(loader):
    """Iterate ``loader`` one pass after the other (``yield from`` hands on its batches)."""
    while True:
        yield from loader


def train_by_steps(model, optimizer, dataset, max_steps):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=32, drop_last=True)
    # Trap: each next() takes a batch of the MpDeviceLoader, whose iterator runs the barrier.
    batches = forever(pl.MpDeviceLoader(loader, device))
    for _ in range(max_steps):
        x, y = next(batches)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    plain = forever(loader)
    for _ in range(max_steps):  # error: XLA301
        x, y = next(plain)
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


class Prefetcher:
    """Moves the next batch while the current one trains (apex's data_prefetcher)."""

    def __init__(self, loader, device):
        self.loader, self.device = loader, device

    def __iter__(self):
        it = iter(self.loader)
        nxt = self._move(next(it, None))
        while nxt is not None:
            cur = nxt
            nxt = self._move(next(it, None))
            yield cur

    def _move(self, batch):
        return None if batch is None else [t.to(self.device) for t in batch]


def train_prefetched(model, optimizer, dataset):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=32, drop_last=True)
    for x, y in Prefetcher(loader, device):  # error: XLA301
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()


def synced_batches(loader, device):
    for batch in loader:
        yield [t.to(device) for t in batch]
        torch_xla.sync()


def train_synced_generator(model, optimizer, dataset):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=32, drop_last=True)
    # Trap: the generator runs the barrier when the loop asks for the next batch.
    for x, y in synced_batches(loader, device):
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()


def pass_synced_batches(loader, device):
    while True:
        for batch in loader:
            yield [t.to(device) for t in batch]
        torch_xla.sync()  # once per pass over the loader, not per batch


def train_pass_synced(model, optimizer, dataset, max_steps):
    device = torch_xla.device()
    batches = pass_synced_batches(DataLoader(dataset, batch_size=32, drop_last=True), device)
    for _ in range(max_steps):  # error: XLA301
        x, y = next(batches)
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()


def sometimes_synced_batches(loader, device):
    for i, batch in enumerate(loader):
        yield [t.to(device) for t in batch]
        if (i + 1) % 50 == 0:
            torch_xla.sync()  # every 50 batches only: 50 steps in one graph


def train_sometimes_synced(model, optimizer, dataset):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=32, drop_last=True)
    for x, y in sometimes_synced_batches(loader, device):  # error: XLA301
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
