"""Eval file for XLA104: slicing an argument whose value is not known by a lazy bound."""
import torch
import torch.nn as nn
import torch_xla


class GatedLayer(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.proj = nn.Conv1d(channels, channels, 1)
        # offsets kept as a buffer: moved to the XLA device with the module
        self.register_buffer("leads", torch.zeros(2, dtype=torch.long))

    def forward(self, x, cond):
        lead = self.leads[0]
        out = self.proj(x) + cond[:, :, lead:]  # error: XLA104
        # Traps: a Python bound, and a one-dimensional index of an unknown object
        # (a list, a dict: not an array's shape).
        fixed = cond[:, :, 2:]
        first = cond[0]
        return out + fixed.sum() + first.sum()


def train(model, loader, optimizer):
    device = torch_xla.device()
    model.to(device)
    for x, cond in loader:
        loss = model(x.to(device), cond.to(device)).sum()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
