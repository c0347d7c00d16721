"""Eval file for XLA504: which values are streams read whole by every replica, and which
are one replica's part."""
import datasets
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from datasets.distributed import split_dataset_by_node
from torch.utils.data import DataLoader
from transformers.trainer_pt_utils import IterableDatasetShard


def step(model, optimizer, batch):
    model(batch["x"]).sum().backward()
    xm.optimizer_step(optimizer)


def _mp_fn(index, flags):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    rank, world = xr.global_ordinal(), xr.world_size()
    splits = datasets.load_dataset("c4", "en", streaming=True)
    # A split of the IterableDatasetDict, streams interleaved, a map-style dataset read
    # as a stream: streams all the same.
    for batch in pl.MpDeviceLoader(DataLoader(splits["train"], batch_size=8), device):  # error: XLA504
        step(model, optimizer, batch)
    both = datasets.interleave_datasets([splits["train"], splits["validation"]])
    for batch in pl.MpDeviceLoader(DataLoader(both, batch_size=8), device):  # error: XLA504
        step(model, optimizer, batch)
    whole = datasets.load_dataset("imdb", split="train").to_iterable_dataset()
    for batch in pl.MpDeviceLoader(DataLoader(whole, batch_size=8), device):  # error: XLA504
        step(model, optimizer, batch)
    # Traps: a split stream stays split through later methods (the order the datasets
    # docs use); a stream that skips to this replica's part, that keeps the examples of
    # its host, or that transformers' shard wrapper hands out per process.
    stream = splits["train"]
    own = split_dataset_by_node(stream, rank=rank, world_size=world)
    mixed = own.shuffle(seed=0, buffer_size=1000).map(lambda ex: ex)
    for batch in pl.MpDeviceLoader(DataLoader(mixed, batch_size=8), device):
        step(model, optimizer, batch)
    skipped = stream.skip(flags.host_index * 1000).take(1000)
    for batch in pl.MpDeviceLoader(DataLoader(skipped, batch_size=8), device):
        step(model, optimizer, batch)
    hosted = stream.filter(lambda ex, i: i % flags.num_hosts == flags.host_id,
                           with_indices=True)
    for batch in pl.MpDeviceLoader(DataLoader(hosted, batch_size=8), device):
        step(model, optimizer, batch)
    per_process = IterableDatasetShard(stream, batch_size=8, num_processes=world,
                                       process_index=rank)
    for batch in pl.MpDeviceLoader(DataLoader(per_process, batch_size=8), device):
        step(model, optimizer, batch)


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None,))
