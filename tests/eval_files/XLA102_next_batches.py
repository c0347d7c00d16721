"""Eval file for XLA102: a loader read with next() in the step loop."""
import torch
import torch_xla
from torch.utils.data import DataLoader

device = torch_xla.device()


def train(model, dataset, optimizer, max_steps):
    loader = DataLoader(dataset, batch_size=16, shuffle=True)  # error: XLA102
    data_iter = iter(loader)
    step = 0
    while step < max_steps:
        try:
            x, y = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            x, y = next(data_iter)
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        torch_xla.sync()
        step += 1


def peek(model, dataset):
    # Trap: one batch drawn once, outside any step loop (a shape probe).
    probe = DataLoader(dataset, batch_size=16)
    x, _ = next(iter(probe))
    return model(x.to(device)).shape


def train_even(model, dataset, optimizer, max_steps):
    # Trap: drop_last=True, so every batch drawn has the full size.
    batches = iter(DataLoader(dataset, batch_size=16, drop_last=True))
    for _ in range(max_steps):
        x, y = next(batches)
        model(x.to(device)).sum().backward()
        optimizer.step()
        torch_xla.sync()


def train_with_probe(model, dataset, val_set, optimizer, steps):
    batches = iter(DataLoader(dataset, batch_size=8, drop_last=True))
    val_loader = DataLoader(val_set, batch_size=8)
    for step in range(steps):
        x, y = next(batches)
        model(x.to(device)).sum().backward()
        optimizer.step()
        torch_xla.sync()
        if step % 100 == 0:
            # Trap: a fresh iterator's first batch is always a full one.
            vx, _ = next(iter(val_loader))
            model(vx.to(device))


class Trainer:
    """The batch is drawn by a helper method that the step loop calls."""

    def __init__(self, model, dataset, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.loader = DataLoader(dataset, batch_size=64, shuffle=True)  # error: XLA102
        self.data_iter = iter(self.loader)

    def get_batch(self):
        try:
            return next(self.data_iter)
        except StopIteration:
            self.data_iter = iter(self.loader)
            return next(self.data_iter)

    def train(self, max_steps):
        for _ in range(max_steps):
            x, y = self.get_batch()
            self.model(x.to(device)).sum().backward()
            self.optimizer.step()
            torch_xla.sync()
