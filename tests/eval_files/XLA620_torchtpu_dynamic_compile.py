"""Eval file for XLA620 (torch.compile(..., dynamic=True) on TorchTPU)."""
# flake8-xla: --xla-migrate=torchtpu
import torch


def train_step(model, x):
    return model(x).sum()


device = torch.device("tpu")
step = torch.compile(train_step, dynamic=True)  # error: XLA620


@torch.compile(dynamic=True)  # error: XLA620
def fwd(model, x):
    return model(x)


# Traps: TorchTPU's own default, and dynamic=False.
ok = torch.compile(train_step)
also_ok = torch.compile(train_step, dynamic=False)
