"""Eval file for XLA600 (imports of torch_xla under --xla-migrate=torchtpu)."""
# flake8-xla: --xla-migrate=torchtpu
import os
import torch
import torch_xla  # error: XLA600
import torch_xla.core.xla_model as xm  # error: XLA600
from torch_xla.distributed import parallel_loader as pl  # error: XLA600
from . import torch_xla_helpers
import torch_xla_py.xla_model as legacy  # error: XLA600


def trap_names(torch_xla_like, xla_model="xm"):
    # Traps: names and strings that only look like torch_xla.
    return os.path.join("torch_xla", xla_model), torch_xla_like, torch_xla_helpers, torch
