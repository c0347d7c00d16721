"""Eval file for XLA201: a read in a branch that ends the run (``raise``, ``exit()``)
happens at most once, as the run's last act; the branch's own test is still a read on
every step (XLA103)."""
import sys

import torch
import torch.nn.functional as F
import torch_xla


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 2)

    def forward(self, x, y):
        logits = self.fc(x)
        loss = F.cross_entropy(logits, y)
        if loss.isnan().any():  # error: XLA103
            print(f"NaN loss -- logits: {logits.isnan().any()} -- loss: {loss}")  # trap
            sys.exit(1)
        if loss.isinf():  # error: XLA103
            raise FloatingPointError(f"inf loss {loss.item()}")  # trap
        if loss > 100:  # error: XLA103
            print(f"large loss {loss}")  # error: XLA201
        return loss


def train(model, loader, optimizer):
    device = torch_xla.device()
    for x, y in loader:
        loss = model(x.to(device), y.to(device))
        loss.backward()
        optimizer.step()
        torch_xla.sync()
