"""Eval file for XLA509 (Trainer script without _mp_fn)."""
import torch_xla  # noqa: F401
from transformers import Trainer, TrainingArguments


def main(model, data):
    args = TrainingArguments("out", optim="adamw_torch_xla", dataloader_num_workers=2,
                             dataloader_drop_last=True)
    trainer = Trainer(model=model, args=args, train_dataset=data)  # error: XLA509
    trainer.train()


if __name__ == "__main__":
    main(None, None)
