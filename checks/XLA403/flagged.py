"""XLA403 flagged: distributed AMP step without a gradient all-reduce.

A mixed-precision (float16 autocast + GradScaler) job started with
``torch_xla.launch``.  ``scaler.step(optimizer)`` takes the place of
``xm.optimizer_step``, so nothing all-reduces the gradients: with more than one
replica each process unscales and applies only its own gradients, and the
replicas train different models.
"""
import os

import torch
import torch.nn as nn
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from torch_xla.amp import syncfree

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_dataset(world_size):
    gen = torch.Generator().manual_seed(0)
    n = STEPS * BATCH_SIZE * world_size
    return TensorDataset(torch.randn(n, FEATURES, generator=gen), torch.randint(0, 2, (n,), generator=gen))


def _mp_fn(index):
    torch.manual_seed(0)
    device = torch_xla.device()
    world_size, rank = xr.world_size(), xr.global_ordinal()
    dataset = make_dataset(world_size)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler, drop_last=True)

    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = syncfree.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("xla")
    loss_fn = nn.CrossEntropyLoss()

    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        with torch.autocast("xla", dtype=torch.float16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        found_inf = sum(scaler._found_inf_per_device(optimizer).values())
        optimizer.step(found_inf=found_inf)
        scaler.update()

    checksum = sum(p.sum() for p in model.parameters())
    print(f"XLA403 flagged: replica {rank}/{world_size}, {len(loader)} steps, "
          f"final loss {loss.item():.4f}, weight checksum {checksum.item():.6f}")


if __name__ == "__main__":
    torch_xla.launch(_mp_fn)
