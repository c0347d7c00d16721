"""Eval file for XLA504: multi-replica training whose replicas all read the same data."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, DistributedSampler


def _mp_fn(index, dataset, eval_dataset, stream):
    device = torch_xla.device()
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(dataset, batch_size=8, shuffle=True, drop_last=True)  # error: XLA504
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    # Traps: a sharded loader, an evaluation loader, a stream that shards itself.
    sampler = DistributedSampler(dataset, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    sharded = DataLoader(dataset, batch_size=8, sampler=sampler, drop_last=True)
    for x in pl.MpDeviceLoader(sharded, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    for x in pl.MpDeviceLoader(DataLoader(eval_dataset, batch_size=8, drop_last=True), device):
        model(x)
    # Trap: batch_size=None, a pipeline that makes (and shards) its own batches.
    piped = DataLoader(stream, num_workers=4, batch_size=None)
    for x in pl.MpDeviceLoader(piped, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None, None, None))
