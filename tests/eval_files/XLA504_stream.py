"""Eval file for XLA504: a streaming dataset in a plain DataLoader, read whole by every replica."""
import datasets
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from datasets.distributed import split_dataset_by_node
from torch.utils.data import DataLoader


def train(model, optimizer, loader, device):
    for batch in pl.MpDeviceLoader(loader, device):
        model(batch["x"]).sum().backward()
        xm.optimizer_step(optimizer)


def _mp_fn(index, flags):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stream = datasets.load_dataset("c4", "en", split="train", streaming=True)
    tokenized = stream.map(lambda ex: ex).shuffle(seed=0, buffer_size=1000)
    loader = DataLoader(tokenized, batch_size=8)  # error: XLA504
    train(model, optimizer, loader, device)
    # A stream flag unknown here: stream or map-style dataset, every replica reads it whole.
    maybe = datasets.load_dataset("c4", "en", split="train", streaming=flags.streaming)
    train(model, optimizer, DataLoader(maybe, batch_size=8, drop_last=True), device)  # error: XLA504
    # Traps: a stream split per replica (by node, or by shard), also when it may be a stream.
    own = split_dataset_by_node(stream, rank=xr.global_ordinal(), world_size=xr.world_size())
    train(model, optimizer, DataLoader(own, batch_size=8), device)
    part = stream.shard(num_shards=xr.world_size(), index=xr.global_ordinal())
    train(model, optimizer, DataLoader(part, batch_size=8), device)
    either = split_dataset_by_node(maybe, rank=xr.global_ordinal(), world_size=xr.world_size())
    train(model, optimizer, DataLoader(either, batch_size=8, drop_last=True), device)
    # ... and streams that each replica builds from its own files, or filters to its own
    # examples.
    rank, world = xr.global_ordinal(), xr.world_size()
    mine = datasets.load_dataset("json", data_files=flags.files[rank::world], streaming=True)
    train(model, optimizer, DataLoader(mine, batch_size=8), device)
    mine = datasets.load_dataset("json", data_files=flags.files[rank::world],
                                 streaming=flags.streaming)
    train(model, optimizer, DataLoader(mine, batch_size=8), device)
    kept = stream.filter(lambda ex, i: i % world == rank, with_indices=True)
    train(model, optimizer, DataLoader(kept, batch_size=8), device)


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None,))
