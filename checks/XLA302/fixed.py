"""XLA302 fixed: the DataLoader is wrapped in pl.MpDeviceLoader.

``MpDeviceLoader`` copies the batches to the XLA device in background threads
(ahead of the step that needs them) and calls ``torch_xla.sync()`` after each
batch, so the loop neither moves the batches itself nor places the barrier.
"""
import os

import torch
import torch.nn as nn
import torch_xla
import torch_xla.distributed.parallel_loader as pl
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

    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()

    print(f"XLA302 fixed: {len(loader)} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
