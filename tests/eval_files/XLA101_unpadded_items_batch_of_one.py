"""Eval file for XLA101: a dataset whose ``__getitem__`` tokenizes one text without
padding, loaded one item per batch (``batch_size=1`` with gradient accumulation, the
default collate), gives every step the length of its own text. Traps: items padded to
max_length, and a loader whose collate function decides the batch's length."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")


class Documents(Dataset):
    def __init__(self, texts, labels):
        self.texts, self.labels = texts, labels

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        enc = tokenizer(self.texts[i], truncation=True, max_length=2048,  # error: XLA101
                        return_tensors="pt")
        return enc["input_ids"][0], torch.tensor(self.labels[i])


class PaddedDocuments(Documents):
    def __getitem__(self, i):
        enc = tokenizer(self.texts[i], truncation=True, max_length=512,  # trap: fixed
                        padding="max_length", return_tensors="pt")
        return enc["input_ids"][0], torch.tensor(self.labels[i])


def pad_to_512(items):
    ids = torch.zeros(len(items), 512, dtype=torch.long)
    for row, (item, _) in enumerate(items):
        ids[row, :len(item)] = item[:512]
    return ids, torch.stack([label for _, label in items])


def train(model, optimizer, texts, labels, accum=16):
    device = torch_xla.device()
    loaders = [
        DataLoader(Documents(texts, labels), batch_size=1, shuffle=True),
        DataLoader(PaddedDocuments(texts, labels), batch_size=1),
        DataLoader(Documents(texts, labels), batch_size=1, collate_fn=pad_to_512),
    ]
    for loader in loaders:
        for step, (ids, label) in enumerate(pl.MpDeviceLoader(loader, device)):
            loss = torch.nn.functional.cross_entropy(model(ids), label) / accum
            loss.backward()
            if (step + 1) % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
