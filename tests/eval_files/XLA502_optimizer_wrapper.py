"""Eval file for XLA502: a project class that holds torch optimizers by name and steps
them (``optimizer.step("decoder")``) in multi-replica training is a bare optimizer step;
one that all-reduces the gradients first is not."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
from torch.optim import AdamW


class MultiOptimizer:
    def __init__(self, optimizers):
        self.optimizers = optimizers
        self.keys = list(optimizers.keys())

    def step(self, key=None, scaler=None):
        keys = [key] if key is not None else self.keys
        _ = [self._step(k, scaler) for k in keys]

    def _step(self, key, scaler=None):
        if scaler is not None:
            scaler.step(self.optimizers[key])
            scaler.update()
        else:
            self.optimizers[key].step()

    def zero_grad(self):
        _ = [self.optimizers[k].zero_grad() for k in self.keys]


class ReducingOptimizer:
    def __init__(self, optimizers):
        self.optimizers = optimizers

    def step(self, key):
        xm.reduce_gradients(self.optimizers[key])
        self.optimizers[key].step()


def build(modules, lr):
    optim = dict([(name, AdamW(m.parameters(), lr=lr)) for name, m in modules.items()])
    return MultiOptimizer(optim)


def _mp_fn(index, modules, data):
    device = torch_xla.device()
    for m in modules.values():
        m.to(device)
    optimizer = build(modules, 1e-4)
    reducing = ReducingOptimizer({"decoder": AdamW(modules["decoder"].parameters())})
    for x in pl.MpDeviceLoader(data, device):
        optimizer.zero_grad()
        modules["decoder"](modules["encoder"](x)).mean().backward()
        optimizer.step("encoder")  # error: XLA502
        optimizer.step("decoder")  # error: XLA502
        reducing.step("decoder")


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=({}, None))
