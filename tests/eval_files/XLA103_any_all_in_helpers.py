"""Eval file for XLA103: Python's any()/all() over lazy tensors where they run, in a
helper the training step calls."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def grads_are_finite(model):
    return all(torch.isfinite(p.grad).all() for p in model.parameters())  # error: XLA103


def any_bad(losses, limits):
    # Traps: host numbers, and a test of a list's emptiness.
    over = any(x > 10 for x in limits)
    return over or not losses


def train(model, loader, optimizer, limits):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        F.mse_loss(model(x), y).backward()
        if not grads_are_finite(model):
            continue
        if any_bad([], limits):
            continue
        optimizer.step()
        torch_xla.sync()
