"""Eval file for XLA201: batches of a loader that accelerate's ``prepare`` wraps are on
the device, whatever structure its collate function gives them."""
import torch
import torch_xla
from accelerate import Accelerator
from torch.utils.data import DataLoader


def collate(rows):
    return {"ids": torch.stack([r[0] for r in rows]), "labels": torch.stack([r[1] for r in rows])}


def train_step(model, batch, optimizer, accelerator):
    loss = torch.nn.functional.cross_entropy(model(batch["ids"]), batch["labels"])
    if not torch.isfinite(loss):  # error: XLA103
        return 0.0
    accelerator.backward(loss)
    optimizer.step()
    optimizer.zero_grad()
    torch_xla.sync()
    return loss.item()  # error: XLA201


def train(model, optimizer, dataset):
    accelerator = Accelerator()
    loader = DataLoader(dataset, batch_size=16, collate_fn=collate, drop_last=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        print(train_step(model, batch, optimizer, accelerator))
    # Trap: the loader before prepare yields host batches; its lengths are host values.
    raw = DataLoader(dataset, batch_size=16, collate_fn=collate, drop_last=True)
    sizes = [b["ids"].shape[0] for b in raw]
    return sizes
