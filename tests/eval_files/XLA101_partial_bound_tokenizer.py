"""Eval file for XLA101: ``collate_fn=partial(collate, tokenizer=tokenizer)`` binds the
tokenizer into the collate function that the DataLoader runs, so ``tokenizer.pad(...)``
there is a tokenizer's pad at its default padding=True (the batch's longest item); a
collate whose partial binds a fixed length pads to it."""
from functools import partial

import torch
import torch_xla
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader
from transformers import AutoTokenizer


def collate(features, tokenizer):
    return tokenizer.pad(features, return_tensors="pt")  # error: XLA101


def collate_fixed(features, tokenizer, length):
    return tokenizer.pad(features, padding="max_length", max_length=length,
                         return_tensors="pt")


def train(model, optimizer, dataset):
    device = torch_xla.device()
    tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    for collate_fn in (partial(collate, tokenizer=tokenizer),
                       partial(collate_fixed, tokenizer=tokenizer, length=256)):
        loader = DataLoader(dataset, batch_size=16, drop_last=True, collate_fn=collate_fn)
        for batch in loader:  # error: XLA302
            loss = model(**batch.to(device)).loss
            loss.backward()
            xm.optimizer_step(optimizer)
            torch_xla.sync()
