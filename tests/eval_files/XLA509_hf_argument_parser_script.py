"""Eval file for XLA509: a Trainer script whose arguments ``HfArgumentParser`` reads into
``TrainingArguments`` accepts the ``--tpu_num_cores`` that xla_spawn.py appends, so the
launcher can run it, and it needs a module-level ``_mp_fn(index)``."""
import argparse

import torch_xla  # noqa: F401
from transformers import HfArgumentParser, Trainer, TrainingArguments


def main():
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--model", default="bert-base-cased")
    parser = HfArgumentParser(TrainingArguments)
    (training_args,) = parser.parse_args_into_dataclasses()
    trainer = Trainer(model=None, args=training_args)  # error: XLA509
    trainer.train()


if __name__ == "__main__":
    main()
