"""Eval file for XLA101: a collate function that stacks rows padded to a fixed length and
then cuts them to the batch's longest real length (``int(mask.sum(dim=1).max())``) pads
dynamically after all: one graph per length. Cutting to a fixed length does not."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader

MAX_LEN = 256


class TrimCollator:
    def __call__(self, samples):
        input_ids = torch.stack([s["input_ids"] for s in samples])
        attention_mask = torch.stack([s["attention_mask"] for s in samples])
        batch_max = int(attention_mask.sum(dim=1).max())  # error: XLA101
        return {"input_ids": input_ids[:, :batch_max],
                "attention_mask": attention_mask[:, :batch_max]}


def fixed_collate(samples):
    input_ids = torch.stack([s["input_ids"] for s in samples])
    attention_mask = torch.stack([s["attention_mask"] for s in samples])
    return {"input_ids": input_ids[:, :MAX_LEN], "attention_mask": attention_mask[:, :MAX_LEN]}


def train(model, optimizer, dataset):
    device = torch_xla.device()
    for collate in (TrimCollator(), fixed_collate):
        for batch in DataLoader(dataset, batch_size=16, drop_last=True, collate_fn=collate):  # error: XLA302
            loss = model(**{k: v.to(device) for k, v in batch.items()}).loss
            loss.backward()
            xm.optimizer_step(optimizer, barrier=True)
