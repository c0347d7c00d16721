"""Eval file for XLA102: synthetic datasets whose rows are known from how they are made
(randint shapes, tuple assignments, slices, dtype casts), so a batch size that divides
them leaves no short last batch."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, TensorDataset


def loaders():
    tokens = torch.randint(0, 5000, (8192, 64))
    tags = torch.randint(10, size=(8192,))
    x, y = torch.randn(50000, 30), torch.randn(50000).long()
    order = torch.randperm(8192)
    return [
        # Traps: every one of these divides evenly.
        DataLoader(TensorDataset(tokens, tags), batch_size=64, shuffle=True),
        DataLoader(TensorDataset(x[:40000], y[:40000]), batch_size=500, shuffle=True),
        DataLoader(TensorDataset(x[40000:].float(), y[40000:]), batch_size=1000),
        DataLoader(TensorDataset(order, tags), batch_size=128),
        # These do not: 8192 / 100, 9999 rows / 1000, 10000 / 3.
        DataLoader(TensorDataset(tokens, tags), batch_size=100),  # error: XLA102
        DataLoader(TensorDataset(x[:9999], y[:9999]), batch_size=1000),  # error: XLA102
        DataLoader(TensorDataset(x[40000:], y[40000:]), batch_size=3),  # error: XLA102
    ]


def fit(model, optimizer):
    device = torch_xla.device()
    for loader in loaders():
        for xb, yb in pl.MpDeviceLoader(loader, device):
            model(xb).sum().backward()
            optimizer.step()
