"""Eval file for XLA621 (torch.compile(..., backend="inductor") on TorchTPU)."""
# flake8-xla: --xla-migrate=torchtpu
import torch

model = torch.nn.Linear(4, 4).to("tpu")
fast = torch.compile(model, backend="inductor")  # error: XLA621
# Traps: TorchTPU's backend, the default, and the pallas escape hatch.
tpu = torch.compile(model, backend="tpu")
default = torch.compile(model)
pallas = torch.compile(model, backend="inductor", options={"tpu_backend": "pallas"})
