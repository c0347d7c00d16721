"""Eval file for XLA607 (autocast, GradScaler and syncfree optimizers)."""
# flake8-xla: --xla-migrate=torchtpu
import torch
import torch_xla  # error: XLA600
from torch_xla.amp import autocast, syncfree  # error: XLA600


def step(model, x):
    optimizer = syncfree.AdamW(model.parameters(), lr=1e-3)  # error: XLA607
    with torch.autocast("xla", dtype=torch.bfloat16):  # error: XLA607
        loss = model(x)
    with autocast(torch_xla.device()):  # error: XLA601, XLA607
        loss = loss + model(x)
    scaler = torch.amp.GradScaler("xla")  # error: XLA607
    # Traps: the TorchTPU spellings.
    with torch.amp.autocast("tpu"):
        loss = loss + model(x)
    return optimizer, scaler, torch.optim.AdamW(model.parameters())
