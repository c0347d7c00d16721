"""XLA509 fixed: the Trainer script defines _mp_fn(index).

The module-level ``_mp_fn(index)`` is what the transformers TPU launcher
(``python xla_spawn.py --num_cores 8 this_script.py``) imports and calls in every
process; run directly, the ``__main__`` block calls ``main()`` as before.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch_xla.core.xla_model as xm
from transformers import Trainer, TrainingArguments

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 8
SEQ_LEN = 16
VOCAB = 100


class TextClassifier(nn.Module):
    def __init__(self, dim=32, num_labels=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.head = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        logits = self.head(self.embed(input_ids).mean(dim=1))
        if labels is None:
            return {"logits": logits}
        return {"loss": nn.functional.cross_entropy(logits, labels), "logits": logits}


def make_dataset(n):
    gen = torch.Generator().manual_seed(0)
    input_ids = torch.randint(1, VOCAB, (n, SEQ_LEN), generator=gen)
    labels = torch.randint(0, 2, (n,), generator=gen)
    return [{"input_ids": input_ids[i], "labels": labels[i]} for i in range(n)]


def main():
    torch.manual_seed(0)
    model = TextClassifier()
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=BATCH_SIZE,
            max_steps=STEPS,
            dataloader_drop_last=True,
            dataloader_num_workers=2,
            optim="adamw_torch_xla",
            logging_steps=STEPS,
            save_strategy="no",
            report_to="none",
        )
        trainer = Trainer(model=model, args=args, train_dataset=make_dataset(STEPS * BATCH_SIZE))
        result = trainer.train()
    optimizer = trainer.optimizer.optimizer
    xm.master_print(f"XLA509 fixed: {result.global_step} steps on {args.device}, optimizer "
                    f"{type(optimizer).__module__}.{type(optimizer).__name__}, train loss {result.training_loss:.4f}")


def _mp_fn(index):
    # For xla_spawn (TPUs)
    main()


if __name__ == "__main__":
    main()
