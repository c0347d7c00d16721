"""XLA508 flagged: deprecated device and step-barrier APIs.

The training loop uses ``xm.xla_device()`` and ``xm.mark_step()``, the torch_xla
1.x spellings.  Both still work in torch_xla 2.9 but are deprecated since 2.8
(they warn and forward to ``torch_xla.device()`` / ``torch_xla.sync()``) and
are slated for removal.
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


def main():
    torch.manual_seed(0)
    device = xm.xla_device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for x, y in make_batches(STEPS):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        xm.mark_step()

    print(f"XLA508 flagged: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
