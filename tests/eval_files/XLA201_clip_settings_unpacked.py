"""Eval file for XLA201: ``error_if_nonfinite=True`` unpacked from a settings dict.

``clip_grad_norm_(model.parameters(), **CLIP)`` with ``CLIP = {"max_norm": 1.0,
"error_if_nonfinite": True}``: torch tests the total norm in Python every step, as with
the keyword written in the call. A dict without it (or with it False) reads nothing.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm

CLIP = {"max_norm": 1.0, "norm_type": 2.0, "error_if_nonfinite": True}
QUIET_CLIP = {"max_norm": 1.0, "error_if_nonfinite": False}
PLAIN_CLIP = dict(max_norm=1.0)


def train(model, loader, opt):
    device = torch_xla.device()
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), **CLIP)  # error: XLA201
        torch.nn.utils.clip_grad_norm_(model.parameters(), **QUIET_CLIP)
        torch.nn.utils.clip_grad_norm_(model.parameters(), **PLAIN_CLIP)
        xm.optimizer_step(opt)
        torch_xla.sync()
