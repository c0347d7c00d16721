"""Eval file for XLA201: the DETR-style MetricLogger whose ``update(**kwargs)`` calls
``.item()`` on every tensor it is handed, called each step with the step's losses
spread from a dict of unknown keys (``**reduce_dict(loss_dict)``, a comprehension over
the reduced tensors): those are lazy tensors, read one by one. Spread from a dict of
host floats, nothing is read."""
from collections import defaultdict

import torch
import torch.distributed as dist
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class SmoothedValue:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.count += n
        self.total += value * n


class MetricLogger:
    def __init__(self, delimiter="\t"):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()  # error: XLA201
            self.meters[k].update(v)


def reduce_dict(input_dict, average=True):
    world_size = dist.get_world_size()
    with torch.no_grad():
        names = sorted(input_dict.keys())
        values = torch.stack([input_dict[k] for k in names], dim=0)
        dist.all_reduce(values)
        if average:
            values /= world_size
        return {k: v for k, v in zip(names, values)}


def train(model, loader, optimizer):
    device = torch_xla.device()
    logger = MetricLogger(delimiter="  ")
    host_logger = MetricLogger()
    for x, y in pl.MpDeviceLoader(loader, device):
        out = model(x)
        loss_dict = {"l1": (out - y).abs().mean(), "l2": ((out - y) ** 2).mean()}
        loss = sum(loss_dict.values())
        optimizer.zero_grad()
        loss.backward()
        xm.optimizer_step(optimizer)
        logger.update(**reduce_dict(loss_dict))
        host_logger.update(**{k: 0.0 for k in loss_dict})
