"""Eval file for XLA504: torch's RandomSampler under several replicas.

``sampler=RandomSampler(ds)`` draws from the whole dataset in every process: each
replica of ``torch_xla.launch`` reads all of it, as with no sampler at all. A
DistributedSampler shards it.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, DistributedSampler, RandomSampler


def _mp_fn(index, ds, model):
    device = torch_xla.device()
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(ds, batch_size=32, sampler=RandomSampler(ds), drop_last=True)  # error: XLA504
    sharded = DistributedSampler(ds, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    good = DataLoader(ds, batch_size=32, sampler=sharded, drop_last=True)
    for batches in (loader, good):
        for x, y in pl.MpDeviceLoader(batches, device):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            xm.optimizer_step(optimizer)


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=(None, None))
