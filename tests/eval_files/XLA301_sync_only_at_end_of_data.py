"""Eval file for XLA301: a barrier that runs only when the data runs out.

``while True: try: x = next(it) except StopIteration: torch_xla.sync(); ...``: the
handler runs once per pass over the data, so a barrier there cuts the graph once per
epoch, and every step of the epoch joins one growing graph. Reads in that handler run
once per epoch, after its barrier (not a per-step host sync).
"""
import torch
import torch.nn.functional as F
import torch_xla
from torch.utils.data import DataLoader, TensorDataset


def train(model, windows, optimizer, epochs):
    device = torch_xla.device()
    loader = DataLoader(TensorDataset(windows), batch_size=64, shuffle=True, drop_last=True)
    it = iter(loader)
    epoch = 0
    epoch_loss = torch.zeros((), device=device)
    while True:  # error: XLA301
        try:
            (x,) = next(it)
        except StopIteration:
            torch_xla.sync()
            print(f"epoch {epoch}: {epoch_loss.item() / len(loader):.5f}")
            epoch += 1
            if epoch == epochs:
                break
            it = iter(loader)
            continue
        x = x.to(device)
        loss = F.mse_loss(model(x), x)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        epoch_loss += loss.detach()


def train_synced(model, windows, optimizer, epochs):
    device = torch_xla.device()
    loader = DataLoader(TensorDataset(windows), batch_size=64, shuffle=True, drop_last=True)
    it = iter(loader)
    epoch = 0
    epoch_loss = torch.zeros((), device=device)
    while epoch < epochs:
        try:
            (x,) = next(it)
        except StopIteration:
            print(f"epoch {epoch}: {epoch_loss.item() / len(loader):.5f}")
            epoch += 1
            it = iter(loader)
            continue
        x = x.to(device)
        loss = F.mse_loss(model(x), x)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        epoch_loss += loss.detach()
        torch_xla.sync()
