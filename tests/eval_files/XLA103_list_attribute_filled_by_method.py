"""Eval file for XLA103: a list kept in an attribute and filled by another method of
its class (a moving average of the losses the step hands in) holds what the callers
pass: lazy XLA tensors, so comparing its mean in the step reads the device. A list
attribute filled with host numbers stays host."""
import collections

import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


class MovingAverage:
    def __init__(self, n):
        self.n = n
        self._cache = []
        self.mean = 0

    def update(self, val):
        self._cache.append(val)
        if len(self._cache) > self.n:
            del self._cache[0]
        self.mean = sum(self._cache) / len(self._cache)

    def get_value(self):
        return self.mean


class SizeAverage:
    def __init__(self):
        self.sizes = []

    def add(self, n):
        self.sizes.append(n)

    def average(self):
        return sum(self.sizes) / max(len(self.sizes), 1)


class Meter:
    def __init__(self):
        self.values = collections.deque(maxlen=20)

    def mean(self):
        return sum(self.values) / max(len(self.values), 1)


class LossMeter(Meter):
    def update(self, loss):
        self.values.appendleft(loss)


class Stopper:
    history = []

    def record(self, loss):
        self.history.append(loss)


def train(model, dataset, optimizer, loss_fn, save_every=100):
    device = torch_xla.device()
    model = model.to(device)
    loader = pl.MpDeviceLoader(DataLoader(dataset, batch_size=16, drop_last=True), device)
    average_loss = MovingAverage(save_every)
    seen = SizeAverage()
    meter = LossMeter()
    stopper = Stopper()
    best = float("inf")
    for step, (x, y) in enumerate(loader):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        xm.optimizer_step(optimizer)
        average_loss.update(loss)
        seen.add(len(x))
        meter.update(loss.detach())
        stopper.record(loss.detach())
        if meter.mean() > 10.0:  # error: XLA103
            break
        if stopper.history and stopper.history[-1] < 0.01:  # error: XLA103
            print("converged")
        if step % save_every == 0:
            if average_loss.get_value() < best:  # error: XLA103
                best = 0.0
            if seen.average() < 8:  # trap
                print("small batches")
