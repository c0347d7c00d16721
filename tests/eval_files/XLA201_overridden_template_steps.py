"""Eval file for XLA201: a base class's training loop calls ``self.after_step()``, a
concrete method (not a stub) that a subclass overrides; on an instance of the subclass the
override runs per step instead."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


class Trainer:
    def __init__(self, model, optimizer, loader):
        self.device = torch_xla.device()
        self.model = model.to(self.device)
        self.optimizer = optimizer
        self.loader = pl.MpDeviceLoader(loader, self.device)

    def after_step(self, loss):
        self.steps = getattr(self, "steps", 0) + 1

    def fit(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.after_step(loss)


class LoggingTrainer(Trainer):
    def after_step(self, loss):
        print(f"loss {loss.item():.4f}")  # error: XLA201


class QuietTrainer(Trainer):
    # Trap: an override that reads nothing.
    def after_step(self, loss):
        self.last = loss.detach()
