"""Eval file for XLA102: a loader factory whose caller passes ``drop_last`` is reported at
the call that passes ``drop_last=False`` (where an expert fixes it), once per ragged call;
a factory that leaves ``drop_last`` to its own code is reported at its DataLoader."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, shuffle, drop_last):
    # (reported here too: the two calls of second() give equal loaders, and one of them
    # reaches its step through a parameter, which names no one call)
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)  # error: XLA102


def make_plain(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size)  # error: XLA102


def run(model, loader, optimizer=None):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        if optimizer is not None:
            loss.backward()
            xm.optimizer_step(optimizer)


def main(model, optimizer, train_set, val_set, test_set):
    device = torch_xla.device()
    train_loader = make_loader(train_set, 64, shuffle=True, drop_last=True)
    val_loader = make_loader(val_set, 64, shuffle=False, drop_last=False)  # error: XLA102
    test_loader = make_loader(test_set, 64, False, False)  # error: XLA102
    plain = make_plain(val_set, 64)
    for epoch in range(10):
        run(model, pl.MpDeviceLoader(train_loader, device), optimizer)
        with torch.no_grad():
            run(model, pl.MpDeviceLoader(val_loader, device))
            run(model, pl.MpDeviceLoader(plain, device))
    with torch.no_grad():
        run(model, pl.MpDeviceLoader(test_loader, device))


def train_one_epoch(model, optimizer, loader, device):
    for x, y in pl.MpDeviceLoader(loader, device):
        torch.nn.functional.cross_entropy(model(x), y).backward()
        xm.optimizer_step(optimizer)


def second(model, optimizer, train_set, val_set):
    # Both ragged: the training loader reaches its step through a parameter, which
    # names no one call, and its value equals the validation call's.
    device = torch_xla.device()
    train_loader = make_loader(train_set, 32, True, False)
    val_loader = make_loader(val_set, 32, False, False)  # error: XLA102
    train_one_epoch(model, optimizer, train_loader, device)
    with torch.no_grad():
        for x, _ in pl.MpDeviceLoader(val_loader, device):
            model(x)
