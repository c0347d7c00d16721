"""Eval file for XLA104: a module's plain tensor attribute stays on the CPU.

``model.to(device)`` moves a module's parameters, buffers (``register_buffer``) and
submodules (``nn.Module._apply``), not a tensor stored as a plain attribute
(``self.trim = torch.tensor([...])``): slicing by such a tensor's values reads a CPU
tensor and runs nothing on the device. Slicing by a buffer's values reads the XLA tensor
the buffer became. For the same reason a forward that stores into a plain attribute
(``self.cache[:b] = out``, a KV cache made without a device) runs on the CPU, or fails at
its next operation mixing the CPU cache with XLA tensors: not a host sync (XLA201).
"""
import torch
import torch_xla
from torch import nn


class Decoder(nn.Module):
    def __init__(self, lo, hi):
        super().__init__()
        self.proj = nn.Linear(64, 64)
        self.trim = torch.tensor([lo, hi], dtype=torch.long)
        self.register_buffer("leads", torch.tensor([lo, hi], dtype=torch.long))
        self.cache = torch.zeros(8, 64)

    def forward(self, x):
        kept = x[:, self.trim[0]:self.trim[1]]  # trap: a CPU tensor's values
        lead = x[:, self.leads[0]:self.leads[1]]  # error: XLA104
        self.cache[: x.shape[0]] = kept[:, 0]  # trap: a CPU module's cache (XLA201)
        return self.proj(kept) + self.proj(lead)


def main():
    device = torch_xla.device()
    model = Decoder(2, 10).to(device)
    x = torch.randn(8, 16, 64).to(device)
    model(x).sum().backward()
    torch_xla.sync()
