"""Eval file for XLA505: ``_mp_fn = main``, a name for a function without the index.

transformers' ``xla_spawn.py`` imports the script and calls ``_mp_fn(index)`` in every
process: bound to ``main()``, which takes no parameter, every replica dies with "main()
takes 0 positional arguments but 1 was given". Reported at the assignment.
"""
import torch_xla  # noqa: F401
from transformers import Trainer, TrainingArguments


def main():
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=8,
                             dataloader_drop_last=True, optim="adamw_torch_xla",
                             dataloader_num_workers=4)
    Trainer(model=None, args=args).train()


_mp_fn = main  # error: XLA505

if __name__ == "__main__":
    main()
