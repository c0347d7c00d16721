"""XLA201 fixed: loss logging deferred with a step closure.

The loss is handed to ``xm.add_step_closure``, which runs the logging callback
only after ``torch_xla.sync()`` has executed the step's graph.  By then the loss
is already materialized, so reading it neither cuts the graph in two nor adds
an extra execution in the middle of the step.
"""
import os

import torch
import torch.nn as nn
import torch_xla
import torch_xla.core.xla_model as xm

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_batches(n):
    gen = torch.Generator().manual_seed(0)
    return [(torch.randn(BATCH_SIZE, FEATURES, generator=gen), torch.randint(0, 2, (BATCH_SIZE,), generator=gen))
            for _ in range(n)]


def log_loss(step, loss):
    print(f"step {step}: loss {loss.item():.4f}")


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
        xm.add_step_closure(log_loss, args=(step, loss))
        torch_xla.sync()

    print(f"XLA201 fixed: {STEPS} steps done")


if __name__ == "__main__":
    main()
