"""Eval file for XLA201: ``sampler = OutputSampler(size=4096, n=512)`` then
``sampler(batch)`` in the step runs ``__call__`` with ``self`` the sampler and ``x`` the
batch: ``torch.randint(high=self.size, size=(self.n,))`` takes Python ints (no read),
while a read of the batch there is a host sync per step."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class OutputSampler:
    def __init__(self, size, n):
        self.size = size
        self.n = n

    def __call__(self, x):
        idx = torch.randint(low=0, high=self.size, size=(self.n,))
        print("batch mean", x.mean().item())  # error: XLA201
        return x[:, idx.to(x.device)]


def train(model, optimizer, loader):
    device = torch_xla.device()
    sampler = OutputSampler(size=4096, n=512)
    for batch in pl.MpDeviceLoader(loader, device):
        loss = model(sampler(batch)).mean()
        loss.backward()
        xm.optimizer_step(optimizer)
