"""Eval file for XLA501: a dataclass field whose CUDA default ``__post_init__`` replaces
by the XLA device when torch_xla is there is no hazard; a field kept, a default that a
call relies on, and a default that today's calls all pass over (a later call that relies
on it allocates on CUDA: the corpus's convention) are. So is a notebook's ``CFG.device``
that a later top-level cell sets to the XLA device (not one used before that, nor a
dataclass field, which every instance's ``__init__`` sets to the default)."""
from dataclasses import dataclass

import torch

try:
    import torch_xla

    HAS_XLA = True
except ImportError:
    HAS_XLA = False


def move_batch(batch, device="cuda"):  # error: XLA501
    return {k: v.to(device) for k, v in batch.items()}


def noise_like(x, device="cuda"):  # error: XLA501
    return torch.randn(x.shape, device=device)


@dataclass
class RunConfig:
    lr: float = 1e-3
    device: str = "cuda"

    def __post_init__(self):
        if HAS_XLA:
            self.device = "xla"


@dataclass
class EvalConfig:
    batch_size: int = 64
    device: str = "cuda"  # error: XLA501


class CFG:
    size = 256
    device = "cuda"


class OldCFG:
    device = "cuda"  # error: XLA501


@dataclass
class DataCFG:
    device: str = "cuda"  # error: XLA501


print(OldCFG.device)
# --- TPU cells ---
CFG.device = torch_xla.device()
OldCFG.device = torch_xla.device()
DataCFG.device = torch_xla.device()  # (an instance's __init__ still sets "cuda")


def step(model, raw):
    device = torch_xla.device()
    batch = move_batch(raw, device)
    out = model(batch["x"])
    return out + noise_like(out), RunConfig(), EvalConfig(), CFG.device, OldCFG.device, DataCFG().device
