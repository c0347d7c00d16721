"""Eval file for XLA102: a dataset cut to a multiple of the batch size (``x[:len(x) //
bs * bs]``, or a Dataset class whose ``__init__`` cuts its rows so when told to) has no
ragged last batch; cut to a multiple of another number, or built with the cut off, it
still has one."""
import argparse

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, Dataset, DistributedSampler, RandomSampler, TensorDataset

BATCH = 16
parser = argparse.ArgumentParser()
parser.add_argument("--batch_size", type=int, default=32)
args = parser.parse_args()


class Lines(Dataset):
    def __init__(self, rows, batch_size, trim):
        self.rows = list(rows)
        if trim:
            mult = 2 * batch_size
            keep = len(self.rows) // mult * mult
            self.rows = self.rows[:keep]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return torch.tensor(self.rows[i])


def fit(model, opt, loader):
    device = torch_xla.device()
    for x in pl.MpDeviceLoader(loader, device):
        loss = model(x).sum()
        loss.backward()
        xm.optimizer_step(opt)


def train(model, opt, x, y, rows):
    n = len(x) // BATCH * BATCH
    fit(model, opt, DataLoader(TensorDataset(x[:n], y[:n]), batch_size=BATCH, shuffle=True))  # trap
    m = len(x) - len(x) % 10
    fit(model, opt, DataLoader(TensorDataset(x[:m], y[:m]), batch_size=BATCH))  # error: XLA102
    fit(model, opt, DataLoader(Lines(rows, BATCH, trim=True), batch_size=BATCH))  # trap
    fit(model, opt, DataLoader(Lines(rows, BATCH, trim=False), batch_size=BATCH))  # error: XLA102


class Blocks(Dataset):
    def __init__(self, blocks, world):
        self.examples = list(blocks)
        mult = 8 * args.batch_size * world
        self.examples = self.examples[:len(self.examples) // mult * mult]

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return torch.tensor(self.examples[i])


def train_replicas(model, opt, blocks):
    world = xr.world_size()
    dataset = Blocks(blocks, world)
    sampler = RandomSampler(dataset)
    if world > 1:
        sampler = DistributedSampler(dataset, num_replicas=world, rank=xr.global_ordinal())
    fit(model, opt, DataLoader(dataset, sampler=sampler, batch_size=args.batch_size))  # trap
    untrimmed = Lines(blocks, BATCH, trim=False)
    fit(model, opt, DataLoader(untrimmed, sampler=sampler, batch_size=args.batch_size))  # error: XLA102


