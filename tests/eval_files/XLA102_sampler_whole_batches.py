"""Eval file for XLA102: a sampler that draws a whole number of batches.

``RandomSampler(ds, num_samples=eval_batches * batch_size)`` with the loader's own
batch-size expression as a factor yields only whole batches, whatever the sizes are.
A count that is not such a product (``num_samples=len(ds) // 2``) may leave a ragged
last batch.
"""
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, RandomSampler


def evaluate(model, ds, cfg):
    device = torch_xla.device()
    sampler = RandomSampler(ds, replacement=True, num_samples=cfg.eval_batches * cfg.batch_size)
    loader = DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler)
    half = RandomSampler(ds, num_samples=len(ds) // 2)
    probe = DataLoader(ds, batch_size=cfg.batch_size, sampler=half)  # error: XLA102
    outs = []
    for x, _ in pl.MpDeviceLoader(loader, device):
        outs.append(model(x))
    for x, _ in pl.MpDeviceLoader(probe, device):
        outs.append(model(x))
    return outs
