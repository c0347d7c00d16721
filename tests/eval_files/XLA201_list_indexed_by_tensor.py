"""Eval file for XLA201: a Python list (or tuple) indexed by a 0-d lazy tensor takes the
tensor's ``__index__``, a read of its value each step; indexing by a Python int, a dict
keyed by the tensor object, and a tensor indexed by a tensor stay on the device."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm

CLASSES = ("cat", "dog", "bird")


def train(model, loader, opt, names):
    device = torch_xla.device()
    labels = ["neg", "pos"]
    seen = {}
    for step, (x, y) in enumerate(loader):
        logits = model(x.to(device))
        loss = torch.nn.functional.cross_entropy(logits, y.to(device))
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        pred = logits[0].argmax()
        name = labels[pred]  # error: XLA201
        kind = CLASSES[logits[1].argmax()]  # error: XLA201
        first = labels[step % 2]
        seen[pred] = step
        top = logits[pred]
        del name, kind, first, top
