"""Eval file for XLA503: a module whose ``__init__`` moves itself, or one of its
submodules, to the XLA device in place holds device tensors from construction on, so
``torch.save`` of its state_dict copies them out one by one. A module whose
``__init__`` moves its parts to the CPU, or moves nothing, is no such case."""
import torch
import torch_xla
from torch import nn

device = torch_xla.device()


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Linear(32, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class AutoEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = Encoder()
        self.encoder.to(device)
        self.decoder = nn.Linear(16, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.encoder(x))


class Probe(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.head = nn.Linear(16, 2)
        self.to("cpu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(x)


class Trainer:
    def __init__(self) -> None:
        self.model = AutoEncoder()
        self.probe = Probe()

    def save(self, path: str) -> None:
        torch.save({"model": self.model.state_dict()}, path)  # error: XLA503
        torch.save(self.probe.state_dict(), path + ".probe")  # trap: CPU parameters
