"""XLA501 fixed: every tensor goes to the XLA device.

The batches are moved with ``.to(device)`` where ``device = torch_xla.device()``,
the same device as the model, so the script runs on any XLA host (TPU, GPU via
PJRT, or CPU) without depending on CUDA.
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
    return [{"features": torch.randn(BATCH_SIZE, FEATURES, generator=gen),
             "labels": torch.randint(0, 2, (BATCH_SIZE,), generator=gen)} for _ in range(n)]


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for batch in make_batches(STEPS):
        batch = {k: v.to(device) for k, v in batch.items()}
        optimizer.zero_grad()
        loss = loss_fn(model(batch["features"]), batch["labels"])
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA501 fixed: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
