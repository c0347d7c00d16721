"""Eval file for XLA501: a script's own hardware setting compared with 'GPU' / 'TPU'."""
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
