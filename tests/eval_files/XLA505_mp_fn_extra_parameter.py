"""Eval file for XLA505: transformers' xla_spawn.py calls ``_mp_fn(index)`` only, so a
module-level ``_mp_fn`` with a second required parameter fails with a TypeError in every
process (one with a default for it is fine)."""
import sys

import torch_xla  # noqa: F401
from transformers import Trainer, TrainingArguments


def main(argv):
    args = TrainingArguments(output_dir=argv[0], dataloader_drop_last=True,
                             optim="adamw_torch_xla", dataloader_num_workers=4)
    Trainer(model=None, args=args).train()


def _mp_fn(index, argv):  # error: XLA505
    main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
