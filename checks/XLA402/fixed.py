"""XLA402 fixed: GradScaler with a syncfree optimizer.

``torch_xla.amp.syncfree.SGD`` accepts the ``found_inf`` tensor itself and skips
the update on the device when it is non-zero, so nothing has to be read back
to the host: the whole step (forward, backward, unscale, inf check, update,
scale update) stays one graph.  torch_xla 2.9 no longer ships its own
GradScaler, and ``torch.amp.GradScaler.step`` does not pass ``found_inf`` to a
syncfree optimizer, so ``scaler_step`` below does that hand-off (as the removed
``torch_xla.amp.GradScaler.step`` did).
"""
import os

import torch
import torch.nn as nn
import torch_xla
from torch_xla.amp import syncfree

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_batches(n):
    gen = torch.Generator().manual_seed(0)
    return [(torch.randn(BATCH_SIZE, FEATURES, generator=gen), torch.randint(0, 2, (BATCH_SIZE,), generator=gen))
            for _ in range(n)]


def scaler_step(scaler, optimizer):
    scaler.unscale_(optimizer)
    found_inf = sum(scaler._found_inf_per_device(optimizer).values())
    optimizer.step(found_inf=found_inf)


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = syncfree.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("xla")
    loss_fn = nn.CrossEntropyLoss()

    for x, y in make_batches(STEPS):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("xla", dtype=torch.bfloat16):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler_step(scaler, optimizer)
        scaler.update()
        torch_xla.sync()

    print(f"XLA402 fixed: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
