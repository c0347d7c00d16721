"""Eval file for XLA103: ``== None`` / ``!= None`` on an attribute that holds a lazy
tensor once set compares identities (``Tensor.__eq__(None)`` returns NotImplemented),
so no value is read; a comparison with a number still is."""
import torch
import torch_xla

DEVICE = torch_xla.device()


class Attention(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.q = torch.nn.Linear(dim, dim)
        self.scale = None

    def forward(self, x):
        h = self.q(x)
        b, c = h.shape
        if self.scale == None:  # noqa: E711  (a trap: the cached scale is not set yet)
            self.scale = torch.tensor(c, device=DEVICE)
        if self.scale.sum() == 0:  # error: XLA103
            h = h + 1
        return h * self.scale
