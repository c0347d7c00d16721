"""Eval file for XLA201: lazy tensors added into numpy arrays in the step."""
import numpy as np
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


class Counts:
    def __init__(self, bins):
        self.tp = np.zeros(bins)
        self.total = 0.0

    def update(self, preds, labels, i):
        hit = ((preds > 0.5) == labels).sum()
        self.tp[i] += hit  # error: XLA201
        # Trap: a Python float plus a tensor stays a lazy tensor (no copy).
        self.total += hit


def evaluate(model, loader):
    device = torch_xla.device()
    counts = Counts(10)
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        counts.update(torch.sigmoid(model(x)), y, step % 10)
    return counts
