"""Eval file for XLA103: a loss module whose numerical checks (``if torch.isnan(x).any():
raise``) run only when its constructor's flag is on. Built with the flag off for the
XLA run, the checks never run; built with it on (or left at its default True), every
step reads the loss to decide."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch import nn


class CheckedLoss(nn.Module):
    def __init__(self, numerical_check=True):
        super().__init__()
        self.numerical_check = numerical_check

    def forward(self, out, y):
        loss = ((out - y) ** 2).mean()
        if self.numerical_check:
            if torch.isnan(loss).any() or torch.isinf(loss).any():
                raise ValueError("loss is NaN or inf")
        return loss


class GuardedLoss(nn.Module):
    def __init__(self, guard=True):
        super().__init__()
        self.guard = guard

    def forward(self, out, y):
        loss = nn.functional.l1_loss(out, y)
        if self.guard:
            if torch.isnan(loss).any():  # error: XLA103
                raise ValueError("loss is NaN")
        return loss


class RegistryLoss(nn.Module):
    def __init__(self, check=False):
        super().__init__()
        self.check = check

    def forward(self, out, y):
        loss = ((out - y) ** 2).mean()
        if self.check:
            if torch.isnan(loss).any():  # error: XLA103
                raise ValueError("loss is NaN")
        return loss


class LaterLoss(nn.Module):
    def __init__(self, check=False):
        super().__init__()
        self.check = check

    def enable_checks(self):
        self.check = True

    def forward(self, out, y):
        loss = ((out - y) ** 2).mean()
        if self.check:
            if torch.isnan(loss).any():  # error: XLA103
                raise ValueError("loss is NaN")
        return loss


LOSSES = {"registry": RegistryLoss}


def train(model, loader, optimizer):
    device = torch_xla.device()
    criterion = CheckedLoss(numerical_check=False)
    guarded = GuardedLoss()
    registry = LOSSES["registry"](check=True)
    later = LaterLoss()
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y) + guarded(out, y) + registry(out, y) + later(out, y)
        loss.backward()
        optimizer.step()
