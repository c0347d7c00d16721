"""Eval file for XLA301: torch_xla imported lazily with importlib.import_module."""
import importlib

import torch
from torch.utils.data import DataLoader


def train(model, dataset, optimizer):
    # After the PJRT environment is set up: a lazy import is still an import.
    xm = importlib.import_module("torch_xla.core.xla_model")
    device = xm.xla_device()  # error: XLA508
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    for x, y in loader:  # error: XLA302
        loss = model(x.to(device), y.to(device))
        loss.backward()
        optimizer.step()
        xm.mark_step()  # error: XLA508
        print(loss.item())  # error: XLA201


def evaluate(model, dataset):
    xla_model = importlib.import_module("torch_xla.core.xla_model")
    device = xla_model.xla_device()  # error: XLA508
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    total = torch.zeros((), device=device)
    for x, y in loader:  # error: XLA301
        total += (model(x.to(device)).argmax(-1) == y.to(device)).sum()
    return total


def plugin(name):
    # Traps: a module name known only at run time, and a relative one.
    return importlib.import_module(name), importlib.import_module(".hooks", "pkg")
