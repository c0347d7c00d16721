"""Eval file for XLA504: loaders of a branch the XLA run does not take."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, dataset, use_tpu):
        self.use_tpu = use_tpu
        self.device = torch_xla.device()
        self.model = torch.nn.Linear(4, 2).to(self.device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        if self.use_tpu:
            sampler = DistributedSampler(dataset, num_replicas=xr.world_size(),
                                         rank=xr.global_ordinal())
            self.loader = DataLoader(dataset, batch_size=8, sampler=sampler, drop_last=True)
        else:
            self.loader = DataLoader(dataset, batch_size=8, shuffle=True, drop_last=True)
        self.extra = DataLoader(dataset, batch_size=8, shuffle=True, drop_last=True)  # error: XLA504

    def fit(self):
        for loader in (self.loader, self.extra):
            for x in pl.MpDeviceLoader(loader, self.device):
                self.model(x).sum().backward()
                xm.optimizer_step(self.optimizer)


def _mp_fn(index, dataset):
    Trainer(dataset, use_tpu=True).fit()


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None,))
