"""Eval file for XLA201: casts of a lazy tensor to a legacy CPU tensor type.

``t.type(torch.FloatTensor)`` names a CPU tensor type, so the cast copies the lazy tensor
to the host (and ``.to(device)`` after it copies it back). ``t.type(torch.float32)``
(a dtype) and ``t.type()`` (the type's name) stay on the device.
"""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def train(model, loader, optimizer):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        out = model(x)
        hits = out.argmax(-1).eq(y).type(torch.FloatTensor).to(device)  # error: XLA201
        weights = y.type(torch.float32)
        name = out.type()
        loss = torch.nn.functional.cross_entropy(out, y, reduction="none")
        loss = (loss * hits * weights).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        torch_xla.sync()
        del name
