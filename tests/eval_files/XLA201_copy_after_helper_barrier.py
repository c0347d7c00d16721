"""Eval file for XLA201: a copy out right after a helper that runs the barrier.

``flush()`` runs ``torch_xla.sync()`` as a statement of its own body: calling it cuts the
graph as the barrier does, so ``probs.cpu()`` right after it copies a result that has
been computed (as after an inline ``torch_xla.sync()``). A helper that only waits for
the device (``xm.wait_device_ops()``) runs nothing pending.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


def flush():
    """Cut the lazy graph here and execute it."""
    torch_xla.sync()


def settle():
    flush()


def drain():
    xm.wait_device_ops()


def predict(model, loader):
    device = torch_xla.device()
    chunks, others, late = [], [], []
    with torch.no_grad():
        for batch in loader:
            probs = torch.softmax(model(batch.to(device)), dim=-1)
            flush()
            chunks.append(probs.cpu())
            logits = model(batch.to(device))
            settle()
            others.append(logits.cpu())
            scores = model(batch.to(device)).sigmoid()
            drain()
            late.append(scores.cpu())  # error: XLA201
    return torch.cat(chunks), torch.cat(others), torch.cat(late)
