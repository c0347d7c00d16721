"""Eval file for XLA201: an object handed in from elsewhere that the class uses as
accelerate's ``Accelerator`` (``prepare``, ``backward``, ``unwrap_model``) prepares the
loader, so the loop over it has its barrier and the values it computes are lazy XLA
tensors; an object with only ``prepare`` and ``backward`` stays unknown."""
import torch_xla  # noqa: F401
from torch.utils.data import DataLoader


class Task:
    def __init__(self, accelerator, model, optimizer, dataset):
        self.accelerator = accelerator
        loader = DataLoader(dataset, batch_size=8, drop_last=True)
        self.model, self.optimizer, self.loader = self.accelerator.prepare(
            model, optimizer, loader)

    def train(self):
        for batch in self.loader:
            out = self.model(**batch)
            self.accelerator.backward(out.loss)
            self.optimizer.step()
            self.optimizer.zero_grad()
            print(out.loss.item())  # error: XLA201

    def save(self, path):
        self.accelerator.unwrap_model(self.model).save_pretrained(path)


class Other:
    def __init__(self, runner, model, dataset):
        self.runner = runner
        loader = DataLoader(dataset, batch_size=8, drop_last=True)
        self.model, self.loader = self.runner.prepare(model, loader)

    def train(self):
        for batch in self.loader:
            out = self.model(**batch)
            self.runner.backward(out.loss)
            print(out.loss.item())  # trap
