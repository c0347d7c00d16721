"""Eval file for XLA606 (world size and ordinals)."""
# flake8-xla: --xla-migrate=torchtpu
import torch.distributed as dist
import torch_xla.core.xla_model as xm  # error: XLA600
import torch_xla.runtime as xr  # error: XLA600


def ranks():
    world = xr.world_size()  # error: XLA606
    rank = xr.global_ordinal()  # error: XLA606
    local = xm.get_local_ordinal()  # error: XLA606
    if xm.is_master_ordinal():  # error: XLA606
        xm.master_print("hello")  # error: XLA606
    # Trap: torch.distributed is the counterpart.
    return world, rank, local, dist.get_rank()
