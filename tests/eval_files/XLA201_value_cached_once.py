"""Eval file for XLA201: a tensor read once and cached on the object.

``if not hasattr(self, "n_seen"): self.n_seen = self.scaler_n.item()``: the branch sets
the attribute its test asks for, so the read runs on the first step only. The same read
without the guard runs every step.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


class Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16, 16)
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        if not hasattr(self, "count_at_start"):
            self.count_at_start = self.count.item()
        self.count += 1
        return self.net(x)


def train(loader, steps):
    device = torch_xla.device()
    model = Scaled().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        if not hasattr(model, "first_loss"):
            model.first_loss = loss.item()
        print(model.count.item())  # error: XLA201
