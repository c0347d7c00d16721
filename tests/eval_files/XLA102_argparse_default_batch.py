"""Eval file for XLA102: a batch size taken from the command line is read at its
argparse default (the run as the script is configured): CIFAR-10's 10,000 test images
in batches of 200 leave no remainder, its 50,000 training images in batches of 128 do;
an option with no literal default stays any size. A string default is converted by the
option's ``type``, and sizes computed from defaults (``2 * args.half_bs``) are folded;
a number option whose default is None falls back through ``or`` to the next size."""
import argparse

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torchvision.datasets as dset
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--batch-size", "-b", type=int, default=128)
parser.add_argument("--test_bs", type=int, default=200)
parser.add_argument("--eval_bs", type=int)
parser.add_argument("--amp", action="store_true")
parser.add_argument("--val_bs", type=int, default="400")
parser.add_argument("--half_bs", type=int, default=250)
parser.add_argument("--test_bs_override", type=int, default=None, help="defaults to --test_bs")
parser.add_argument("--train_bs_override", type=int, default=None)
args = parser.parse_args()

train_data = dset.CIFAR10("~/data", train=True, download=True)
test_data = dset.CIFAR10("~/data", train=False, download=True)
train_loader = DataLoader(train_data, batch_size=args.batch_size, shuffle=True)  # error: XLA102
test_loader = DataLoader(test_data, batch_size=args.test_bs, shuffle=False)
eval_loader = DataLoader(test_data, batch_size=args.eval_bs, shuffle=False)  # error: XLA102
val_loader = DataLoader(test_data, batch_size=args.val_bs)
pair_loader = DataLoader(test_data, batch_size=2 * args.half_bs)
odd_loader = DataLoader(test_data, batch_size=args.half_bs + 3)  # error: XLA102
fallback_loader = DataLoader(test_data, batch_size=args.test_bs_override or args.test_bs)
train_fallback = DataLoader(train_data, batch_size=args.train_bs_override or args.batch_size)  # error: XLA102


def run(model, opt):
    device = torch_xla.device()
    for loader in (train_loader, test_loader, eval_loader, val_loader, pair_loader,
                   odd_loader, fallback_loader, train_fallback):
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            xm.optimizer_step(opt)
