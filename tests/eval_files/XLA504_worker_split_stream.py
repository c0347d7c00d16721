"""Eval file for XLA504: an IterableDataset split between loader workers, not replicas.

``get_worker_info()`` gives each worker of one process its part of the files; under
``torch_xla.launch`` every replica runs the same split, so every replica reads every
item. A stream that also skips by the replica's global ordinal reads its own part.
"""
import json

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class JsonlStream(IterableDataset):
    def __init__(self, paths, seq_len):
        self.paths = list(paths)
        self.seq_len = seq_len

    def __iter__(self):
        info = get_worker_info()
        wid, nworkers = (info.id, info.num_workers) if info is not None else (0, 1)
        for i, path in enumerate(self.paths):
            if i % nworkers != wid:
                continue
            with open(path, encoding="utf-8") as f:
                for line in f:
                    yield torch.tensor(json.loads(line)["ids"][: self.seq_len])


class RankedJsonlStream(IterableDataset):
    def __init__(self, paths, seq_len):
        self.paths = list(paths)
        self.seq_len = seq_len

    def __iter__(self):
        info = get_worker_info()
        wid, nworkers = (info.id, info.num_workers) if info is not None else (0, 1)
        part = xr.global_ordinal() * nworkers + wid
        for i, path in enumerate(self.paths):
            if i % (xr.world_size() * nworkers) != part:
                continue
            with open(path, encoding="utf-8") as f:
                for line in f:
                    yield torch.tensor(json.loads(line)["ids"][: self.seq_len])


def _mp_fn(index, paths, model, optimizer):
    device = torch_xla.device()
    loader = DataLoader(JsonlStream(paths, 1024), batch_size=8, drop_last=True)  # error: XLA504
    ranked = DataLoader(RankedJsonlStream(paths, 1024), batch_size=8, drop_last=True)
    for first, second in zip(pl.MpDeviceLoader(loader, device),
                             pl.MpDeviceLoader(ranked, device)):
        loss = model(first).mean() + model(second).mean()
        loss.backward()
        xm.optimizer_step(optimizer)


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=([], None, None))
