"""Eval file for XLA201: a trainer keeps its step's values in a dict attribute
(``self.metrics["loss"] = loss``) and formats that entry every few steps, a host read of
the lazy loss; an entry that only ever holds host numbers (``self.metrics["step"]``)
stays silent."""
import torch
import torch_xla


class Trainer:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt
        self.device = torch_xla.device()
        self.metrics = {"step": 0}

    def fit(self, loader):
        for step, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(
                self.model(x.to(self.device)), y.to(self.device))
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            torch_xla.sync()
            self.metrics["loss"] = loss
            self.metrics["step"] = step
            if step % 10 == 0:
                print(f"step {self.metrics['step']}")
                print(f"loss {self.metrics['loss']:.4f}")  # error: XLA201
