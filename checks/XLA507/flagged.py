"""XLA507 flagged: torch_xla 1.x replica APIs removed in 2.7.

The script shards its batches by replica with ``xm.xrt_world_size()`` and
``xm.get_ordinal()``, as torch_xla 1.x scripts did.  Both were deprecated in 2.5
and removed in 2.7: on torch_xla 2.9 the first call raises AttributeError.
"""
import os

import torch
import torch.nn as nn
import torch_xla
import torch_xla.core.xla_model as xm

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_batches(n, world_size, rank):
    gen = torch.Generator().manual_seed(0)
    batches = [(torch.randn(BATCH_SIZE, FEATURES, generator=gen), torch.randint(0, 2, (BATCH_SIZE,), generator=gen))
               for _ in range(n * world_size)]
    return batches[rank::world_size]


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    world_size = xm.xrt_world_size()
    rank = xm.get_ordinal()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for x, y in make_batches(STEPS, world_size, rank):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA507 flagged: replica {rank}/{world_size}, {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
