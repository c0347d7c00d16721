"""Eval file for XLA101: a split padded in one call by each process of ``xmp.spawn``.

``prepare(tokenizer, "train")`` tokenizes the whole split with ``padding=True`` once per
process (the function ``xmp.spawn`` runs, directly or through a ``functools.partial`` of
a launcher helper): every row has one length. The per-batch call in the evaluation loop
pads each batch to its own longest text.
"""
import functools

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def prepare(tokenizer, texts):
    enc = tokenizer(texts, truncation=True, max_length=512, padding=True, return_tensors="pt")
    return TensorDataset(enc["input_ids"], enc["attention_mask"])


def train(index, tokenizer, texts, model):
    device = torch_xla.device()
    data = prepare(tokenizer, texts)
    sampler = DistributedSampler(data, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    loader = DataLoader(data, batch_size=16, sampler=sampler, drop_last=True)
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for ids, mask in pl.MpDeviceLoader(loader, device):
        model(ids, mask).sum().backward()
        xm.optimizer_step(opt)


def evaluate(index, tokenizer, texts, model):
    device = torch_xla.device()
    data = prepare(tokenizer, texts)
    model = model.to(device)
    for start in range(xr.global_ordinal() * 8, len(texts), xr.world_size() * 8):
        enc = tokenizer(texts[start:start + 8], padding=True,  # error: XLA101
                        return_tensors="pt").to(device)
        model(enc["input_ids"], enc["attention_mask"])
        torch_xla.sync()
    return data


def run_parallel(fn, tokenizer, texts, model):
    xmp.spawn(fn, args=(tokenizer, texts, model))


COMMANDS = {"train": functools.partial(run_parallel, train),
            "evaluate": functools.partial(run_parallel, evaluate)}
