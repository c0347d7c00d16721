"""Eval file for XLA506 and XLA102: ``TrainingArguments(..., **SETTINGS)`` with a dict of
known settings is read like keywords written out; a dict that may hold anything (a
parameter, a parsed config) is not."""
import torch_xla  # noqa: F401
from transformers import TrainingArguments

TRAIN_KW = dict(per_device_train_batch_size=8, learning_rate=5e-5, bf16=True)
TPU_KW = {"optim": "adamw_torch_xla", "dataloader_drop_last": True,
          "dataloader_num_workers": 4}


def make(config):
    a = TrainingArguments(output_dir="out", **TRAIN_KW)  # error: XLA102, XLA506
    b = TrainingArguments(output_dir="out", **TRAIN_KW, **TPU_KW)
    c = TrainingArguments(output_dir="out", **config)  # trap: unknown settings
    return a, b, c
