"""Eval file for XLA301: a barrier bound with functools.partial, and loaders kept in a dict.

``step = functools.partial(xm.optimizer_step, barrier=True)`` runs the optimizer step
and the step barrier each time it is called. A dict of per-task DataLoaders filled in a
loop (``loaders, heads = {}, {}``, then ``loaders[name] = DataLoader(...)``) still holds
DataLoaders: a training loop over one, with a barrier only after it, grows one graph
per task.
"""
import functools

import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader

optimizer_step = functools.partial(xm.optimizer_step, barrier=True)
unbarriered_step = functools.partial(xm.optimizer_step, barrier=False)


def run_epoch(model, dataset, optimizer, device):
    loader = DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True)
    for x, y in loader:  # error: XLA302
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer_step(optimizer)
        optimizer.zero_grad()


def run_epoch_without_barrier(model, dataset, optimizer, device):
    loader = DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True)
    for x, y in loader:  # error: XLA301
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        unbarriered_step(optimizer)
        optimizer.zero_grad()


def make_task_loaders(datasets, batch_size):
    loaders, sizes = {}, {}
    for name, ds in datasets.items():
        loaders[name] = DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=True)
        sizes[name] = len(ds)
    return loaders, sizes


def train_tasks(model, datasets, optimizer, epochs):
    device = torch_xla.device()
    loaders, _ = make_task_loaders(datasets, 32)
    for _ in range(epochs):
        for task, loader in loaders.items():
            for x, y in loader:  # error: XLA301
                loss = F.cross_entropy(model(x.to(device)), y.to(device))
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
            torch_xla.sync()
        for x, y in loaders["main"]:  # error: XLA302
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            torch_xla.sync()


def main(model, dataset):
    device = torch_xla.device()
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    run_epoch(model, dataset, optimizer, device)
    run_epoch_without_barrier(model, dataset, optimizer, device)
