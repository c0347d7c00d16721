"""Eval file for XLA504: a WebDataset pipeline that takes every world-th sample from the
replica's own index (``.slice(xr.global_ordinal(), xr.world_size())``), built in a helper
of the module, is the replica's own part, so its loader needs no DistributedSampler;
the same pipeline without that stage is read whole by every replica. A slice by a fixed
number (the first 1,000 samples) shards nothing."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
import webdataset as wds
from torch.utils.data import DataLoader


def create_dataset(urls):
    return (
        wds.WebDataset(urls, shardshuffle=True)
        .shuffle(1000)
        .slice(xr.global_ordinal(), xr.world_size())
        .decode("pil")
        .to_tuple("jpg", "cls")
    )


def create_whole(urls):
    return wds.WebDataset(urls).shuffle(1000).slice(1000).decode("pil").to_tuple("jpg", "cls")


def fit(model, loader, optimizer, device):
    for images, labels in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        xm.optimizer_step(optimizer)


def _mp_fn(index, urls):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    dataset = create_dataset(urls)
    loader = DataLoader(dataset, batch_size=8, num_workers=0, drop_last=True)  # trap
    fit(model, loader, optimizer, device)
    whole = create_whole(urls)
    loader = DataLoader(whole, batch_size=8, num_workers=0, drop_last=True)  # error: XLA504
    fit(model, loader, optimizer, device)


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=(["shard-{000..009}.tar"],))
