"""Eval file for XLA503: a checkpoint moved to the CPU by a helper that dispatches on the
type of what it is given.

``to_cpu`` returns a dict of its own results for a dict, ``.cpu()`` for a tensor and the
object itself otherwise: the last arm is neither a dict nor a tensor
(``isinstance(obj, dict)`` and ``hasattr(obj, "cpu")`` both failed there), so what it
returns holds no XLA tensor. A helper that returns a dict unchanged still does.
"""
import torch
import torch_xla


def to_cpu(obj):
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    elif hasattr(obj, "cpu"):
        return obj.cpu()
    else:
        return obj


def keep_dicts(obj):
    if isinstance(obj, dict):
        return obj
    return None


def save(model, path):
    state = {"model": model.state_dict(), "epoch": 3}
    torch.save(to_cpu(state), path)
    torch.save(keep_dicts(state), path)  # error: XLA503


def main():
    model = torch.nn.Linear(4, 2).to(torch_xla.device())
    save(model, "ckpt.pt")
