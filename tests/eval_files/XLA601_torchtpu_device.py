"""Eval file for XLA601 (torch_xla devices under --xla-migrate=torchtpu)."""
# flake8-xla: --xla-migrate=torchtpu
import torch
import torch_xla  # error: XLA600
import torch_xla.core.xla_model as xm  # error: XLA600
import torch_xla.runtime as xr  # error: XLA600


def devices(model, batch):
    device = torch_xla.device()  # error: XLA601
    old = xm.xla_device()  # error: XLA508, XLA601
    named = torch.device("xla")  # error: XLA601
    model.to("xla:0")  # error: XLA601
    n = xr.local_device_count()  # error: XLA601
    kind = xm.xla_device_hw(device)  # error: XLA601
    # Traps: other devices and strings that are not devices.
    cpu = torch.device("cpu")
    label = "xla-ready"
    """'xla' in a docstring is no device."""
    return device, old, named, n, kind, cpu, label, batch.to(cpu)
