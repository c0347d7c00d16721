"""Eval file for XLA504 (DistributedSampler without num_replicas/rank)."""
import torch_xla
import torch_xla.runtime as xr
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def _mp_fn(index, dataset):
    bad = DistributedSampler(dataset, shuffle=True)  # error: XLA504
    good = DistributedSampler(dataset, num_replicas=xr.world_size(), rank=xr.global_ordinal(),
                              shuffle=True)
    return DataLoader(dataset, batch_size=8, sampler=good, drop_last=True), bad


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=([],))
