"""Eval file for XLA102: a TensorDataset has the rows of each of its tensors (it asserts
they agree), so rows known from any one of them count: a masked product first and
``torch.arange(n)`` last, built by a helper called with the number of rows."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, TensorDataset

SEQ = 64


def encoded(n):
    ids = torch.randint(1, 30522, (n, SEQ))
    mask = (torch.rand(n, SEQ) > 0.1).long()
    return TensorDataset(ids * mask, mask, torch.arange(n))


def offsets(n):
    return TensorDataset(torch.arange(0, 2 * n, 2), torch.arange(n).float())


def loaders():
    return [
        # Traps: 10,000 and 2,000 rows in batches of 250; 4,096 offsets in batches of 512.
        DataLoader(encoded(10000), batch_size=250),
        DataLoader(encoded(2000), batch_size=250, shuffle=True),
        DataLoader(offsets(4096), batch_size=512),
        # These do not divide: 2,010 rows / 250, 4,000 / 512.
        DataLoader(encoded(2010), batch_size=250),  # error: XLA102
        DataLoader(offsets(4000), batch_size=512),  # error: XLA102
    ]


def fit(model, optimizer):
    device = torch_xla.device()
    for loader in loaders():
        for ids, mask, idx in pl.MpDeviceLoader(loader, device):
            model(ids, mask).sum().backward()
            optimizer.step()
