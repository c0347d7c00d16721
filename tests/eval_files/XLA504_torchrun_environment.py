"""Eval file for XLA504: a sampler that takes torchrun's variables under xmp.spawn.

torchrun sets ``WORLD_SIZE`` and ``RANK``; ``xmp.spawn`` and ``torch_xla.launch`` set
neither (torch_xla/_internal/pjrt.py sets only ``PJRT_LOCAL_PROCESS_RANK``/``COUNT``). A
script ported from torchrun that still reads them with a default gives every replica one
replica and rank 0: each reads the whole dataset in the same order. Reading the world from
torch_xla's runtime is fine.
"""
import os

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def _mp_fn(index):
    world_size = int(os.environ.get("WORLD_SIZE", 1))
    rank = int(os.getenv("RANK", "0"))
    device = torch_xla.device()
    ds = TensorDataset(torch.randn(64000, 32), torch.randint(0, 4, (64000,)))
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank)  # error: XLA504
    good = DistributedSampler(ds, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    model = torch.nn.Linear(32, 4).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for s in (sampler, good):
        loader = DataLoader(ds, batch_size=250, sampler=s, drop_last=True)
        for x, y in pl.MpDeviceLoader(loader, device):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            xm.optimizer_step(opt)


def _mp_fn_defaults(index):
    os.environ.setdefault("MASTER_PORT", "12355")
    # Trap: the defaults are torch_xla's own world size and ordinal.
    world_size = int(os.environ.get("WORLD_SIZE", xr.world_size()))
    rank = int(os.environ.get("RANK", xr.global_ordinal()))
    ds = TensorDataset(torch.randn(64000, 32), torch.randint(0, 4, (64000,)))
    return DistributedSampler(ds, num_replicas=world_size, rank=rank)


class Trainer:
    def __init__(self, args):
        self.args = args

    def build_sampler(self, ds):
        # a method of a class the replicas run; a default from the run's own arguments
        return DistributedSampler(  # error: XLA504
            ds, num_replicas=int(os.environ.get("WORLD_SIZE", self.args.world_size)),
            rank=int(os.environ.get("RANK", self.args.rank)))


def _mp_fn_trainer(index, args):
    ds = TensorDataset(torch.randn(64000, 32), torch.randint(0, 4, (64000,)))
    return Trainer(args).build_sampler(ds)


def main_torchrun():
    # Trap: run only under torchrun (the branch below), which sets both variables.
    ds = TensorDataset(torch.randn(64000, 32), torch.randint(0, 4, (64000,)))
    return DistributedSampler(ds, num_replicas=int(os.environ.get("WORLD_SIZE", 1)),
                              rank=int(os.environ.get("RANK", 0)))


if __name__ == "__main__":
    if "TORCHELASTIC_RUN_ID" in os.environ:
        main_torchrun()
    else:
        xmp.spawn(_mp_fn)
        xmp.spawn(_mp_fn_defaults)
        xmp.spawn(_mp_fn_trainer, args=(None,))
