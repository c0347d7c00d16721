"""XLA103 fixed: the NaN guard stays on the device.

Instead of asking Python whether the loss is NaN, the loss is replaced by zero
with ``torch.where`` when it is NaN.  A zero loss gives zero gradients, so plain
SGD leaves the weights unchanged for that batch, as the ``continue`` did, but
the decision is a node of the step graph: one execution per step and no
device-to-host read.
"""
import os

import torch
import torch.nn as nn
import torch_xla

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_batches(n):
    gen = torch.Generator().manual_seed(0)
    return [(torch.randn(BATCH_SIZE, FEATURES, generator=gen), torch.randint(0, 2, (BATCH_SIZE,), generator=gen))
            for _ in range(n)]


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for x, y in make_batches(STEPS):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss = torch.where(torch.isnan(loss), torch.zeros_like(loss), loss)  # a diverged batch adds nothing
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA103 fixed: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
