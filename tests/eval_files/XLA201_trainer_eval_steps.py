"""Eval file for XLA201: the evaluation step a trainer runs beside its training step.

A framework outside the project (argus, a custom ``fit``) calls ``train_step`` and
``val_step`` per batch; nothing in the module calls them.
"""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.core.xla_model as xm


class Model:
    def __init__(self, net, optimizer):
        self.device = torch_xla.device()
        self.net = net.to(self.device)
        self.optimizer = optimizer

    def train_step(self, batch, state):
        x, y = batch
        loss = F.cross_entropy(self.net(x.to(self.device)), y.to(self.device))
        loss.backward()
        xm.optimizer_step(self.optimizer)
        return {"loss": loss.item()}  # error: XLA201

    def val_step(self, batch, state):
        x, y = batch
        with torch.no_grad():
            logits = self.net(x.to(self.device))
        return {"loss": F.cross_entropy(logits, y.to(self.device)).item()}  # error: XLA201

    def test_step(self):
        # Trap: takes no batch (a one-off smoke test of the class).
        return self.net(torch.zeros(1, 4, device=self.device)).sum().item()


class Scorer:
    """Trap: no training step beside it, so nothing says a trainer runs it per batch."""

    def __init__(self, net):
        self.net = net.to(torch_xla.device())

    def val_step(self, batch):
        return self.net(batch.to(torch_xla.device())).sum().item()


class Runner:
    """Trap: the module calls its evaluation step once, after training."""

    def __init__(self, net, optimizer):
        self.net = net.to(torch_xla.device())
        self.optimizer = optimizer

    def train_step(self, batch):
        self.net(batch.to(torch_xla.device())).sum().backward()
        xm.optimizer_step(self.optimizer)

    def eval_step(self, batch):
        return self.net(batch.to(torch_xla.device())).mean().item()


def report(runner, batch):
    print(runner.eval_step(batch))


class Child(Model):
    """The training step is inherited from a class of the module."""

    def val_step(self, batch, state):
        x, _ = batch
        return self.net(x.to(self.device)).mean().item()  # error: XLA201


class EpochModel(Model):
    def validation_step(self, val_loader):
        # Trap: an epoch over the loader it is handed; the read after the loop runs once.
        total = torch.zeros((), device=self.device)
        for x, _ in val_loader:
            total += self.net(x.to(self.device)).sum()
        return total.item()
