"""Eval file for XLA202: ``with torch.autograd.detect_anomaly():`` checks the backward
ops run inside the block; around an evaluation loop under ``torch.no_grad()`` it checks
nothing, while around a training step (its own backward, or one in a helper it calls) it
checks every op on the host."""
import torch
import torch_xla


def backward_step(model, x, y, optimizer):
    torch.nn.functional.cross_entropy(model(x), y).backward()
    optimizer.step()


@torch.no_grad()
def evaluate(model, batches):
    device = torch_xla.device()
    with torch.autograd.detect_anomaly():  # trap: no backward runs in the block
        return [model(x.to(device)).argmax(-1) for x in batches]


def train(model, loader, optimizer):
    device = torch_xla.device()
    for x, y in loader:
        with torch.autograd.detect_anomaly():  # error: XLA202
            backward_step(model, x.to(device), y.to(device), optimizer)
        torch_xla.sync()
