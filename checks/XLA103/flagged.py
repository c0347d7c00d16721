"""XLA103 flagged: data-dependent control flow in the training step.

Before the backward pass the loop skips the batch when the loss is NaN.  Python
needs a real bool for ``if``, so torch_xla executes the graph traced so far
(the forward pass), copies the answer to the host, and only then traces the
backward pass and the update, which ``torch_xla.sync()`` executes as a second
graph.  Every step pays an extra execution and a blocking device-to-host read.
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
        if torch.isnan(loss).any():
            continue  # skip a diverged batch
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA103 flagged: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
