"""Eval file for XLA201: a base class's loop calls hooks on ``self`` that it leaves to its
subclasses (``raise NotImplementedError``, ``pass``, ``@abstractmethod``): what the
subclasses define runs there, so the loss the step hook returns is a lazy XLA tensor read
back in the base class."""
from abc import ABC, abstractmethod

import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class BaseTrainer(ABC):
    def __init__(self, model, loader, device):
        self.model = model.to(device)
        self.loader = loader
        self.device = device
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self, epochs):
        for epoch in range(epochs):
            losses = []
            for x, y in self.loader:
                loss = self.step(x.to(self.device), y.to(self.device))
                losses.append(loss.detach().cpu().numpy())  # error: XLA201
            self.after_epoch(losses)

    def step(self, x, y):
        raise NotImplementedError

    @abstractmethod
    def after_epoch(self, losses):
        """Called once per epoch."""


class XLATrainer(BaseTrainer):
    def step(self, x, y):
        self.opt.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        xm.optimizer_step(self.opt)
        return loss

    def after_epoch(self, losses):
        print(sum(losses) / len(losses))


def main():
    device = torch_xla.device()
    data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
    loader = pl.MpDeviceLoader(torch.utils.data.DataLoader(data, batch_size=8,
                                                           drop_last=True), device)
    XLATrainer(torch.nn.Linear(4, 2), loader, device).fit(3)


main()
