"""Eval file for XLA504: a loader in the branch that runs with one replica
(``if world_size > 1: <sharded> else: <plain>``, ``if xr.world_size() == 1:``) reads the
whole dataset on purpose; a boolean flag's branch is not read that way, since its default
need not match the launcher's process count."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

DISTRIBUTED = False  # a flag: set by hand for multi-core runs


def build_loader(ds, world_size: int = 1, rank: int = 0):
    if world_size > 1:
        sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=True)
        return DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True)
    else:
        return DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)  # trap


def build_eval_style_loader(ds):
    if xr.world_size() == 1:
        return DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)  # trap
    sampler = DistributedSampler(ds, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    return DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True)


def build_flag_loader(ds):
    if DISTRIBUTED:
        sampler = DistributedSampler(ds, num_replicas=xr.world_size(), rank=xr.global_ordinal())
        return DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True)
    return DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)  # error: XLA504


def run(index):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 1).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ds = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
    loaders = (build_loader(ds, xr.world_size(), xr.global_ordinal()),
               build_eval_style_loader(ds), build_flag_loader(ds))
    for loader in loaders:
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            xm.optimizer_step(opt)


if __name__ == "__main__":
    xmp.spawn(run)
