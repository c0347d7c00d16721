"""Eval file for XLA101: pad_to_multiple_of bounds the lengths only when the multiple is
large; the 8 or 16 of GPU tensor cores leave one graph per multiple."""
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader
from transformers import DataCollatorForSeq2Seq, DataCollatorWithPadding


def loaders(tokenizer, model, train_ds, cfg):
    seq2seq = DataCollatorForSeq2Seq(  # error: XLA101
        tokenizer=tokenizer, model=model, label_pad_token_id=-100, pad_to_multiple_of=8,
        return_tensors="pt")
    sixteen = DataCollatorWithPadding(tokenizer, pad_to_multiple_of=16)  # error: XLA101
    # Trap: a multiple of 128. A multiple the run sets may be None (no bound at all).
    wide = DataCollatorWithPadding(tokenizer, pad_to_multiple_of=128)
    configured = DataCollatorWithPadding(tokenizer, pad_to_multiple_of=cfg.multiple)  # error: XLA101
    batches = tokenizer(cfg.texts, padding=True, pad_to_multiple_of=8,  # error: XLA101
                        return_tensors="pt")
    return [DataLoader(train_ds, batch_size=8, collate_fn=c, drop_last=True)
            for c in (seq2seq, sixteen, wide, configured)], batches


def fit(model, optimizer, tokenizer, train_ds, cfg):
    device = torch_xla.device()
    made, _ = loaders(tokenizer, model, train_ds, cfg)
    for loader in made:
        for batch in pl.MpDeviceLoader(loader, device):
            model(**batch).loss.backward()
            optimizer.step()
