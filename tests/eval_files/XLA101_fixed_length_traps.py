"""Eval file for XLA101: items that only look fixed in length reach a pad-to-longest
collate: a random crop alone (a clip shorter than SEGMENT stays short), a padding up to
a multiple of the hop (which still varies), a crop and pad done only when training
(the evaluation set keeps each clip's length), and an IterableDataset beside a fixed
map-style one. Each collate is reported."""
import random

import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import torchaudio
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, IterableDataset

SEGMENT = 32000
HOP = 160


class Cropped(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        wav = torchaudio.load(self.paths[i])[0].mean(dim=0)
        start = random.randint(0, max(0, wav.shape[-1] - SEGMENT))
        wav = wav[start:start + SEGMENT]
        return wav, 0


class HopPadded(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        wav = torchaudio.load(self.paths[i])[0].mean(dim=0)
        n = wav.shape[-1]
        wav = F.pad(wav, (0, HOP - n % HOP))
        return wav, 0


class TrainOnlyCrop(Dataset):
    def __init__(self, paths, train=True):
        self.paths, self.train = paths, train

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        wav = torchaudio.load(self.paths[i])[0].mean(dim=0)
        if self.train:
            n = wav.shape[-1]
            if n >= SEGMENT:
                wav = wav[:SEGMENT]
            else:
                wav = F.pad(wav, (0, SEGMENT - n))
        return wav, 0


class Stream(IterableDataset):
    def __init__(self, paths):
        self.paths = paths

    def __iter__(self):
        for p in self.paths:
            yield torchaudio.load(p)[0].mean(dim=0), 0


class Fixed(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(SEGMENT), 0


def collate_cropped(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True)  # error: XLA101


def collate_hops(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True)  # error: XLA101


def collate_eval(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True)  # error: XLA101


def collate_mixed(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True)  # error: XLA101


def train(model, paths):
    device = torch_xla.device()
    loaders = [
        DataLoader(Cropped(paths), batch_size=8, drop_last=True, collate_fn=collate_cropped),
        DataLoader(HopPadded(paths), batch_size=8, drop_last=True, collate_fn=collate_hops),
        DataLoader(TrainOnlyCrop(paths, train=False), batch_size=8, drop_last=True,
                   collate_fn=collate_eval),
        DataLoader(Stream(paths), batch_size=8, drop_last=True, collate_fn=collate_mixed),
        DataLoader(Fixed(100), batch_size=8, drop_last=True, collate_fn=collate_mixed),
    ]
    for loader in loaders:
        for batch in pl.MpDeviceLoader(loader, device):
            model(batch)
