"""Eval file for XLA504: a module that starts its replicas with ``xmp.spawn(_mp_fn)`` runs
in them ``_mp_fn`` and what it names (its functions and classes, and the functions of a
module-level table it reads); its single-device ``train_single()`` (the ``--single`` path,
run in the launching process) reads the whole dataset on its one device, which is fine."""
import sys

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
from torch.utils.data import DataLoader, TensorDataset


def make_dataset():
    return TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))


def make_model():
    return torch.nn.Linear(16, 1)


def train_single():
    device = torch_xla.device()
    model = make_model().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # Trap: one process, one device.
    loader = DataLoader(make_dataset(), batch_size=64, shuffle=True, drop_last=True)
    for x, y in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def train_task(device):
    model = make_model().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(make_dataset(), batch_size=64, shuffle=True, drop_last=True)  # error: XLA504
    for x, y in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        xm.optimizer_step(opt)


TASKS = {"regression": train_task}


def _mp_fn(index, flags):
    device = torch_xla.device()
    TASKS[flags["task"]](device)


if __name__ == "__main__":
    if "--single" in sys.argv:
        train_single()
    else:
        xmp.spawn(_mp_fn, args=({"task": "regression"},))
