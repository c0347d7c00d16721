"""Eval file for XLA504: a loader factory whose XLA branch returns a sharded loader and
whose other branch returns a plain one gives the XLA path the sharded one, also through a
helper that returns both loaders as a tuple."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

USE_TPU = False  # switched on for TPU runs


def train_loader_for(ds):
    if USE_TPU:
        sampler = DistributedSampler(ds, num_replicas=xr.world_size(),
                                     rank=xr.global_ordinal(), shuffle=True)
        return DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True)
    else:
        return DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)  # trap


def unsharded_loader_for(ds):
    return DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)  # error: XLA504


def get_loaders():
    ds = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
    return train_loader_for(ds), unsharded_loader_for(ds)


def run(index):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 1).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sharded, unsharded = get_loaders()
    for loader in (sharded, unsharded):
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            xm.optimizer_step(opt)


if __name__ == "__main__":
    xmp.spawn(run)
