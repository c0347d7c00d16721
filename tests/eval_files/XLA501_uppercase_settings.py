"""Eval file for XLA501: a script's own hardware setting compared with 'GPU' / 'TPU', and a
config dataclass whose device field defaults to CUDA."""
import dataclasses

import torch
import torch_xla


def pick_device(cfg):
    if cfg.device == "TPU":
        return torch_xla.device()
    elif cfg.device == "GPU":
        # Trap: the GPU arm of the user's setting, off the XLA path.
        return torch.device("cuda")
    return torch.device("cpu")


def setup(hps):
    if hps.hw == "GPU":
        device = torch.device("cuda")  # (trap: the setting's GPU arm)
    else:
        device = torch_xla.device()
    return torch.zeros(2, device=device)


def run(model):
    model.to(torch.device("cuda"))  # error: XLA501
    return model


@dataclasses.dataclass
class TrainConfig:
    """A dataclass field's default is the device the XLA run places its model on."""

    lr: float = 1e-3
    device: str = "cuda"  # error: XLA501
    # Trap: a guarded choice that is only shown.
    eval_device: str = "cuda" if torch.cuda.is_available() else "cpu"


def configured(cfg: TrainConfig):
    print("evaluating on", cfg.eval_device)
    return torch.nn.Linear(2, 2).to(cfg.device)
