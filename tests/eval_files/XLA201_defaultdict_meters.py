"""Eval file for XLA201: ``defaultdict(RunningMean)`` holds an instance of the class under
every key, so ``meters["loss"].update(loss)`` runs its ``update``, whose ``.item()`` of a
lazy loss is a host sync per step; a meter whose update keeps the tensor on the device is
fine, and a defaultdict of another factory stays unknown. A loop over the meters of the
dict, each syncing its totals (a barrier, then a read), runs once per epoch: one
iteration per meter, not per step."""
from collections import defaultdict

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        if torch.is_tensor(value):
            value = value.detach().item()  # error: XLA201
        self.total += value * n
        self.count += n


class SyncedMean(RunningMean):
    def synchronize(self):
        t = torch.tensor([self.count, self.total]).to(torch_xla.device())
        torch_xla.sync()
        t = xm.all_reduce(xm.REDUCE_SUM, t)
        self.count, self.total = t.tolist()


class DeviceMean:
    def __init__(self):
        self.total = None

    def update(self, value):
        self.total = value.detach() if self.total is None else self.total + value.detach()


def train(model, optimizer, loader):
    device = torch_xla.device()
    meters = defaultdict(RunningMean)
    sums = defaultdict(DeviceMean)
    lists = defaultdict(list)
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)
        meters["loss"].update(loss, x.size(0))
        sums["loss"].update(loss)
        lists["loss"].append(loss.detach())
    synced = defaultdict(SyncedMean)
    for meter in synced.values():
        meter.synchronize()
    return {k: m.total / max(m.count, 1) for k, m in meters.items()}
