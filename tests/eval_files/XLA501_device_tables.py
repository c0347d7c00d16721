"""Eval file for XLA501: tables of device factories keyed by accelerator name.

A table with an entry for the XLA device picks it on an XLA run: its "gpu"/"cuda"
entries serve GPU runs. A table with no XLA entry hands out the CUDA device there too.
"""
import torch
import torch_xla

DEVICE_FACTORIES = {
    "tpu": torch_xla.device,
    "gpu": lambda: torch.device("cuda"),
    "cpu": lambda: torch.device("cpu"),
}

BACKENDS = {
    "xla": "xla",
    "cuda": "nccl",
}

GPU_ONLY = {
    "gpu": lambda: torch.device("cuda"),  # error: XLA501
    "cpu": lambda: torch.device("cpu"),
}


def pick(kind):
    device = DEVICE_FACTORIES[kind]()
    fallback = GPU_ONLY.get(kind, GPU_ONLY["cpu"])()
    return torch.zeros(2, device=device), BACKENDS[kind], fallback
