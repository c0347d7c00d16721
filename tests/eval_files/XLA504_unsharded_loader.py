"""Eval file for XLA504: multi-replica training whose replicas all read the same data."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, DistributedSampler


def _mp_fn(index, dataset, eval_dataset, stream):
    device = torch_xla.device()
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = DataLoader(dataset, batch_size=8, shuffle=True, drop_last=True)  # error: XLA504
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    # Traps: a sharded loader, an evaluation loader, a stream that shards itself.
    sampler = DistributedSampler(dataset, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    sharded = DataLoader(dataset, batch_size=8, sampler=sampler, drop_last=True)
    for x in pl.MpDeviceLoader(sharded, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    for x in pl.MpDeviceLoader(DataLoader(eval_dataset, batch_size=8, drop_last=True), device):
        model(x)
    # Trap: batch_size=None, a pipeline that makes (and shards) its own batches.
    piped = DataLoader(stream, num_workers=4, batch_size=None)
    for x in pl.MpDeviceLoader(piped, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    # Traps: datasets each replica builds from its own shard (its global index).
    mine = DataLoader(ShardSet(files_of(xr.global_ordinal())), batch_size=8, drop_last=True)
    for x in pl.MpDeviceLoader(mine, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    for x in pl.MpDeviceLoader(DataLoader(own_shard(), batch_size=8, drop_last=True), device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    # Trap: the replica's own file, chosen by its index and passed to a loader factory.
    files = files_of(0)
    rank = xr.global_ordinal()
    world = xr.world_size()
    for epoch in range(2):
        data_file = files[(epoch * world + rank) % len(files)]
        for x in pl.MpDeviceLoader(file_loader(data_file), device):
            model(x).sum().backward()
            xm.optimizer_step(optimizer)
    # Reported: a dataset whose helper reads no replica index, and one that uses the index
    # only for its augmentation seed.
    every = DataLoader(ShardSet(files_of(0)), batch_size=8, drop_last=True)  # error: XLA504
    for x in pl.MpDeviceLoader(every, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    noisy = ShardSet(files_of(0), seed=1234 + xr.global_ordinal())
    seeded = DataLoader(noisy, batch_size=8, drop_last=True)  # error: XLA504
    for x in pl.MpDeviceLoader(seeded, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)


class ShardSet(torch.utils.data.Dataset):
    def __init__(self, files, seed=0):
        self.files = files
        self.seed = seed

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        return torch.load(self.files[i])


def files_of(shard):
    return [f"data/{shard}/{i}.pt" for i in range(64)]


def file_loader(path):
    return DataLoader(ShardSet([path]), batch_size=8, drop_last=True)


def own_shard():
    return ShardSet(files_of(torch.distributed.get_rank()))


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None, None, None))
