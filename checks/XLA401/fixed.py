"""XLA401 fixed: XLA autocast.

The forward pass is wrapped in ``torch.autocast("xla", dtype=torch.bfloat16)``,
the autocast context for the XLA device: matmuls run in bfloat16 (the logits
come out as bfloat16) while precision-sensitive ops such as the loss stay in
float32.
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
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for x, y in make_batches(STEPS):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("xla", dtype=torch.bfloat16):
            logits = model(x)
            loss = loss_fn(logits, y)
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA401 fixed: {STEPS} steps, logits dtype {logits.dtype}, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
