"""Eval file for XLA102 (ragged last batch)."""
import argparse

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader
from transformers import TrainingArguments

device = torch_xla.device()
COMMON = dict(num_workers=4, pin_memory=True)
DROPPING = {"drop_last": True, "num_workers": 4}


def train(model, dataset, optimizer, sampler, flags):
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)  # error: XLA102
    for x in pl.MpDeviceLoader(loader, device):
        model(x).backward()
        optimizer.step()
    eval_loader = DataLoader(dataset, batch_size=64, drop_last=False)  # error: XLA102
    for x in pl.MpDeviceLoader(eval_loader, device):
        model(x)
    # Traps: drop_last set, a flag we cannot know, batch size 1, not on the XLA path.
    ok = DataLoader(dataset, batch_size=32, drop_last=True)
    for x in pl.MpDeviceLoader(ok, device):
        model(x)
    flag = DataLoader(dataset, batch_size=32, drop_last=flags.drop_last)  # error: XLA902
    for x in pl.MpDeviceLoader(flag, device):
        model(x)
    common = DataLoader(dataset, batch_size=32, **COMMON)  # error: XLA102
    for x in pl.MpDeviceLoader(common, device):
        model(x)
    dropping = DataLoader(dataset, batch_size=32, **DROPPING)
    for x in pl.MpDeviceLoader(dropping, device):
        model(x)
    single = DataLoader(dataset)
    for x in pl.MpDeviceLoader(single, device):
        model(x)
    cpu_only = DataLoader(dataset, batch_size=32)
    return [len(b) for b in cpu_only]


def hf_args():
    a = TrainingArguments("out", optim="adamw_torch_xla", dataloader_num_workers=4)  # error: XLA102
    b = TrainingArguments("out", optim="adamw_torch_xla", dataloader_num_workers=4,
                          dataloader_drop_last=True)
    return a, b


def from_the_command_line(dataset):
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=1)
    parser.add_argument("--eval-batch-size", type=int, default=16)
    parser.add_argument("--micro", dest="micro_batch", default=1)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 2).to(device)
    # Trap: the option's default is one sample per batch.
    single = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    for x in pl.MpDeviceLoader(single, device):
        model(x)
    micro = DataLoader(dataset, batch_size=args.micro_batch)
    for x in pl.MpDeviceLoader(micro, device):
        model(x)
    # A larger default may leave a remainder.
    evaluation = DataLoader(dataset, batch_size=args.eval_batch_size)  # error: XLA102
    for x in pl.MpDeviceLoader(evaluation, device):
        model(x)
