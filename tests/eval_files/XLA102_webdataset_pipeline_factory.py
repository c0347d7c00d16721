"""Eval file for XLA102: a webdataset pipeline that a factory function builds.

``DataLoader(make_pipeline(urls, bs), batch_size=None)``: the batches come from the
``.batched(bs)`` at the end of the pipeline the function returns (or from the
``wds.batched(bs)`` stage of a ``wds.DataPipeline``), which keeps each worker's short
final batch unless told ``partial=False``. Reported at that stage, where the short batches
are made and where ``partial=False`` goes.
"""
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import webdataset as wds
from torch.utils.data import DataLoader


def make_pipeline(urls, batch_size, whole=False):
    ds = wds.WebDataset(urls, shardshuffle=100).shuffle(1000).decode("pil").to_tuple("jpg", "cls")
    if whole:
        return ds.batched(batch_size, partial=False)
    return ds.batched(batch_size)  # error: XLA102


def make_whole_pipeline(urls, batch_size):
    return wds.WebDataset(urls).decode("pil").to_tuple("jpg", "cls").batched(
        batch_size, partial=False)


def make_v2_pipeline(urls, batch_size):
    return wds.DataPipeline(
        wds.SimpleShardList(urls),
        wds.split_by_worker,
        wds.tarfile_to_samples(),
        wds.decode("pil"),
        wds.to_tuple("jpg", "cls"),
        wds.batched(batch_size),  # error: XLA102
    )


def make_v2_whole(urls, batch_size):
    return wds.DataPipeline(wds.SimpleShardList(urls), wds.tarfile_to_samples(),
                            wds.batched(batch_size, partial=False))


def train(model, optimizer, urls):
    device = torch_xla.device()
    pipeline = make_pipeline(urls, 128)
    loaders = [
        DataLoader(pipeline, batch_size=None, num_workers=8),
        DataLoader(make_whole_pipeline(urls, 128), batch_size=None, num_workers=8),
        DataLoader(make_v2_whole(urls, 128), batch_size=None, num_workers=8),
        DataLoader(make_v2_pipeline(urls, 128), batch_size=None),
    ]
    for loader in loaders:
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = model(x, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
