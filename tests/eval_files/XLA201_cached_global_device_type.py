"""Eval file for XLA201/XLA301: a device helper that caches its answer in a module global
(``global _device_type``, ``try: return _device_type`` / ``except NameError:`` compute and
store it) returns what the stores give it: "xla" on the XLA path. A barrier behind ``if
device_type() == "xla":`` runs every step; a read behind ``if device_type() != "xla":``
never does there, and a tensor moved to the CPU behind ``if mode == "xla":`` (``mode =
device_type()``) is on the CPU after it."""
import os

import torch

try:
    import torch_xla
    import torch_xla.core.xla_model as xm
except ImportError:
    xm = None


def device_type() -> str:
    global _device_type
    try:
        return _device_type
    except NameError:
        if xm is not None:
            _device_type = "xla"
        elif torch.cuda.is_available():
            _device_type = "cuda"
        else:
            _device_type = os.getenv("DEVICE_TYPE", "cpu")
    return _device_type


def device() -> torch.device:
    global _device
    try:
        return _device
    except NameError:
        _device = torch_xla.device() if xm is not None else torch.device(device_type())
    return _device


def match(scores, mode):
    if mode == "xla" or mode == "cpu":
        scores = scores.cpu()  # error: XLA201
    k = int(scores.sum())  # trap: a CPU tensor on the XLA path
    return scores.topk(max(k, 1)).indices


def train(model, loader, optimizer, log_every=50):
    model.to(device())
    for step, (x, y) in enumerate(loader):  # trap: the barrier below runs on XLA
        x, y = x.to(device()), y.to(device())
        out = model(x)
        picked = match(out.detach(), mode=device_type())
        loss = torch.nn.functional.cross_entropy(out, y) + 0 * picked.sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if device_type() == "xla":
            torch_xla.sync()
        if device_type() != "xla":
            print(loss.item())  # trap: never on the XLA path
        print(f"step {step}: {loss}")  # error: XLA201
