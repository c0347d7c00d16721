"""Eval file for XLA102: a project sampler whose ``__iter__`` never ends.

A sampler that draws indices in a ``while True:`` loop (StyleGAN's InfiniteSampler,
detectron2's TrainingSampler through a helper generator) never runs out, so its loader
has no last batch to be ragged. A sampler that leaves its loop (``break``/``return``),
one endless only in a branch (``if self.infinite: while True: ...``; endless in every
branch counts as endless, as do a helper method handed on whole, stored by ``__init__``
(mmengine's InfiniteSampler) or looping over ``itertools.count()``), one whose endless
helper ``islice`` caps at a count, or an ordinary finite one, still does.
"""
import itertools

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Sampler


class InfiniteSampler(Sampler):
    def __init__(self, dataset, seed=0):
        super().__init__(dataset)
        self.dataset = dataset
        self.seed = seed

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed)
        while True:
            for i in torch.randperm(len(self.dataset), generator=g).tolist():
                yield i


class TrainingSampler(Sampler):
    def __init__(self, size, rank=0, world=1):
        self.size, self.rank, self.world = size, rank, world

    def __iter__(self):
        yield from itertools.islice(self._infinite_indices(), self.rank, None, self.world)

    def _infinite_indices(self):
        while True:
            yield from torch.randperm(self.size).tolist()


class EpochsSampler(Sampler):
    def __init__(self, dataset, epochs):
        self.dataset, self.epochs = dataset, epochs

    def __iter__(self):
        done = 0
        while True:
            if done == self.epochs:
                return
            yield from range(len(self.dataset))
            done += 1


class ModeSampler(Sampler):
    def __init__(self, dataset, infinite=False):
        self.dataset, self.infinite = dataset, infinite

    def __iter__(self):
        if self.infinite:
            while True:
                yield from torch.randperm(len(self.dataset)).tolist()
        else:
            yield from torch.randperm(len(self.dataset)).tolist()


class HelperModeSampler(Sampler):
    def __init__(self, dataset, infinite=False):
        self.dataset, self.infinite = dataset, infinite

    def __iter__(self):
        if self.infinite:
            yield from self._endless()
        else:
            yield from torch.randperm(len(self.dataset)).tolist()

    def _endless(self):
        while True:
            yield from torch.randperm(len(self.dataset)).tolist()


class ShuffleOrNotSampler(Sampler):
    def __init__(self, dataset, shuffle=True):
        self.dataset, self.shuffle = dataset, shuffle

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            while True:
                yield from torch.randperm(n).tolist()
        else:
            while True:
                yield from range(n)


class StoredInfiniteSampler(Sampler):
    """mmengine's InfiniteSampler: __init__ stores the endless generator of this rank."""

    def __init__(self, dataset, rank=0, world=1):
        self.dataset, self.rank, self.world = dataset, rank, world
        self.indices = self._indices_of_rank()

    def _infinite_indices(self):
        while True:
            yield from torch.randperm(len(self.dataset)).tolist()

    def _indices_of_rank(self):
        yield from itertools.islice(self._infinite_indices(), self.rank, None, self.world)

    def __iter__(self):
        yield from self.indices


class StoredListSampler(Sampler):
    def __init__(self, dataset):
        self.indices = list(range(len(dataset)))

    def __iter__(self):
        yield from self.indices


class HelperArmsSampler(Sampler):
    def __init__(self, dataset, shuffle=True):
        self.dataset, self.shuffle = dataset, shuffle

    def _shuffled(self):
        while True:
            yield from torch.randperm(len(self.dataset)).tolist()

    def _ordered(self):
        for _ in itertools.count():
            yield from range(len(self.dataset))

    def __iter__(self):
        if self.shuffle:
            yield from self._shuffled()
        else:
            yield from self._ordered()


class CappedSampler(Sampler):
    def __init__(self, dataset, num_samples):
        self.dataset, self.num_samples = dataset, num_samples

    def __iter__(self):
        return itertools.islice(self._forever(), self.num_samples)

    def _forever(self):
        while True:
            yield from torch.randperm(len(self.dataset)).tolist()


def train(model, optimizer, dataset, steps):
    device = torch_xla.device()
    loaders = [
        DataLoader(dataset, batch_size=32, sampler=InfiniteSampler(dataset)),  # trap: endless
        DataLoader(dataset, batch_size=32, sampler=TrainingSampler(len(dataset))),  # trap
        DataLoader(dataset, batch_size=32, sampler=ShuffleOrNotSampler(dataset)),  # trap
        DataLoader(dataset, batch_size=32, sampler=StoredInfiniteSampler(dataset)),  # trap
        DataLoader(dataset, batch_size=32, sampler=HelperArmsSampler(dataset)),  # trap
        DataLoader(dataset, batch_size=32, sampler=StoredListSampler(dataset)),  # error: XLA102
        DataLoader(dataset, batch_size=32, sampler=EpochsSampler(dataset, 3)),  # error: XLA102
        DataLoader(dataset, batch_size=32, sampler=ModeSampler(dataset)),  # error: XLA102
        DataLoader(dataset, batch_size=32, sampler=CappedSampler(dataset, 30021)),  # error: XLA102
        DataLoader(dataset, batch_size=32, sampler=HelperModeSampler(dataset)),  # error: XLA102
    ]
    for loader in loaders:
        for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if step == steps:
                break
