"""Eval file for XLA101: a collate function handed through functools.partial.

``collate_fn=partial(pad_batch, pad_id=0)`` hands ``pad_batch`` to the DataLoader as
surely as ``collate_fn=pad_batch``: its ``pad_sequence`` pads each batch to its own
longest sequence.
"""
from functools import partial

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader


def pad_batch(batch, pad_id):
    ids = [torch.as_tensor(ex["input_ids"]) for ex in batch]
    return pad_sequence(ids, batch_first=True, padding_value=pad_id)  # error: XLA101


def train(model, ds, optimizer):
    device = torch_xla.device()
    loader = DataLoader(ds, batch_size=16, shuffle=True, drop_last=True,
                        collate_fn=partial(pad_batch, pad_id=0))
    for ids in pl.MpDeviceLoader(loader, device):
        model(ids).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
