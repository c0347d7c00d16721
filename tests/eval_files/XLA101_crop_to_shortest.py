"""Eval file for XLA101: a collate function that crops every waveform of the batch to the
shortest one (capped) gives each batch a new length, as padding to the longest does.
Cropping to a fixed number of samples keeps one shape."""
import random

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

MAX_SAMPLES = 16_000 * 6
FIXED = 16_000 * 3


def crop_to_shortest(batch):
    wavs, labels = zip(*batch)
    crop = min(min(w.shape[-1] for w in wavs), MAX_SAMPLES)  # error: XLA101
    out = []
    for w in wavs:
        start = random.randint(0, w.shape[-1] - crop)
        out.append(w[start:start + crop])
    return torch.stack(out), torch.tensor(labels)


def crop_fixed(batch):
    wavs, labels = zip(*batch)
    out = []
    for w in wavs:
        start = random.randint(0, max(0, w.shape[-1] - FIXED))
        clip = w[start:start + FIXED]  # trap: one length
        out.append(torch.nn.functional.pad(clip, (0, FIXED - clip.shape[-1])))
    return torch.stack(out), torch.tensor(labels)


def train(model, dataset, optimizer) -> None:
    device = torch_xla.device()
    model.to(device)
    shortest = DataLoader(dataset, batch_size=32, shuffle=True, drop_last=True,
                          collate_fn=crop_to_shortest)
    fixed = DataLoader(dataset, batch_size=32, shuffle=True, drop_last=True,
                       collate_fn=crop_fixed)
    for loader in (shortest, fixed):
        for wav, label in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(wav), label)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
