"""Eval file for XLA201: a loader's batches have the structure its collate_fn returns."""
import numpy as np
import torch
import torch_xla
import torch_xla.distributed.data_parallel as dp
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

device = torch_xla.device()


def collate(samples):
    images = [s[0] for s in samples]
    labels = [int(s[1]) for s in samples]
    names = [s[2] for s in samples]
    return torch.stack(images, 0), labels, names


def collate_with_targets(samples):
    return torch.stack([s[0] for s in samples]), torch.tensor([s[1] for s in samples])


def train(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=8, drop_last=True, collate_fn=collate)
    for images, labels, names in pl.MpDeviceLoader(loader, device):
        # Traps: the labels and names stay Python lists on the host.
        targets = torch.from_numpy(np.array(labels)).to(device)
        print(names[0], len(labels))
        loss = torch.nn.functional.cross_entropy(model(images), targets)
        loss.backward()
        optimizer.step()
        print(images.sum().item())  # error: XLA201


def train_targets(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=8, drop_last=True, collate_fn=collate_with_targets)
    for images, targets in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(images), targets)
        loss.backward()
        optimizer.step()
        print(np.array(targets))  # error: XLA201


def loop_fn(model, loader, device, context):
    optimizer = context.getattr_or("optimizer", lambda: torch.optim.SGD(model.parameters(), 0.1))
    for step, (images, labels, names) in loader:
        targets = torch.tensor(np.array(labels)).to(device)  # trap: a host list
        loss = torch.nn.functional.cross_entropy(model(images), targets)
        loss.backward()
        optimizer.step()
        print(loss.item())  # error: XLA201


def run(model, dataset, devices):
    model_parallel = dp.DataParallel(model, device_ids=devices)
    model_parallel(loop_fn, DataLoader(dataset, batch_size=8, drop_last=True, collate_fn=collate))


class Collater:
    """Pads mels to a fixed length; keeps the raw waveforms as numpy arrays."""

    def __init__(self, frames=400):
        self.frames = frames

    def __call__(self, samples):
        waves = [s[0] for s in samples]  # numpy arrays
        mels = torch.zeros(len(samples), 80, self.frames)
        for i, s in enumerate(samples):
            mels[i, :, : s[1].shape[1]] = s[1]
        return waves, mels


def train_collater(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=8, drop_last=True, collate_fn=Collater())
    for waves, mels in pl.MpDeviceLoader(loader, device):
        # Trap: the waveforms stay numpy arrays on the host.
        print(np.abs(waves[0]).max())
        loss = model(mels).mean()
        loss.backward()
        optimizer.step()
        print(mels.mean().item())  # error: XLA201
