"""Eval file for XLA501: a device chosen by ``torch.cuda.is_available()`` that is read only
as the ``map_location=`` of a checkpoint load reads the checkpoint onto the CPU on an
XLA host, and ``load_state_dict`` copies it to wherever the model lives: not reported.
The same choice used to place a tensor still is."""
import torch
import torch_xla
from torch import nn


class Decoder(nn.Module):
    def __init__(self, path):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        device = torch.device("cpu") if not torch.cuda.is_available() else torch.device("cuda")
        self.load_state_dict(torch.load(path, map_location=device))

    def forward(self, x):
        return self.proj(x)


def build(path):
    device = torch.device("cpu") if not torch.cuda.is_available() else torch.device("cuda")  # error: XLA501
    model = Decoder(path).to(torch_xla.device())
    bias = torch.zeros(8, device=device)
    return model, bias
