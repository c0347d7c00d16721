"""Eval file for XLA201: an ``OrderedDict`` of device tensors read on the host per step.

``OrderedDict([(k, torch.tensor(0.0, device=device)) for k in keys])`` holds lazy
tensors, as ``dict(...)`` of the same pairs does: ``{k: v.item() for k, v in
stats.items()}`` after every step reads each of them on the host.
"""
from collections import OrderedDict

import torch
import torch_xla
import torch_xla.core.xla_model as xm


def train(model, loader, opt, keys, log):
    device = torch_xla.device()
    stats = OrderedDict([(k, torch.tensor(0.0, device=device)) for k in keys])
    names = OrderedDict([(k, str(k)) for k in keys])
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        stats["loss"] = loss.detach()
        log({k: v.item() for k, v in stats.items()})  # error: XLA201
        log({k: v.upper() for k, v in names.items()})
