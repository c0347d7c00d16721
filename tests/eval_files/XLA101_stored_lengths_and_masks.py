"""Eval file for XLA101: a collator class that pads each batch to the longest length its
items carry (``max(item["question_len"] for item in batch)``: a length the dataset stored
under a key named for one), building the ids and an attention mask by concatenating
filled tensors; the mask's ``torch.ones(len(ids))`` part is sized by the item, the
padding part by the batch's longest, so the batch leaves at that longest length. A
collator that pads to a fixed length, or reads a stored bound (``max_len``), is fine."""
from dataclasses import dataclass

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

MAX_LEN = 128


@dataclass
class PairCollator:
    pad_id: int

    def __call__(self, batch):
        batch = [item for item in batch if item is not None]
        longest = max(item["question_len"] for item in batch)  # error: XLA101
        ids, masks = [], []
        for item in batch:
            q = item["question_ids"]
            pad_len = longest - len(q)
            ids.append(torch.cat([torch.full((pad_len,), self.pad_id, dtype=q.dtype), q]))
            masks.append(torch.cat([torch.zeros(pad_len, dtype=torch.long),
                                    torch.ones(len(q), dtype=torch.long)]))
        return {"ids": torch.stack(ids), "mask": torch.stack(masks)}


@dataclass
class FixedCollator:
    pad_id: int

    def __call__(self, batch):
        ids, masks = [], []
        for item in batch:
            q = item["question_ids"][:MAX_LEN]
            pad_len = MAX_LEN - len(q)
            ids.append(torch.cat([q, torch.full((pad_len,), self.pad_id, dtype=q.dtype)]))
            masks.append(torch.cat([torch.ones(len(q), dtype=torch.long),
                                    torch.zeros(pad_len, dtype=torch.long)]))
        return {"ids": torch.stack(ids), "mask": torch.stack(masks)}


@dataclass
class BoundCollator:
    pad_id: int

    def __call__(self, batch):
        bound = max(item["max_len"] for item in batch)
        ids = [torch.cat([item["ids"], torch.full((bound - len(item["ids"]),), self.pad_id)])
               for item in batch]
        return {"ids": torch.stack(ids)}


def train(model, dataset):
    device = torch_xla.device()
    for collator in (PairCollator(0), FixedCollator(0), BoundCollator(0)):
        loader = DataLoader(dataset, batch_size=8, drop_last=True, collate_fn=collator)
        for batch in pl.MpDeviceLoader(loader, device):
            model(batch["ids"])
