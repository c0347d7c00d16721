"""Eval file for XLA201: a loss summed over a batch's items in a loop and then scaled
(``loss = 0.0``, ``loss += ...``, ``loss /= n``) is still a lazy tensor."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


@torch.no_grad()
def evaluate(model, loader):
    device = torch_xla.device()
    total = count = 0.0
    for x, lengths in pl.MpDeviceLoader(loader, device):
        out = model(x)
        loss_dur = 0.0
        for row, n in zip(out, lengths):
            loss_dur += (row[:1] - n).abs().mean()
        loss_dur /= x.size(0)
        total += float(loss_dur)  # error: XLA201
        # Trap: a host counter scaled the same way stays on the host.
        seen = 0
        for _ in range(4):
            seen += 1
        seen /= 2
        count += float(seen)
    return total / count
