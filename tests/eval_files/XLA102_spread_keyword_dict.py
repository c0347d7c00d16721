"""Eval file for XLA102: a loader factory called with ``**loader_kwargs``, a dict whose
keys are all known (``dict(batch_size=..., num_workers=...)``, later stores included),
gets those keywords by name: without ``drop_last`` in it, the factory's DataLoader keeps
its short last batch; a dict updated from one of unknown keys may hold anything."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, RandomSampler


def build_train_loader(dataset, **loader_kwargs):
    return DataLoader(dataset, sampler=RandomSampler(dataset), **loader_kwargs)  # error: XLA102


def build_eval_loader(dataset, drop_last=False, **loader_kwargs):
    return DataLoader(dataset, drop_last=drop_last, **loader_kwargs)


def fit(model, optimizer, train_set, eval_set, args, extra):
    device = torch_xla.device()
    loader_kwargs = dict(batch_size=args.batch_size, num_workers=4, pin_memory=False)
    eval_kwargs = {"batch_size": args.batch_size}
    eval_kwargs["drop_last"] = True
    merged = {"batch_size": args.batch_size}
    merged.update(extra)
    loaders = (build_train_loader(train_set, **loader_kwargs),
               build_eval_loader(eval_set, **eval_kwargs),
               build_eval_loader(eval_set, **merged))
    for loader in loaders:
        for x, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            xm.optimizer_step(optimizer)
