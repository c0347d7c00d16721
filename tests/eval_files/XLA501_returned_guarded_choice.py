"""Eval file for XLA501: a device helper that returns a guarded CUDA choice (on an XLA
host it answers "cpu", and the model silently trains on the host)."""
import torch
import torch_xla.core.xla_model as xm


def get_device():
    return "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501


def pick_device():
    # Trap: the other arm is the XLA device.
    return "cuda" if torch.cuda.is_available() else xm.xla_device()  # error: XLA508


def backend_label():
    # Trap: a label for logs, not a device helper.
    return "cuda" if torch.cuda.is_available() else "cpu"


model = torch.nn.Linear(4, 2).to(get_device())
other = torch.nn.Linear(4, 2).to(pick_device())
print("backend:", backend_label())
