"""Eval file for XLA101: ``padding=True`` over the whole dataset, in one call.

``train_encodings = tokenizer(train_texts, truncation=True, padding=True)`` (the Hugging
Face custom-dataset tutorial) pads every text to the longest one of the whole list: one
length for every row, so every batch sliced from it has one shape. It is reported where
the call runs per batch: in the step loop, in a function the loop calls, or in a
function handed to ``dataset.map`` or a DataLoader.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, TensorDataset
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
TEXTS = [line.strip() for line in open("train.txt")]
ENCODED = tokenizer(TEXTS, truncation=True, max_length=256, padding=True, return_tensors="pt")


def encode_split(texts):
    return tokenizer(texts, truncation=True, max_length=256, padding=True, return_tensors="pt")


def encode_batch(texts):
    return tokenizer(texts, truncation=True, max_length=256, padding=True,  # error: XLA101
                     return_tensors="pt")


def tokenize_rows(rows):
    return tokenizer(rows["text"], truncation=True, padding=True)  # error: XLA101


def main(valid_texts, dataset):
    device = torch_xla.device()
    model = torch.nn.Linear(256, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    valid = encode_split(valid_texts)
    mapped = dataset.map(tokenize_rows, batched=True)
    data = TensorDataset(ENCODED["input_ids"], ENCODED["attention_mask"])
    loader = pl.MpDeviceLoader(DataLoader(data, batch_size=32, drop_last=True), device)
    for ids, mask in loader:
        loss = model((ids * mask).float()).sum()
        loss.backward()
        xm.optimizer_step(opt)
    for start in range(0, len(valid_texts), 32):  # error: XLA301
        batch = encode_batch(valid_texts[start:start + 32]).to(device)
        model(batch["input_ids"].float())
    return valid, mapped


if __name__ == "__main__":
    main([], None)
