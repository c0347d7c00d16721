"""Eval file for XLA608 (xm.save and torch_xla serialization)."""
# flake8-xla: --xla-migrate=torchtpu
import torch
import torch_xla.core.xla_model as xm  # error: XLA600
import torch_xla.utils.serialization as xser  # error: XLA600


def save(model):
    xm.save(model.state_dict(), "model.pt")  # error: XLA608
    xser.save(model.state_dict(), "model.bin")  # error: XLA608
    # Trap: torch.save on CPU tensors is the counterpart.
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, "cpu.pt")
