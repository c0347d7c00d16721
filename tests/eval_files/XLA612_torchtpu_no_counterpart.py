"""Eval file for XLA612 (torch_xla APIs without a TorchTPU counterpart)."""
# flake8-xla: --xla-migrate=torchtpu
import torch_xla  # error: XLA600
import torch_xla.runtime as xr  # error: XLA600
import torch_xla.utils.utils as xu  # error: XLA600

xr.initialize_cache("/tmp/xla_cache")  # error: XLA612
flag = xu.getenv_as("MY_FLAG", bool, False)  # error: XLA612
version = torch_xla.__version__  # error: XLA612


def trap(xla_cache):
    # Trap: a local name that only mentions xla.
    return xla_cache, flag, version
