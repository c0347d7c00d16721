"""Eval file for XLA201: ``torch.Tensor.item`` used as a function (called, or mapped over
losses) reads like ``.item()``; ``statistics.fmean``/``math.fsum`` convert every item
of what they are given, so over a ``deque(maxlen=...)`` or a ``list()`` the step fills
with lazy losses they read each one. Over host numbers they read nothing."""
import collections
import math
import statistics

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def train(model, loader, opt, loss_fn):
    device = torch_xla.device()
    recent = collections.deque(maxlen=20)
    parts = list()
    sizes = collections.deque(maxlen=20)
    for x, y in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        out = model(x)
        loss_a = loss_fn(out, y)
        loss_b = out.pow(2).mean()
        loss = loss_a + 0.1 * loss_b
        loss.backward()
        xm.optimizer_step(opt)
        recent.append(loss.detach())
        parts.append(loss_b.detach())
        sizes.append(len(x))
        history = list(map(torch.Tensor.item, (loss_a, loss_b)))  # error: XLA201
        first = torch.Tensor.item(loss_a)  # error: XLA201
        smooth = statistics.fmean(recent)  # error: XLA201
        total = math.fsum(parts)  # error: XLA201
        seen = statistics.mean(sizes)  # trap
        print(len(history), first, smooth, total, seen)
