"""XLA402 flagged: GradScaler driving a regular (non-syncfree) optimizer.

``scaler.step(optimizer)`` with a plain ``torch.optim.SGD`` has to decide on the
host whether the gradients contained inf/NaN: it reads ``found_inf`` back from
the device (``found_inf.item()``) every step.  That read executes the pending
forward/backward graph mid-step and blocks on a device-to-host transfer, so
every step costs two graph executions instead of one.
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
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("xla")
    loss_fn = nn.CrossEntropyLoss()

    for x, y in make_batches(STEPS):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("xla", dtype=torch.bfloat16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        torch_xla.sync()

    print(f"XLA402 flagged: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
