"""Eval file for XLA102: a loader factory called through ``functools.partial`` gets the
arguments the partial bound (``partial(make_loader, shuffle=True, drop_last=True)``), then
the call's own: a factory whose partial drops the last batch builds no ragged loader, one
whose partial binds only the batch size does."""
from functools import partial

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


def make_loader(dataset, batch_size, shuffle=False, drop_last=False):
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)


def make_eval_loader(dataset, batch_size, drop_last=False):
    return DataLoader(dataset, batch_size=batch_size, drop_last=drop_last)  # error: XLA102


train_factory = partial(make_loader, shuffle=True, drop_last=True)
eval_factory = partial(make_eval_loader, batch_size=32)


def main(model, optimizer, train_set, eval_set):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(train_factory(train_set, 64), device):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        xm.optimizer_step(optimizer)
    with torch.no_grad():
        for x, _ in pl.MpDeviceLoader(eval_factory(eval_set), device):
            model(x)
