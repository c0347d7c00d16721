"""Eval file for XLA201: copies out of results that a barrier has already computed.

``torch_xla.sync()`` (or one under ``if device.type == "xla":``) executes the step's
graph: a ``.cpu()`` of a name computed before it copies a result and runs no graph. A
value computed after the barrier (``pooled.mean(0).cpu()``, or a name rebound after
it) is still pending, and ``xm.wait_device_ops()`` runs nothing pending.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


@torch.no_grad()
def embed(model, loader, device):
    out = []
    for batch in pl.MpDeviceLoader(loader, device):
        pooled = model(batch).mean(1)
        if device.type == "xla":
            torch_xla.sync()
        out.append(pooled.cpu().numpy())
        scores = pooled.norm(dim=-1)
        torch_xla.sync()
        out.append(scores.detach().cpu())
        out.append(pooled.mean(0).cpu())  # error: XLA201
        pooled = pooled * 2
        out.append(pooled.cpu())  # error: XLA201
        pooled = pooled + 1
        xm.wait_device_ops()
        out.append(pooled.cpu())  # error: XLA201
    return out


def main(model, loader):
    device = torch_xla.device()
    return embed(model.to(device), loader, device)
