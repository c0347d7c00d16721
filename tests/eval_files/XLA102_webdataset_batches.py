"""Eval file for XLA102: batches a webdataset pipeline makes itself.

``DataLoader(ds.batched(bs), batch_size=None)``: webdataset's ``batched`` keeps each
worker's short final batch (``partial=True`` by default), a new shape at the end of
every shard stream; ``partial=False`` drops it.
"""
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import webdataset as wds
from torch.utils.data import DataLoader


def loaders(urls, batch_size):
    ds = wds.WebDataset(urls, shardshuffle=100).shuffle(1000).decode("pil").to_tuple("jpg", "cls")
    ragged = DataLoader(ds.batched(batch_size), batch_size=None, num_workers=4)  # error: XLA102
    whole = DataLoader(ds.batched(batch_size, partial=False), batch_size=None, num_workers=4)
    return ragged, whole


def evaluate(model, urls):
    device = torch_xla.device()
    outs = []
    for loader in loaders(urls, 64):
        for x, _ in pl.MpDeviceLoader(loader, device):
            outs.append(model(x))
    return outs
