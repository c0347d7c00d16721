"""XLA302 flagged: plain DataLoader driving the XLA training loop.

Each batch of a ``torch.utils.data.DataLoader`` is copied to the XLA device with
``.to(device)`` at the top of the step, and the step is cut with
``torch_xla.sync()``.  The copy happens synchronously in the training thread,
so on a real accelerator it is not overlapped with the previous step's compute
as ``pl.MpDeviceLoader`` would do in its background threads.
"""
import os

import torch
import torch.nn as nn
import torch_xla
from torch.utils.data import DataLoader, TensorDataset

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_dataset():
    gen = torch.Generator().manual_seed(0)
    features = torch.randn(STEPS * BATCH_SIZE, FEATURES, generator=gen)
    labels = torch.randint(0, 2, (STEPS * BATCH_SIZE,), generator=gen)
    return TensorDataset(features, labels)


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(make_dataset(), batch_size=BATCH_SIZE, shuffle=True, drop_last=True)

    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA302 flagged: {len(loader)} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
