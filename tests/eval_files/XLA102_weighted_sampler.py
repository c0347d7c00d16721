"""Eval file for XLA102: torch's WeightedRandomSampler and SubsetRandomSampler are
samplers; ``num_samples`` (by keyword, or the second positional argument of
WeightedRandomSampler) fixes the epoch's length. A multiple of the loader's batch size,
or a constant the batch size divides, gives whole batches only; another count leaves a
smaller last batch."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, SubsetRandomSampler, WeightedRandomSampler


class CFG:
    batch_size = 64
    steps_per_epoch = 400


def train(model, optimizer, dataset, weights, train_idx):
    device = torch_xla.device()
    balanced = WeightedRandomSampler(weights, num_samples=CFG.steps_per_epoch * CFG.batch_size)
    by_position = WeightedRandomSampler(weights, 6400, replacement=True)
    odd = WeightedRandomSampler(weights, 1000)
    subset = SubsetRandomSampler(train_idx)
    loaders = [
        DataLoader(dataset, batch_size=CFG.batch_size, sampler=balanced),  # trap: whole batches
        DataLoader(dataset, batch_size=64, sampler=by_position),  # trap: 6400 = 100 * 64
        DataLoader(dataset, batch_size=64, sampler=odd),  # error: XLA102
        DataLoader(dataset, batch_size=64, sampler=subset),  # error: XLA102
    ]
    for loader in loaders:
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
