"""Eval file for XLA201: ``str(meter)`` / ``print(meter)`` in a step runs the object's
``__str__`` (or ``__repr__``), so a meter that formats the lazy loss it accumulated reads
it on the host every step. Reported where the text is built; a meter of host floats is
not."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class LazyMeter:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    def __str__(self):
        return f"loss {self.total / max(self.count, 1):.4f}"  # error: XLA201


class HostMeter:
    def __init__(self):
        self.values = []

    def add(self, value):
        self.values.append(value)

    def __repr__(self):
        return f"HostMeter({sum(self.values) / max(len(self.values), 1):.3f})"


class Plain:
    pass


def train(loader, log):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    meter, host, plain = LazyMeter(), HostMeter(), Plain()
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)
        meter.update(loss.detach(), x.size(0))
        host.add(x.size(0) * 1.0)
        log(str(meter))
        print(host, plain)  # trap: host floats; a class without __str__
