"""Eval file for XLA302 (plain DataLoader in the training loop)."""
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

device = torch_xla.device()


def train(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    for x, y in loader:  # error: XLA302
        x, y = x.to(device), y.to(device)
        model(x, y).backward()
        optimizer.step()
        torch_xla.sync()
    # Traps: the device loader; a loop that does not train.
    for x, y in pl.MpDeviceLoader(loader, device):
        model(x, y).backward()
        optimizer.step()
    for x, _ in loader:
        model(x.to(device))
        torch_xla.sync()
