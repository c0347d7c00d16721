"""Eval file for XLA501: a CUDA-or-CPU fallback under ``if device is None:`` never runs
when every caller passes a device (the XLA run hands ``torch_xla.device()``); in a helper
one caller leaves without a device, it runs on the XLA host and picks the CPU."""
import torch
import torch_xla


@torch.no_grad()
def evaluate(model, loader, device=None):
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # trap
    total = torch.zeros((), device=device)
    for x, y in loader:
        total += torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        torch_xla.sync()
    return total


def warm_up(model, device=None):
    if device is None:
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # error: XLA501
    return model(torch.zeros(1, 4, device=device))


def main(model, loader):
    device = torch_xla.device()
    model.to(device)
    warm_up(model)
    return evaluate(model, loader, device=device).item()
