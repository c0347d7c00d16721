"""Eval file for XLA101: a collate function that pads by hand to the longest sequence of
its batch, against one that pads to a fixed length."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

PAD = 0
MAX_LEN = 128


def collate(batch):
    max_len = max(len(ids) for ids, _ in batch)
    out = torch.full((len(batch), max_len), PAD, dtype=torch.long)  # error: XLA101
    for i, (ids, _) in enumerate(batch):
        out[i, : len(ids)] = torch.tensor(ids)
    return out, torch.tensor([y for _, y in batch])


def collate_masks(batch):
    masks = torch.zeros(len(batch), max([len(ids) for ids, _ in batch]))  # error: XLA101
    return masks


def collate_fixed(batch):
    # Trap: a fixed length; the longest item is only checked against it.
    assert max(len(ids) for ids, _ in batch) <= MAX_LEN
    out = torch.full((len(batch), MAX_LEN), PAD, dtype=torch.long)
    for i, (ids, _) in enumerate(batch):
        out[i, : len(ids)] = torch.tensor(ids)
    return out


def fit(model, optimizer, data):
    device = torch_xla.device()
    for fn in (collate, collate_masks, collate_fixed):
        loader = DataLoader(data, batch_size=32, collate_fn=fn, drop_last=True)
        for x, y in pl.MpDeviceLoader(loader, device):
            model(x).sum().backward()
            optimizer.step()
