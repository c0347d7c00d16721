"""Eval file for XLA201 and XLA103: a NaN guard reads the loss every step (its test is a
branch on a lazy tensor), but what its arm does runs only on the steps whose numbers went
wrong: the ``loss.item()`` it logs there is no per-step sync. A read after the guard, on
every step, still is; so is one in the finite arm of ``isfinite(...)``."""
import math

import torch
import torch_xla
import torch_xla.core.xla_model as xm


def train(model, loader, opt, device, skipped):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        if not torch.isfinite(loss).item():  # error: XLA201
            skipped += 1
            print(f"non-finite loss {loss.item()}, skipping")
            opt.zero_grad()
            continue
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        print(loss.item())  # error: XLA201


def train_else_arm(model, loader, opt, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        if torch.isfinite(loss).all():  # error: XLA103
            loss.backward()
            xm.optimizer_step(opt)
            torch_xla.sync()
            print(f"loss {loss.item()}")  # error: XLA201
        else:
            print(f"bad loss {loss.item()}")
            opt.zero_grad()


def train_either_test(model, loader, opt, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        if torch.isnan(loss) or torch.isinf(loss):  # error: XLA103
            xm.master_print(f"step skipped at loss {loss.item()}")
            continue
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()


def train_host_value(model, loader, opt, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        value = loss.item()  # error: XLA201
        if math.isnan(value):
            print(f"nan at {value}")
            continue
