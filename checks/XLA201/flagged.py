"""XLA201 flagged: host sync inside the training step.

The loop logs ``loss.item()`` before ``torch_xla.sync()``.  Reading the value of
a lazy tensor forces XLA to compile and execute the graph pending so far and to
copy the result to the host in the middle of the step; the sync at the end of
the step then executes a second graph.  Every step pays an extra execution plus a
blocking device-to-host transfer.
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

    for step, (x, y) in enumerate(make_batches(STEPS)):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")
        torch_xla.sync()

    print(f"XLA201 flagged: {STEPS} steps done")


if __name__ == "__main__":
    main()
