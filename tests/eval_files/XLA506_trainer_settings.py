"""Eval file for XLA506 (Trainer settings on XLA)."""
import torch_xla  # noqa: F401
from transformers import TrainingArguments


def make(kwargs):
    a = TrainingArguments("out", dataloader_drop_last=True)  # error: XLA506
    b = TrainingArguments("out", optim="adamw_torch_fused", dataloader_num_workers=4,  # error: XLA506
                          dataloader_drop_last=True)
    # Traps: the worker count alone (throughput advice, not an XLA hazard), an explicitly
    # chosen non-fused optimizer, everything set, **kwargs.
    c = TrainingArguments("out", optim="adamw_torch_xla", dataloader_num_workers=0,
                          dataloader_drop_last=True)
    g = TrainingArguments("out", optim="adamw_torch_xla", dataloader_drop_last=True)
    f = TrainingArguments("out", optim="adafactor", dataloader_num_workers=4,
                          dataloader_drop_last=True)
    d = TrainingArguments("out", optim="adamw_torch_xla", dataloader_num_workers=4,
                          dataloader_drop_last=True)
    e = TrainingArguments("out", **kwargs)
    return a, b, c, d, e, f, g
