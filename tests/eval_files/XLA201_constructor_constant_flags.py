"""Eval file for XLA201: a constructor's flag that every construction sets to one constant
(``Trainer(alternating=True)``) decides the branches it guards, but it is a constant of
the program, not a switch of the XLA path: a flag cleared under it
(``if self.alternating: use_encoder = False``) and toggled every iteration is not a flag
the script forbids on XLA, so the reads guarded by it still run every other step."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


class Trainer:
    def __init__(self, model, optimizer, loader, alternating=False):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.alternating = alternating

    def train(self, steps):
        device = torch_xla.device()
        use_encoder = True
        if self.alternating:
            use_encoder = False
        total = 0.0
        for _ in range(steps):
            x = next(self.loader).to(device)
            loss = self.model(x).mean()
            loss.backward()
            xm.optimizer_step(self.optimizer)
            if not self.alternating or use_encoder:
                total += loss.detach().item()  # error: XLA201
            if not self.alternating:
                print(loss.item())
            use_encoder = not use_encoder
            torch_xla.sync()
        return total


def main(model, optimizer, loader):
    return Trainer(model, optimizer, loader, alternating=True).train(100)
