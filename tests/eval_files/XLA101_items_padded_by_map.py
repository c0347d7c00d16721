"""Eval file for XLA101: a collator at padding=True pads nothing when every item of the
dataset was already padded to one length by the tokenize function handed to
``dataset.map(...)`` (``padding="max_length"`` with truncation). Where the mapped function
pads another way, the collator's padding decides each batch's length and is reported."""
import torch_xla.distributed.xla_multiprocessing as xmp
from datasets import load_dataset
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForSeq2Seq,
                          DataCollatorWithPadding, Trainer, TrainingArguments)


def fixed_items(index):
    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    dataset = load_dataset("json", data_files="train.jsonl")

    def tokenize(examples):
        out = tokenizer(examples["text"], truncation=True, max_length=384,
                        padding="max_length")
        out["labels"] = out["input_ids"].copy()
        return out

    data = dataset.map(tokenize, batched=True, remove_columns=["text"])
    args = TrainingArguments("out", optim="adamw_torch_xla", dataloader_drop_last=True)
    collator = DataCollatorForSeq2Seq(tokenizer, padding=True)  # trap: items are 384 long
    Trainer(model=AutoModelForCausalLM.from_pretrained("gpt2"), args=args,
            train_dataset=data["train"], data_collator=collator).train()


def truncated_only(index):
    tokenizer = AutoTokenizer.from_pretrained("gpt2")
    dataset = load_dataset("json", data_files="train.jsonl")

    def tokenize(examples):
        return tokenizer(examples["text"], truncation=True, max_length=384)

    data = dataset.map(tokenize, batched=True, remove_columns=["text"])
    args = TrainingArguments("out", optim="adamw_torch_xla", dataloader_drop_last=True)
    collator = DataCollatorWithPadding(tokenizer)  # error: XLA101
    Trainer(model=AutoModelForCausalLM.from_pretrained("gpt2"), args=args,
            train_dataset=data["train"], data_collator=collator).train()


if __name__ == "__main__":
    xmp.spawn(fixed_items)
