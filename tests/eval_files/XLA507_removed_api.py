"""Eval file for XLA507 (removed torch_xla APIs, target 2.9)."""
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.runtime as xr
from torch_xla.amp import GradScaler  # error: XLA507
from torch_xla.amp import syncfree


def info():
    world = xm.xrt_world_size()  # error: XLA507
    rank = xm.get_ordinal()  # error: XLA507
    # Traps: the replacements.
    return world, rank, xr.world_size(), xr.global_ordinal(), GradScaler, syncfree, torch_xla
