"""Eval file for XLA602 (step barriers, graph compilation, eager mode)."""
# flake8-xla: --xla-migrate=torchtpu
import torch
import torch_xla  # error: XLA600
import torch_xla.core.xla_model as xm  # error: XLA600
from torch_xla.experimental import eager_mode  # error: XLA600

eager_mode(True)  # error: XLA602


@torch_xla.compile  # error: XLA602
def fwd(model, x):
    return model(x)


def train(model, loader, optimizer):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
        torch_xla.sync()  # error: XLA602
    xm.mark_step()  # error: XLA508, XLA602
    xm.wait_device_ops()  # error: XLA602
    fast = torch.compile(model, backend="openxla")  # error: XLA602
    # Trap: a plain torch.compile is what TorchTPU wants.
    return torch.compile(model), fast
