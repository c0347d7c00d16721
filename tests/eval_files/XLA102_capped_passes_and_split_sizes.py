"""Eval file for XLA102: dataset sizes through ``random_split(ds, list(SIZES))`` and a
ConcatDataset (its parts' rows together; a tensor shifted by a number keeps its rows),
and evaluation loops that stop each pass after a known count (``if i + 1 ==
EVAL_BATCHES: break``, ``zip(range(N), loader)``, ``islice(loader, N)``), which may end
before the loader's last batch. A count kept
across epochs (set before the epoch loop) stops the last epoch only: still reported."""
import itertools

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset, random_split

SIZES = (8_000, 1_000, 1_000)
EVAL_BATCHES = 20


def part(n, shift):
    x = torch.randn(n, 40) + shift
    return TensorDataset(x, torch.zeros(n))


def loaders():
    full = TensorDataset(torch.randn(10_000, 8), torch.zeros(10_000))
    train, val, test = random_split(full, list(SIZES))
    return [
        # Traps: 1,000 rows by 200; 640 + 460 rows by 100.
        DataLoader(val, batch_size=200),
        DataLoader(ConcatDataset([part(640, 0.0), part(460, 0.5)]), batch_size=100),
        # These do not divide: 1,000 by 300; 640 + 470 by 100.
        DataLoader(test, batch_size=300),  # error: XLA102
        DataLoader(ConcatDataset([part(640, 0.0), part(470, 0.5)]), batch_size=100),  # error: XLA102
    ]


def fit(model, optimizer):
    device = torch_xla.device()
    for loader in loaders():
        for xb, yb in pl.MpDeviceLoader(loader, device):
            model(xb).sum().backward()
            optimizer.step()


def estimate(model, val_set):
    device = torch_xla.device()
    capped = DataLoader(val_set, batch_size=32)  # (each pass stops after 20 batches)
    whole = DataLoader(val_set, batch_size=32)  # error: XLA102
    total = torch.zeros((), device=device)
    with torch.no_grad():
        for i, (x, y) in enumerate(pl.MpDeviceLoader(capped, device)):
            total += model(x).sum()
            if i + 1 == EVAL_BATCHES:
                break
        for x, y in pl.MpDeviceLoader(whole, device):
            total += model(x).sum()
    return total


def train_capped_globally(model, optimizer, train_set):
    device = torch_xla.device()
    loader = DataLoader(train_set, batch_size=64)  # error: XLA102
    completed = 0
    for epoch in range(3):
        for x, y in pl.MpDeviceLoader(loader, device):
            model(x).sum().backward()
            optimizer.step()
            completed += 1
            if completed >= 1000:
                break


def smoke_capped(model, val_set, smoke_test=False):
    # A cap under a flag (off by default) does not stop the pass.
    device = torch_xla.device()
    loader = DataLoader(val_set, batch_size=32)  # error: XLA102
    with torch.no_grad():
        for i, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
            model(x)
            if smoke_test:
                if i + 1 == 5:
                    break


def one_epoch(model, optimizer, loader, device, global_step):
    # (a count handed in: the epochs before the last run whole)
    for x, y in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        optimizer.step()
        global_step += 1
        if global_step >= 1000:
            break
    return global_step


def train_with_global_step(model, optimizer, train_set):
    device = torch_xla.device()
    loader = DataLoader(train_set, batch_size=64)  # error: XLA102
    step = 0
    for epoch in range(3):
        step = one_epoch(model, optimizer, loader, device, step)


def cap_beyond_the_batches(model):
    # 1,000 rows by 64: 16 batches, the last short; a cap of 50 never stops the pass.
    device = torch_xla.device()
    data = TensorDataset(torch.randn(1000, 8), torch.zeros(1000))
    loader = DataLoader(data, batch_size=64)  # error: XLA102
    with torch.no_grad():
        for i, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
            model(x)
            if i + 1 == 50:
                break


def decode_budget(model, val_set):
    # The break ends an inner decoding loop; every batch is still drawn.
    device = torch_xla.device()
    loader = DataLoader(val_set, batch_size=8)  # error: XLA102
    with torch.no_grad():
        for x, y in pl.MpDeviceLoader(loader, device):
            decoded = 0
            for _ in range(64):
                x = model(x)
                decoded += 1
                if decoded >= 16:
                    break


def sliced_eval(model, val_set):
    device = torch_xla.device()
    capped = DataLoader(val_set, batch_size=32)  # (30 batches a pass)
    rows = TensorDataset(torch.randn(1000, 8), torch.zeros(1000))
    past = DataLoader(rows, batch_size=64)  # error: XLA102
    with torch.no_grad():
        for _, (x, y) in zip(range(30), pl.MpDeviceLoader(capped, device)):
            model(x)
        # (16 batches, the last short: 20 never stops the pass)
        for x, y in itertools.islice(pl.MpDeviceLoader(past, device), 20):
            model(x)
