"""Eval file for XLA102: loader settings read from a dataclass config, whose fields hold
what its constructions pass (the declared default only where a construction omits it)."""
from dataclasses import dataclass, field

import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader


@dataclass
class TrainCfg:
    batch_size: int = 64
    drop_last: bool = False


@dataclass(frozen=True)
class EvalCfg:
    batch_size: int = 64
    drop_last: bool = field(default=True)


@dataclass
class ProbeCfg:
    batch_size: int
    drop_last: bool = True


def loader_for(ds, cfg):
    return DataLoader(ds, batch_size=cfg.batch_size, drop_last=cfg.drop_last)


def eval_loader(ds, cfg):
    return DataLoader(ds, batch_size=cfg.batch_size, drop_last=cfg.drop_last)  # error: XLA102


def probe_loader(ds, cfg):
    # Trap: positional fields; the one construction passes drop_last=True by position.
    return DataLoader(ds, batch_size=cfg.batch_size, drop_last=cfg.drop_last)


def fit(model, optimizer, train_ds, val_ds):
    device = torch_xla.device()
    # Traps: the default says False, but the only construction passes True.
    cfg = TrainCfg(batch_size=32, drop_last=True)
    loaders = [loader_for(train_ds, cfg),
               eval_loader(val_ds, EvalCfg(drop_last=False)),
               probe_loader(val_ds, ProbeCfg(16, True))]
    for loader in loaders:
        for x, y in pl.MpDeviceLoader(loader, device):
            model(x).sum().backward()
            optimizer.step()
