"""Eval file for XLA201: a script that runs on TPU or GPU imports torch_xla's
``xla_model`` as ``xm`` under ``if cfg.xla:`` and defines a stand-in ``class xm`` under
``else:``. On the XLA path only the real module is bound, so a meter fed with Python
floats and averaged with ``xm.mesh_reduce`` (which returns host values) formats no
tensor; the per-step ``.item()`` that feeds it is the host sync, and the mesh_reduce
every 50 steps a rendezvous of the replicas."""
import torch
from torch import Tensor, nn

from config import cfg

if cfg.xla:
    import torch_xla
    import torch_xla.core.xla_model as xm
else:
    class xm:  # noqa: N801 - the stand-in keeps torch_xla's module name
        @staticmethod
        def xla_device():
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")

        @staticmethod
        def mesh_reduce(tag, data, reduce_fn):
            return reduce_fn([data])

        @staticmethod
        def master_print(*args):
            print(*args)


def mean_of(values):
    if isinstance(values, Tensor):
        return torch.mean(values)
    return sum(values) / len(values)


class Meter:
    def __init__(self, backend) -> None:
        self.backend = backend
        self.val = 0.0

    def update(self, val: float) -> None:
        self.val = val

    @property
    def current(self):
        return self.backend.mesh_reduce("meter_val", self.val, mean_of)  # error: XLA201


def train(model: nn.Module, loader, optimizer) -> None:
    device = xm.xla_device()
    model.to(device)
    meter = Meter(xm)
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        torch_xla.sync()
        meter.update(loss.item())  # error: XLA201
        if step % 50 == 0:
            xm.master_print(f"step {step} loss {meter.current:.4f}")  # trap: a host float
