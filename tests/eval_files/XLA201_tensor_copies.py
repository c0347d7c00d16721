"""Eval file for XLA201: ``torch.tensor(t)`` is ``t.clone().detach()``, on the device of
``t``, so a helper that reads the copy reads a lazy tensor; inside ``if isinstance(x,
str):`` a name holds no tensor; torch's state getters (``torch.get_default_dtype()``) give
host values, not tensors."""
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


def cast_inputs(model, loader, opt):
    # torch's state getters return host values (a dtype, a flag), not new CPU tensors:
    # ``.to(dtype)`` casts on the device and copies nothing to the host.
    device = torch_xla.device()
    model.to(device)
    for x, y in loader:
        x = x.to(device)
        if torch.is_autocast_enabled():
            x = x.to(torch.get_autocast_gpu_dtype())  # trap: a dtype
        x = x.to(torch.get_default_dtype())  # trap: a dtype
        loss = model(x).sum()
        loss.backward()
        opt.step()
        seen = loss.detach().to(device="cpu")  # error: XLA201
        kept = loss.detach().to(torch.get_default_device())  # error: XLA201
        print(seen, kept)  # (already on the host)
        torch_xla.sync()
