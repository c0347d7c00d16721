"""Eval file for XLA103: a branch on the size of a lazy tensor whose shape depends on its
values (``len(torch.where(row == eos)[0])``, ``nonzero().numel()``, ``.shape[0]``) needs
the graph that computes it to run first; the size of a tensor of static shape is known
on the host."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def train(model, loader, optimizer, eos):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out, y)
        loss.backward()
        optimizer.step()
        ids = out.argmax(-1)
        eos_idx = torch.where(ids == eos)[0]  # error: XLA104
        if len(eos_idx) > 0:  # error: XLA103
            loss = loss * 2
        hits = (ids == eos).nonzero()  # error: XLA104
        if hits.numel():  # error: XLA103
            loss = loss + 1
        if hits.shape[0] > 3:  # error: XLA103
            loss = loss - 1
        # Traps: sizes of static shapes.
        if len(ids) > 0 and ids.shape[0] > 1 and out.numel():
            loss = loss / 2
        torch_xla.sync()
