"""Eval file for XLA103: a ``for`` loop over ``range()`` of a lazy tensor.

``for t in range(tgt_lengths.max() - 1):`` reads the bound on the host (``__index__``:
measured on torch_xla 2.9, PJRT_DEVICE=CPU, one scalar read per step), and each batch's
value unrolls the loop into another graph. A bound from a shape or a host number reads
nothing.
"""
import torch
import torch_xla
from torch import nn


class Decoder(nn.Module):
    def __init__(self, vocab=100, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, tgt, tgt_lengths, h):
        logits = []
        for t in range(tgt_lengths.max() - 1):  # error: XLA103
            h = self.cell(self.embed(tgt[:, t]), h)
            logits.append(self.out(h))
        for t in range(tgt.size(1) - 1):  # trap: a shape, a host number
            h = self.cell(self.embed(tgt[:, t]), h)
        return torch.stack(logits, 1), h


def main():
    device = torch_xla.device()
    model = Decoder().to(device)
    tgt = torch.randint(0, 100, (4, 12)).to(device)
    out, _ = model(tgt, torch.full((4,), 12).to(device), torch.zeros(4, 32).to(device))
    out.sum().backward()
    torch_xla.sync()
