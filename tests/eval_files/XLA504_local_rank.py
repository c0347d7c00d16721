"""Eval file for XLA504: a DistributedSampler whose rank is the replica's index on its own
host (``LOCAL_RANK``, ``get_local_ordinal()``) while num_replicas is the world size:
xmp.spawn sets no LOCAL_RANK (every replica reads shard 0), and on several hosts the
replicas of different hosts read the same shard. A per-host count with a per-host rank
is consistent, and the global ordinal is the fix."""
import os

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def _mp_fn(index, model, train_set, eval_set):
    device = torch_xla.device()
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    train_sampler = DistributedSampler(  # error: XLA504
        train_set, num_replicas=xr.world_size(), rank=local_rank, shuffle=True)
    eval_sampler = DistributedSampler(  # error: XLA504
        eval_set, num_replicas=xr.world_size(), rank=xm.get_local_ordinal())
    host_sampler = DistributedSampler(  # trap: a per-host split of a per-host dataset
        eval_set, num_replicas=xr.local_device_count(), rank=xm.get_local_ordinal())
    good = DistributedSampler(train_set, num_replicas=xr.world_size(),
                              rank=xr.global_ordinal())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for sampler in (train_sampler, eval_sampler, host_sampler, good):
        loader = DataLoader(train_set, batch_size=8, sampler=sampler, drop_last=True)
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            xm.optimizer_step(opt)


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None, None, None))
