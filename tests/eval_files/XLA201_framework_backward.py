"""Eval file for XLA201: a loss of unknown origin (a subclass's ``training_step``) that the
loop hands to a framework's backward (``accelerator.backward(loss)``) is a tensor, so
reading it each step is a host sync."""
import torch_xla  # noqa: F401
from accelerate import Accelerator
from tqdm import tqdm


class BaseTask:
    def __init__(self, model, optimizer, loader):
        self.accelerator = Accelerator()
        self.model, self.optimizer, self.loader = self.accelerator.prepare(
            model, optimizer, loader)

    def training_step(self, batch):
        raise NotImplementedError

    def train(self, accumulation):
        bar = tqdm(self.loader)
        for step, batch in enumerate(bar):
            output = self.training_step(batch)
            loss = output / accumulation
            self.accelerator.backward(loss)
            self.optimizer.step()
            self.optimizer.zero_grad()
            bar.set_description(f"loss: {loss.item() * accumulation}")  # error: XLA201
