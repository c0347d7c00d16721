"""Eval file for XLA102: a loader handed to a subclass's constructor, which passes it on
with ``super().__init__(...)`` to the base class that stores it."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class BaseTrainer:
    def __init__(self, model, optimizer, loader):
        self.model, self.optimizer, self.loader = model, optimizer, loader


class TPUTrainer(BaseTrainer):
    def __init__(self, model, optimizer, loader, log_every=10):
        super().__init__(model, optimizer, loader)
        self.log_every = log_every

    def fit(self):
        for x, y in pl.MpDeviceLoader(self.loader, torch_xla.device()):
            self.optimizer.zero_grad()
            torch.nn.functional.cross_entropy(self.model(x), y).backward()
            xm.optimizer_step(self.optimizer)


def main(model):
    ds = datasets.MNIST("/tmp/mnist", transform=transforms.ToTensor())
    loader = DataLoader(ds, batch_size=64, shuffle=True)  # error: XLA102
    # Trap: 60000 rows in batches of 100 leave no short batch.
    even = DataLoader(ds, batch_size=100, shuffle=True)
    for train_loader in (loader, even):
        TPUTrainer(model, torch.optim.SGD(model.parameters(), lr=0.1), train_loader).fit()
