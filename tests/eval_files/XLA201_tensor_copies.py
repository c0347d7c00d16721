"""Eval file for XLA201: ``torch.tensor(t)`` is ``t.clone().detach()``, on the device of
``t``, so a helper that reads the copy reads a lazy tensor; inside ``if isinstance(x,
str):`` a name holds no tensor."""
import numpy as np
import torch
import torch_xla


def probability(x):
    if isinstance(x, str):
        x = np.fromstring(x[1:-1], dtype=np.float32, sep=",")  # trap: a string here
    x = torch.tensor(x).softmax(dim=0)
    return float(x[1:].sum())  # error: XLA201


def describe(x):
    if not isinstance(x, torch.Tensor):
        return f"value {x}"  # trap: not a tensor here
    return "tensor"


def evaluate(model, loader):
    device = torch_xla.device()
    model.to(device)
    scores = []
    for images, labels in loader:
        out = model(images.to(device))
        for row in out:
            scores.append(probability(row))
            print(describe(row))
        torch_xla.sync()
    return scores
