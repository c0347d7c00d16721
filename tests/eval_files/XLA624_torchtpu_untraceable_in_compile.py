"""Eval file for XLA624 (torch.tpu context managers inside compiled code)."""
# flake8-xla: --xla-migrate=torchtpu
import torch


@torch.compile
def step(x, w):
    with torch.tpu.precision(torch.tpu.Precision.HIGHEST):  # error: XLA624
        y = x @ w
    with torch.tpu.set_eager_mode(torch.tpu.EagerMode.DEFER_NEVER):  # error: XLA624
        return y + 1


def plain(x, w):
    return x @ w


def outside(x, w):
    # Trap: outside compiled code both are fine.
    with torch.tpu.precision(torch.tpu.Precision.HIGHEST):
        return torch.compile(plain)(x, w)
