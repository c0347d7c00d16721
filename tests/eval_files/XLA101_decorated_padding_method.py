"""Eval file for XLA101: a private padding method with a decorator (``@torch.no_grad()``)
that every caller hands the batch's longest length."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


class Collator:
    @torch.no_grad()
    def _pad(self, seqs, length):
        out = torch.zeros(len(seqs), length, dtype=torch.long)
        for i, s in enumerate(seqs):
            out[i, : len(s)] = torch.tensor(s)
        return out

    def __call__(self, batch):
        ids = [b["ids"] for b in batch]
        return self._pad(ids, max(len(x) for x in ids))  # error: XLA101


def train(model, dataset, optimizer):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=8, collate_fn=Collator(), drop_last=True)
    for ids in pl.MpDeviceLoader(loader, device):
        model(ids).sum().backward()
        optimizer.step()
