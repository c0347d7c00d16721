"""XLA505 fixed: the launcher calls _mp_fn(index), which runs main().

``torch_xla.launch`` passes the process index as the first argument, so the entry
point is a module-level ``_mp_fn(index)`` that calls ``main()`` (the replica's
rank is read from ``torch_xla.runtime`` inside).  The same ``_mp_fn`` is what
the transformers ``xla_spawn.py`` launcher looks for.
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

    print(f"XLA505 fixed: replica {rank}/{world_size}, {len(loader)} steps, final loss {loss.item():.4f}")


def _mp_fn(index):
    main()


if __name__ == "__main__":
    torch_xla.launch(_mp_fn)
