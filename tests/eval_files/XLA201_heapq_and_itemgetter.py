"""Eval file for XLA201: n-best selections that compare lazy scores.

``heapq.nlargest(k, zip(scores, ids), key=itemgetter(0))`` and ``sorted(pairs,
key=itemgetter(0))`` compare lazy 0-d scores on the host, one read per comparison; pairs
keyed by their Python ints (``itemgetter(1)``), or named pairs sorted by name, compare
no tensor.
"""
import heapq
from operator import itemgetter

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def rerank(model, loader, keep=3):
    device = torch_xla.device()
    out = []
    for hyps, am in pl.MpDeviceLoader(loader, device):
        total = am + model(hyps).sum(-1)
        pairs = list(zip(total, range(hyps.size(0))))
        best = heapq.nlargest(keep, pairs, key=itemgetter(0))  # error: XLA201
        ranked = sorted(pairs, key=itemgetter(0))  # error: XLA201
        by_index = sorted(pairs, key=itemgetter(1))
        losses = {"a": total.mean(), "b": am.mean()}
        named = heapq.nsmallest(1, losses.items())
        out.append((best, ranked, by_index, named))
        torch_xla.sync()
    return out
