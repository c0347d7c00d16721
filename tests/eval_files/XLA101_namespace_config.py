"""Eval file for XLA101: settings held by a ``types.SimpleNamespace`` (or an
``argparse.Namespace`` built by hand) are the keywords it was constructed with:
``padding=cfg.padding`` is dynamic padding when ``cfg.padding`` is "longest", fixed when
it is "max_length"."""
from types import SimpleNamespace

import torch
import torch_xla
import torch_xla.core.xla_model as xm
from transformers import AutoTokenizer

cfg = SimpleNamespace(padding="longest", max_length=256, batch_size=16)
fixed = SimpleNamespace(padding="max_length", max_length=256)


def train(model, optimizer, texts):
    tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    device = torch_xla.device()
    for i in range(0, len(texts) - cfg.batch_size + 1, cfg.batch_size):
        chunk = texts[i:i + cfg.batch_size]
        batch = tokenizer(chunk, padding=cfg.padding,  # error: XLA101
                          truncation=True, max_length=cfg.max_length, return_tensors="pt")
        loss = model(**batch.to(device)).loss
        loss.backward()
        xm.optimizer_step(optimizer)
        torch_xla.sync()
        again = tokenizer(chunk, padding=fixed.padding, truncation=True,
                          max_length=fixed.max_length, return_tensors="pt")
        model(**again.to(device))
        torch_xla.sync()
