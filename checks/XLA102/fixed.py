"""XLA102 fixed: the ragged remainder is dropped.

Same data as the flagged script (4.5 batches' worth of samples per epoch), but the
DataLoader is built with ``drop_last=True``: the 8 leftover samples are skipped
(with ``shuffle=True`` a different 8 each epoch), every batch has the same shape
and the training step is compiled once.
"""
import os

import torch
import torch.nn as nn
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, TensorDataset

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
EPOCHS = 2
BATCH_SIZE = 16
FEATURES = 32
# STEPS full batches over all epochs, plus half a batch left over at the end of each epoch
NUM_SAMPLES = (STEPS // EPOCHS) * BATCH_SIZE + BATCH_SIZE // 2


def make_dataset():
    gen = torch.Generator().manual_seed(0)
    features = torch.randn(NUM_SAMPLES, FEATURES, generator=gen)
    labels = torch.randint(0, 2, (NUM_SAMPLES,), generator=gen)
    return TensorDataset(features, labels)


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    loader = DataLoader(make_dataset(), batch_size=BATCH_SIZE, shuffle=True, drop_last=True)
    device_loader = pl.MpDeviceLoader(loader, device)

    for epoch in range(EPOCHS):
        for x, y in device_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()

    print(f"XLA102 fixed: {EPOCHS} epochs of {len(loader)} batches, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
