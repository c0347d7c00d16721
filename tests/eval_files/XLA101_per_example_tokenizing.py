"""Eval file for XLA101: a dataset that tokenizes one example per ``__getitem__`` (also
through helpers only it calls) with ``padding="longest"`` pads nothing, and its collator
pads every example to a fixed length; a dataset that yields whole batches by slicing, and
a helper another step calls, are still reported."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset
from transformers import AutoTokenizer

MAX_LEN = 256
tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")


def tokenize_turns(turns, tok):
    return [tok(t, return_tensors="pt", padding="longest", max_length=MAX_LEN,  # trap: one example
                truncation=True).input_ids[0] for t in turns]


def preprocess(example, tok):
    return tokenize_turns(example["turns"], tok)


class ChatDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        ids = preprocess(self.rows[i], tokenizer)
        label = tokenizer(self.rows[i]["label"], padding="longest",  # trap: one example
                          return_tensors="pt").input_ids[0]
        return torch.cat(ids)[:MAX_LEN], label


def collate(items):
    ids = [F.pad(x, (0, MAX_LEN - x.shape[0])) for x, _ in items]
    return torch.stack(ids)


class BatchedDataset(Dataset):
    """Each item is a whole batch of 32 texts."""

    def __init__(self, texts):
        self.texts = texts

    def __len__(self):
        return len(self.texts) // 32

    def __getitem__(self, i):
        return tokenizer(self.texts[i * 32:(i + 1) * 32], padding="longest",  # error: XLA101
                         return_tensors="pt")


def encode_batch(texts):
    return tokenizer(texts, padding="longest", return_tensors="pt")  # error: XLA101


def train(model, rows, texts, optimizer):
    device = torch_xla.device()
    loader = DataLoader(ChatDataset(rows), batch_size=8, collate_fn=collate, drop_last=True)
    for ids in pl.MpDeviceLoader(loader, device):
        loss = model(ids).sum()
        loss.backward()
        optimizer.step()
    for batch in DataLoader(BatchedDataset(texts), batch_size=None):
        model(**{k: v.to(device) for k, v in batch.items()})
        torch_xla.sync()
    for chunk in texts:
        model(**{k: v.to(device) for k, v in encode_batch(chunk).items()})
        torch_xla.sync()
