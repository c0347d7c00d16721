"""Eval file for XLA201: torch_xla spelled through another torch_xla module's attribute
(``xm.torch_xla.device()``, ``xm.torch_xla.sync()``: xla_model imports torch_xla) is
torch_xla itself; reads of the forward's outputs in the batch loop are host syncs."""
import numpy as np
import torch
import torch_xla.core.xla_model as xm


def run_batch(model, tokenizer, texts, device):
    inputs = tokenizer(texts, return_tensors="pt", padding="max_length", max_length=128)
    inputs = {k: v.to(device) for k, v in inputs.items()}
    with torch.no_grad():
        logits = model(**inputs).logits
        probs = logits.softmax(-1).cpu().numpy()  # error: XLA201
    xm.torch_xla.sync()
    return probs


def main(model, tokenizer, rows):
    device = xm.torch_xla.device()
    model = model.to(device)
    out = []
    for start in range(0, len(rows), 64):
        out.append(run_batch(model, tokenizer, rows[start:start + 64], device))
    return np.concatenate(out)
