"""Eval file for XLA508 (deprecated torch_xla APIs, target 2.9)."""
import torch_xla
import torch_xla.core.xla_model as xm
from torch_xla.core.xla_model import mark_step  # error: XLA508


def step(model, x):
    device = xm.xla_device()  # error: XLA508
    model(x.to(device))
    xm.mark_step()  # error: XLA508
    mark_step()
    # Traps: the new spellings.
    torch_xla.sync()
    return torch_xla.device()
