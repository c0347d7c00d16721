"""Eval file for XLA611 (SPMD, FSDP)."""
# flake8-xla: --xla-migrate=torchtpu
import numpy as np
import torch_xla.distributed.spmd as xs  # error: XLA600
import torch_xla.runtime as xr  # error: XLA600
from torch_xla.distributed.fsdp import XlaFullyShardedDataParallel as FSDP  # error: XLA600
from torch.distributed.tensor import Shard, distribute_tensor

xr.use_spmd()  # error: XLA611


def shard(w, model):
    mesh = xs.Mesh(np.arange(8), (4, 2), ("data", "model"))  # error: XLA611
    xs.mark_sharding(w, mesh, ("data", None))  # error: XLA611
    wrapped = FSDP(model)  # error: XLA611
    # Trap: DTensor is the counterpart.
    return wrapped, distribute_tensor, Shard
