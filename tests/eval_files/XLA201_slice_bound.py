"""Eval file for XLA201: a host value (a tensor already copied with ``.cpu()``) sliced
with a lazy tensor as a bound (``values[ix, start:ends[ix]]``) reads each bound on the
host, once per slice. A lazy tensor sliced so is a dynamic shape (XLA104's finding), and
a bound that is a Python int reads nothing."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def rollouts(model, loader, optimizer, start):
    device = torch_xla.device()
    for ids, mask in pl.MpDeviceLoader(loader, device):
        values = model(ids)
        ends = start + mask[:, start:].sum(1) + 1
        host_values = values.detach().cpu()  # error: XLA201
        kept = [host_values[ix, start:ends[ix]] for ix in range(ids.shape[0])]  # error: XLA201
        fixed = [host_values[ix, start:start + 8] for ix in range(ids.shape[0])]
        loss = values.mean() + sum(k.sum() for k in kept) * 0 + len(fixed) * 0
        loss.backward()
        xm.optimizer_step(optimizer)
