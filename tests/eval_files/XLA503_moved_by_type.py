"""Eval file for XLA503: a checkpoint moved to the CPU by a helper that dispatches on the
type of what it is given.

``to_cpu`` returns a dict of its own results for a dict, ``.cpu()`` for a tensor and the
object itself otherwise: the last arm is neither a dict nor a tensor
(``isinstance(obj, dict)`` and ``hasattr(obj, "cpu")`` both failed there), so what it
returns holds no XLA tensor. So does ``to_cpu_early``, whose earlier arms each return
(``isinstance(obj, Mapping)`` among them). A helper that returns a dict unchanged, or
one whose other arm builds a dict of the tensor it was given, still does.
"""
from collections.abc import Mapping

import torch
import torch_xla


def to_cpu(obj):
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    elif hasattr(obj, "cpu"):
        return obj.cpu()
    else:
        return obj


def to_cpu_early(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, Mapping):
        return {k: to_cpu_early(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_cpu_early(v) for v in obj]
    return obj


def wrap_logits(preds):
    if isinstance(preds, dict):
        return {k: v.cpu() for k, v in preds.items()}
    else:
        preds = {"logits": preds}
    return preds


def keep_dicts(obj):
    if isinstance(obj, dict):
        return obj
    return None


def save(model, path):
    state = {"model": model.state_dict(), "epoch": 3}
    torch.save(to_cpu(state), path)
    torch.save(to_cpu_early(state), path)
    logits = model(torch.zeros(2, 4, device=torch_xla.device()))
    torch.save(wrap_logits(logits), path)  # error: XLA503
    torch.save(keep_dicts(state), path)  # error: XLA503


def main():
    model = torch.nn.Linear(4, 2).to(torch_xla.device())
    save(model, "ckpt.pt")
