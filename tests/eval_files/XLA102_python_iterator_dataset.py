"""Eval file for XLA102: a DataLoader over a Python iterator is not known to end ragged.

``DataLoader(map(tokenize, rows), batch_size=8)`` or over a generator expression: a
one-pass stream with no length (as an IterableDataset), whose last batch the loader
cannot know; over a list of the same rows it is reported.
"""
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


def train(model, opt, rows, tokenize, collate, bs):
    device = torch_xla.device()
    mapped = map(tokenize, rows)
    loaders = [
        DataLoader(mapped, batch_size=bs, collate_fn=collate),
        DataLoader((tokenize(r) for r in rows), batch_size=bs, collate_fn=collate),
        DataLoader([tokenize(r) for r in rows], batch_size=bs, collate_fn=collate),  # error: XLA102
    ]
    for loader in loaders:
        for batch in pl.MpDeviceLoader(loader, device):
            model(**batch).loss.backward()
            xm.optimizer_step(opt)
