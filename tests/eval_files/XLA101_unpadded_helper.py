"""Eval file for XLA101: inputs tokenized one by one in a helper that the generation loop
calls per input, and moved to the device there."""
import torch
import torch_xla


def summarize(text, model, tokenizer, device):
    inputs = tokenizer(text, return_tensors="pt", truncation=True, max_length=512)  # error: XLA101
    inputs = {k: v.to(device) for k, v in inputs.items()}
    with torch.no_grad():
        ids = model.generate(inputs["input_ids"], max_length=128, do_sample=False)  # error: XLA103
    return tokenizer.decode(ids[0])


def score(text, tokenizer):
    # Trap: tokenized per input, but kept on the host (a length statistic).
    ids = tokenizer(text, return_tensors="pt")["input_ids"]
    return ids.shape[1]


def run(texts, model, tokenizer):
    device = torch_xla.device()
    model.to(device)
    out = []
    for text in texts:
        out.append((summarize(text, model, tokenizer, device), score(text, tokenizer)))
    return out
