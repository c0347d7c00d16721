"""Eval file for XLA501: a model's ``__init__`` that falls back to ``"cuda" if
torch.cuda.is_available() else "cpu"`` only to build its layers builds them on the CPU of
an XLA host, and ``model.to(device)`` moves them; kept on the module for its forward
pass, or outside a module's ``__init__``, the choice still places tensors on the CPU of
an XLA host, and a plain ``"cuda"`` still crashes there."""
import torch
import torch_xla
from rational import KATGroup


class Mlp(torch.nn.Module):
    def __init__(self, width, device=None):
        super().__init__()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.fc = torch.nn.Linear(width, width, device=device)
        self.act = KATGroup("gelu", device)

    def forward(self, x):
        return self.act(self.fc(x))


class Sampler(torch.nn.Module):
    def __init__(self, width, device=None):
        super().__init__()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
        self.device = device
        self.fc = torch.nn.Linear(width, width)

    def forward(self, x):
        return self.fc(x) + torch.randn(x.shape, device=self.device)


class Noise(torch.nn.Module):
    def __init__(self, width, device=None):
        super().__init__()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.register_buffer("mean", torch.zeros(width, device=device))
        self.scale = torch.nn.Parameter(torch.ones(width, device=device))


class Scaled(torch.nn.Module):
    def __init__(self, width, device=None):
        super().__init__()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
        self.scale = torch.ones(width, device=device)  # (a plain attribute: .to() skips it)


class Jitter(torch.nn.Module):
    def __init__(self, device=None):
        super().__init__()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
        self.sample = lambda shape: torch.randn(shape, device=device)


class Placed(torch.nn.Module):
    def __init__(self, device=None):
        super().__init__()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
        self.device = torch.device(device)


class Keeper(torch.nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device


class Based(Keeper):
    def __init__(self, device=None):
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
        super().__init__(device)


class Head(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        device = "cuda"  # error: XLA501
        self.fc = torch.nn.Linear(width, width, device=device)


def build(width):
    device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
    head = Head(width).to(device)
    sampler = Sampler(width).to(torch_xla.device())
    parts = [m(width).to(torch_xla.device()) for m in (Noise, Scaled)]
    parts += [m().to(torch_xla.device()) for m in (Jitter, Placed, Based)]
    return Mlp(width).to(torch_xla.device()), head, sampler, parts
