"""XLA403 fixed: the gradients are all-reduced before scaler.step(optimizer).

Same mixed-precision job as the flagged script, with ``xm.reduce_gradients(optimizer)``
between the backward pass and ``scaler.step(optimizer)``: the (still scaled)
gradients are averaged across the replicas, then every replica unscales,
checks for overflow and steps on the same gradients, so the replicas stay in
sync.  With a single replica ``reduce_gradients`` does nothing.
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
        xm.reduce_gradients(optimizer)
        scaler.unscale_(optimizer)
        found_inf = sum(scaler._found_inf_per_device(optimizer).values())
        optimizer.step(found_inf=found_inf)
        scaler.update()

    checksum = sum(p.sum() for p in model.parameters())
    print(f"XLA403 fixed: replica {rank}/{world_size}, {len(loader)} steps, "
          f"final loss {loss.item():.4f}, weight checksum {checksum.item():.6f}")


if __name__ == "__main__":
    torch_xla.launch(_mp_fn)
