"""Eval file for XLA101: a collate function that finds the batch's longest item with
``max(batch, key=...)`` and sizes the batch tensors by it (``.size(0)``, ``len(...)``,
``.shape[0]``) pads each batch to its own longest item (reported where the longest is
taken). Trap: the longest item found only to log it, with a fixed padded size."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

MAX_FRAMES = 1600


def collate(batch, pad_id=0):
    longest = max(batch, key=lambda s: s[0].size(0))[0]  # error: XLA101
    longest_target = max(batch, key=lambda s: len(s[1]))[1]  # error: XLA101
    feats = torch.zeros(len(batch), longest.size(0), longest.size(1))
    targets = torch.full((len(batch), len(longest_target)), pad_id, dtype=torch.long)
    for i, (x, y) in enumerate(batch):
        feats[i, :x.size(0)] = x
        targets[i, :len(y)] = torch.as_tensor(y)
    return feats, targets


def collate_fixed(batch, pad_id=0):
    longest = max(batch, key=lambda s: s[0].size(0))[0]  # trap: only logged
    print("longest utterance", longest.size(0))
    feats = torch.zeros(len(batch), MAX_FRAMES, batch[0][0].size(1))
    for i, (x, _) in enumerate(batch):
        feats[i, :x.size(0)] = x[:MAX_FRAMES]
    return feats


def train(model, dataset, optimizer):
    device = torch_xla.device()
    for fn in (collate, collate_fixed):
        loader = DataLoader(dataset, batch_size=16, drop_last=True, collate_fn=fn)
        for batch in pl.MpDeviceLoader(loader, device):
            model(batch).sum().backward()
            optimizer.step()
