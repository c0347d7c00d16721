"""Eval file for XLA505: a module-level ``_mp_fn`` is the entry point that transformers'
``xla_spawn.py`` imports and calls as ``_mp_fn(index)``; defined without a parameter,
every replica dies with a TypeError."""
import torch_xla  # noqa: F401
from transformers import Trainer, TrainingArguments


def main():
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=8,
                             dataloader_drop_last=True, optim="adamw_torch_xla",
                             dataloader_num_workers=4)
    Trainer(model=None, args=args).train()


def _mp_fn():  # error: XLA505
    main()
