"""XLA102: an option's default written as arithmetic of number literals
(``default=128 * 400``) is that number: 51,200 synthetic samples in batches of 128 are
all full, as are ``1000 + 24`` = 8 batches, while
``100 * 10`` samples leave a last batch of 104."""
import argparse

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset


class Synthetic(Dataset):
    def __init__(self, num_samples):
        self.num_samples = num_samples

    def __len__(self):
        return self.num_samples

    def __getitem__(self, idx):
        return torch.randn(3, 32, 32), idx % 10


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--num-samples", type=int, default=128 * 400)
    p.add_argument("--val-samples", type=int, default=1000 + 24)
    p.add_argument("--test-samples", type=int, default=100 * 10)
    p.add_argument("--eval-batch-size", type=int, default=-1)  # (-1: "not set", never folded)
    args = p.parse_args()
    device = torch_xla.device()
    model = torch.nn.Linear(3 * 32 * 32, 10).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train = DataLoader(Synthetic(args.num_samples), batch_size=args.batch_size, shuffle=True)
    val = DataLoader(Synthetic(args.val_samples), batch_size=args.batch_size)
    test = DataLoader(Synthetic(args.test_samples), batch_size=args.batch_size)  # error: XLA102
    extra = DataLoader(Synthetic(args.num_samples), batch_size=args.eval_batch_size)  # error: XLA102
    for x, y in pl.MpDeviceLoader(train, device):
        loss = torch.nn.functional.cross_entropy(model(x.flatten(1)), y)
        loss.backward()
        xm.optimizer_step(optimizer)
    for loader in (val, test, extra):
        for x, _ in pl.MpDeviceLoader(loader, device):
            model(x.flatten(1))
