"""Eval file for XLA603 (MpDeviceLoader / ParallelLoader)."""
# flake8-xla: --xla-migrate=torchtpu
import torch
import torch_xla  # error: XLA600
import torch_xla.distributed.parallel_loader as pl  # error: XLA600
from torch_xla.distributed.parallel_loader import MpDeviceLoader  # error: XLA600


def loaders(dataset, device):
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, drop_last=True)
    a = pl.MpDeviceLoader(loader, device)  # error: XLA603
    b = MpDeviceLoader(loader, device)  # error: XLA603
    para = pl.ParallelLoader(loader, [device])  # error: XLA603
    for batch in para.per_device_loader(device):  # error: XLA603
        print(batch.shape)
    # Trap: the plain DataLoader stays.
    return a, b, torch.utils.data.DataLoader(dataset)
