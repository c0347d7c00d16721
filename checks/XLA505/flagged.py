"""XLA505 flagged: the launcher's entry point does not take the process index.

A single-device script was made multi-replica by handing its ``main`` to
``torch_xla.launch``.  The launcher calls ``fn(index, *args)`` in every process,
so ``main()``, which takes no parameter, fails with a TypeError in every replica
before training starts.
"""
import os

import torch
import torch.nn as nn
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_dataset(world_size):
    gen = torch.Generator().manual_seed(0)
    n = STEPS * BATCH_SIZE * world_size
    return TensorDataset(torch.randn(n, FEATURES, generator=gen), torch.randint(0, 2, (n,), generator=gen))


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    world_size, rank = xr.world_size(), xr.global_ordinal()
    dataset = make_dataset(world_size)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler, drop_last=True)

    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)

    print(f"XLA505 flagged: replica {rank}/{world_size}, {len(loader)} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    torch_xla.launch(main)
