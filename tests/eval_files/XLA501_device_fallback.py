"""Eval file for XLA501: a ``try`` that takes the XLA device, whose handler falls back to
a CUDA device. On the XLA path the call succeeds, so the handler never runs there; a CUDA
device taken after a longer ``try`` body (the run itself may fail over) is reported."""
import torch
import torch_xla


def get_device():
    try:
        device = torch_xla.device()
    except Exception:
        # Trap: runs only where no XLA device exists.
        device = torch.device("cuda")
    return device


def build(model):
    try:
        device = torch_xla.device()
        print("using", device)
    except RuntimeError as err:
        print(err)
        # Trap: the same, with a message first.
        device = torch.device("cuda:0")
    return model.to(device)


def fit(model, loader, optimizer):
    try:
        device = torch_xla.device()
        model = model.to(device)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)).backward()
            optimizer.step()
            torch_xla.sync()
    except Exception:
        device = torch.device("cuda")  # error: XLA501
    return device
