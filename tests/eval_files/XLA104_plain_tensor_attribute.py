"""Eval file for XLA104: a module's plain tensor attribute stays on the CPU.

``model.to(device)`` moves a module's parameters, buffers (``register_buffer``) and
submodules (``nn.Module._apply``), not a tensor stored as a plain attribute
(``self.trim = torch.tensor([...])``): slicing by such a tensor's values reads a CPU
tensor and runs nothing on the device. Slicing by a buffer's values reads the XLA tensor
the buffer became. For the same reason a forward that stores into a plain attribute
(``self.cache[:b] = out``, a cache made without a device) copies the lazy tensor to the
host (XLA201; measured on torch_xla 2.9, PJRT_DEVICE=CPU: one more execution and one
transfer per call). A plain attribute that other code moves (``model.window =
model.window.to(device)``) or builds with ``**kwargs`` (a ``device`` among them) is left
as the module's.
"""
import torch
import torch_xla
from torch import nn


class Decoder(nn.Module):
    def __init__(self, lo, hi, **kwargs):
        super().__init__()
        self.proj = nn.Linear(64, 64)
        self.trim = torch.tensor([lo, hi], dtype=torch.long)
        self.register_buffer("leads", torch.tensor([lo, hi], dtype=torch.long))
        self.cache = torch.zeros(8, 64)
        self.window = torch.tensor([lo, hi], dtype=torch.long)
        self.offsets = torch.tensor([lo, hi - lo]).cumsum(0)
        self.span = torch.tensor([lo, hi], **kwargs)

    def forward(self, x):
        kept = x[:, self.trim[0]:self.trim[1]]  # trap: a CPU tensor's values
        lead = x[:, self.leads[0]:self.leads[1]]  # error: XLA104
        moved = x[:, self.window[0]:self.window[1]]  # error: XLA104
        spanned = x[:, self.span[0]:self.span[1]]  # error: XLA104
        lead = lead + moved[:, :1] + spanned[:, :1]
        shifted = x[:, self.offsets[0]:self.offsets[1]]  # trap: a CPU tensor's values
        lead = lead + shifted[:, :1]
        self.cache[: x.shape[0]] = kept[:, 0]  # error: XLA201
        return self.proj(kept) + self.proj(lead)


def main():
    device = torch_xla.device()
    model = Decoder(2, 10, device=device).to(device)
    model.window = model.window.to(device)
    x = torch.randn(8, 16, 64).to(device)
    model(x).sum().backward()
    torch_xla.sync()
