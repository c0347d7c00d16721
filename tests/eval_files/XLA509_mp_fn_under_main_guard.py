"""Eval file for XLA509: a Trainer script whose ``_mp_fn`` is defined only inside ``if
__name__ == "__main__":`` has none when xla_spawn.py imports it (the block does not run
on import), so every process fails with an AttributeError."""
import torch_xla  # noqa: F401
from transformers import Trainer, TrainingArguments


def main():
    args = TrainingArguments(output_dir="out", dataloader_drop_last=True,
                             optim="adamw_torch_xla", dataloader_num_workers=4)
    trainer = Trainer(model=None, args=args)  # error: XLA509
    trainer.train()


if __name__ == "__main__":
    def _mp_fn(index):
        main()

    main()
