"""Eval file for XLA508 (and XLA507): the fallback of an import shim.

``except ImportError:`` after a ``try`` that imports the newer spelling runs only on the
releases that lack it: on the targeted release (2.9 by default) the fallback's old names
never run. A ``try`` whose import the targeted release lacks does run its fallback.
"""
import torch_xla

try:
    from torch_xla import sync as step_barrier
    from torch_xla import device as xla_device
except ImportError:  # torch_xla < 2.6
    from torch_xla.core.xla_model import mark_step as step_barrier
    from torch_xla.core.xla_model import xla_device

try:
    import torch_xla.runtime as xr

    world_size = xr.world_size
except (ImportError, AttributeError):
    import torch_xla.core.xla_model as xm

    world_size = xm.xrt_world_size

try:
    from torch_xla.amp import GradScaler  # gone in 2.9: the fallback below runs
except ImportError:
    GradScaler = None
    from torch_xla.core.xla_model import mark_step  # error: XLA508


def step():
    step_barrier()
    return xla_device(), world_size(), GradScaler, mark_step, torch_xla
