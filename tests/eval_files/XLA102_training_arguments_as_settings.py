"""Eval file for XLA102: TrainingArguments that no Trainer gets.

``args = Seq2SeqTrainingArguments(...)`` whose settings the script reads for its own
DataLoaders (``batch_size=args.per_device_train_batch_size``, ``args.get_warmup_steps``)
builds no Trainer loader: its ``dataloader_drop_last`` is never used. Handed to a
Trainer, the same arguments are reported.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader
from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments


def finetune(model, train_data, collator):
    args = Seq2SeqTrainingArguments("out", learning_rate=7e-4, num_train_epochs=5,
                                    per_device_train_batch_size=1, warmup_ratio=0.06,
                                    optim="adafactor")
    device = torch_xla.device()
    loader = DataLoader(train_data, batch_size=args.per_device_train_batch_size,
                        collate_fn=collator, drop_last=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    warmup = args.get_warmup_steps(len(loader) * int(args.num_train_epochs))
    for _ in range(int(args.num_train_epochs)):
        for batch in pl.MpDeviceLoader(loader, device):
            model(**batch).loss.backward()
            xm.optimizer_step(opt)
    return warmup


def finetune_with_trainer(model, train_data, collator):
    args = Seq2SeqTrainingArguments("out", per_device_train_batch_size=8,  # error: XLA102
                                    optim="adafactor")
    trainer = Seq2SeqTrainer(model=model, args=args, train_dataset=train_data,
                             data_collator=collator)
    trainer.train()
