"""Eval file for XLA504: a dataset made from data that a helper loads by the replica's
index (``load_chunk(core_id=rank)``, the index that ``xmp.spawn`` passes to ``_mp_fn``
and ``_mp_fn`` hands on to ``train_loop``) is the replica's own shard, so a loader over
it needs no DistributedSampler; data loaded with the index only as a seed, or without
it, is read whole by every replica."""
import numpy as np
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
from torch.utils.data import DataLoader, RandomSampler, TensorDataset


def load_chunk(core_id, filename):
    return np.load(f"{filename}.{core_id}.npz")


def load_all(filename, seed=0):
    rng = np.random.default_rng(seed)
    data = dict(np.load(filename))
    rng.shuffle(data["x"])
    return data


def fit(model, loader, opt):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        xm.optimizer_step(opt)
        opt.zero_grad()


def train_loop(rank, flags, model, opt):
    data = load_chunk(core_id=rank, filename=flags["data"])
    x = torch.from_numpy(data["x"]).float()
    y = torch.from_numpy(data["y"]).float()
    x, y = x[:1024], y[:1024]
    dataset = TensorDataset(x, y)
    loader = DataLoader(dataset, sampler=RandomSampler(dataset), batch_size=32, drop_last=True)  # trap
    fit(model, loader, opt)

    every = load_all(flags["data"], seed=rank)
    whole = TensorDataset(torch.from_numpy(every["x"]), torch.from_numpy(every["y"]))
    loader = DataLoader(whole, batch_size=32, shuffle=True, drop_last=True)  # error: XLA504
    fit(model, loader, opt)


def load_and_cache(path, rank):
    # (the index only orders the cache writes: every replica gets the whole dataset)
    if rank != 0:
        xm.rendezvous("cache")
    data = dict(np.load(path))
    if rank == 0:
        xm.rendezvous("cache")
    return data


def train_cached(flags, model, opt, index):
    data = load_and_cache(flags["data"], rank=index)
    whole = TensorDataset(torch.from_numpy(data["x"]), torch.from_numpy(data["y"]))
    loader = DataLoader(whole, batch_size=32, shuffle=True, drop_last=True)  # error: XLA504
    fit(model, loader, opt)
    own = load_chunk(index, flags["data"])
    mine = TensorDataset(torch.from_numpy(own["x"]), torch.from_numpy(own["y"]))
    loader = DataLoader(mine, batch_size=32, shuffle=True, drop_last=True)  # trap
    fit(model, loader, opt)


class ShardFiles(torch.utils.data.Dataset):
    # (keeps the index, and reads its own share of the files with it)
    def __init__(self, files, rank):
        self.rank = rank
        self.files = list(files)

    def __len__(self):
        return len(self.files[self.rank::8])

    def __getitem__(self, i):
        return torch.from_numpy(np.load(self.files[self.rank::8][i]))


def train_shuffled(index, files, model, opt):
    data = dict(np.load(files[0]))
    order = np.random.default_rng(index).permutation(len(data["x"]))
    x = torch.from_numpy(data["x"][order])
    y = torch.from_numpy(data["y"][order])
    loader = DataLoader(TensorDataset(x, y), batch_size=32, drop_last=True)  # error: XLA504
    fit(model, loader, opt)
    mine = ShardFiles(files, index)
    fit(model, DataLoader(mine, batch_size=32, drop_last=True), opt)  # trap


def _mp_fn(rank, flags):
    model = torch.nn.Linear(8, 1).to(torch_xla.device())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loop(rank, flags, model, opt)
    train_cached(flags=flags, model=model, opt=opt, index=rank)
    train_shuffled(rank, flags["files"], model, opt)


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=({"data": "chunks"},))
