"""Eval file for XLA102: DataLoaders whose settings come in a dict of keyword arguments."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


def build(train_ds, val_ds, cfg, extra):
    train_kwargs = {"batch_size": cfg.batch_size, "shuffle": True,
                    "num_workers": cfg.num_workers}
    if cfg.num_workers > 0:
        train_kwargs["persistent_workers"] = True
    train = DataLoader(train_ds, **train_kwargs)  # error: XLA102
    # Traps: drop_last given in the dict, or added to it later; one sample per batch; a
    # dict updated from another dict whose keys are unknown here.
    kept = DataLoader(train_ds, **{"batch_size": 32, "drop_last": True})
    later = {"batch_size": cfg.batch_size}
    later["drop_last"] = True
    kept_later = DataLoader(val_ds, **later)
    single = DataLoader(val_ds, **dict(batch_size=1, shuffle=False))
    merged = {"batch_size": cfg.batch_size}
    merged.update(extra)
    unknown = DataLoader(val_ds, **merged)
    return train, kept, kept_later, single, unknown


def fit(model, optimizer, train_ds, val_ds, cfg, extra):
    device = torch_xla.device()
    for loader in build(train_ds, val_ds, cfg, extra):
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            torch_xla.sync()
