"""Eval file for XLA101: DataCollatorForLanguageModeling pads every batch to its longest
item (``tokenizer.pad`` at its default). Over lines tokenized one by one without padding
each batch gets a new length; over blocks cut to one length (``group_texts``), over items
padded to ``max_length``, or with a ``pad_to_multiple_of`` of 64 or more, it does not."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForMaskedLM, AutoTokenizer, DataCollatorForLanguageModeling


def train(model, loader, steps):
    device = torch_xla.device()
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    for step, batch in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = model(**batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        if step == steps:
            break


def line_by_line(files, steps=100):
    tokenizer = AutoTokenizer.from_pretrained("roberta-base")
    raw = load_dataset("text", data_files=files)

    def tokenize_lines(examples):
        lines = [line for line in examples["text"] if line and not line.isspace()]
        return tokenizer(lines, truncation=True, max_length=512,
                         return_special_tokens_mask=True)

    data = raw.map(tokenize_lines, batched=True, remove_columns=["text"])
    collator = DataCollatorForLanguageModeling(tokenizer, mlm_probability=0.15)  # error: XLA101
    loader = DataLoader(data["train"], batch_size=32, shuffle=True, drop_last=True,
                        collate_fn=collator)
    train(AutoModelForMaskedLM.from_pretrained("roberta-base"), loader, steps)


def grouped_blocks(files, steps=100, block_size=512):
    tokenizer = AutoTokenizer.from_pretrained("roberta-base")
    raw = load_dataset("text", data_files=files)

    def tokenize(examples):
        return tokenizer(examples["text"], return_special_tokens_mask=True)

    def group_texts(examples):
        joined = {k: sum(examples[k], []) for k in examples}
        total = len(joined["input_ids"]) // block_size * block_size
        return {k: [t[i:i + block_size] for i in range(0, total, block_size)]
                for k, t in joined.items()}

    data = raw.map(tokenize, batched=True, remove_columns=["text"])
    data = data.map(group_texts, batched=True)
    collator = DataCollatorForLanguageModeling(tokenizer)  # trap: blocks of one length
    loader = DataLoader(data["train"], batch_size=32, shuffle=True, drop_last=True,
                        collate_fn=collator)
    train(AutoModelForMaskedLM.from_pretrained("roberta-base"), loader, steps)


def padded_lines(files, steps=100):
    tokenizer = AutoTokenizer.from_pretrained("roberta-base")
    raw = load_dataset("text", data_files=files)

    def tokenize_padded(examples):
        return tokenizer(examples["text"], truncation=True, max_length=128,
                         padding="max_length")

    data = raw.map(tokenize_padded, batched=True, remove_columns=["text"])
    collator = DataCollatorForLanguageModeling(tokenizer)  # trap: items are 128 long
    loader = DataLoader(data["train"], batch_size=32, drop_last=True, collate_fn=collator)
    train(AutoModelForMaskedLM.from_pretrained("roberta-base"), loader, steps)


def bounded_lines(files, steps=100):
    tokenizer = AutoTokenizer.from_pretrained("roberta-base")
    raw = load_dataset("text", data_files=files)

    def tokenize_bounded(examples):
        return tokenizer(examples["text"], truncation=True, max_length=512)

    data = raw.map(tokenize_bounded, batched=True, remove_columns=["text"])
    # trap: at most 4 lengths (128, 256, 384, 512)
    collator = DataCollatorForLanguageModeling(tokenizer, pad_to_multiple_of=128)
    loader = DataLoader(data["train"], batch_size=32, drop_last=True, collate_fn=collator)
    train(AutoModelForMaskedLM.from_pretrained("roberta-base"), loader, steps)
