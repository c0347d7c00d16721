"""Eval file for XLA101: a pad-to-longest collate over a ConcatDataset (or a Subset) of
datasets that all return clips of one length (a crop or padding to SEGMENT samples, a
noise clip ``torch.randn(SEGMENT) * self.scale``) only stacks them. One dataset whose
clips vary among the concatenated ones, a scaled clip of an item's own length, a crop
alone (scaled: an item shorter than the crop stays shorter), or a concatenation the
analysis cannot see through, leave the padding a hazard."""
import random

import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Subset

SEGMENT = 16000


class Clips(Dataset):
    def __init__(self, wavs, labels):
        self.wavs, self.labels = wavs, labels

    def __len__(self):
        return len(self.wavs)

    def __getitem__(self, i):
        wav = self.wavs[i]
        if wav.numel() > SEGMENT:
            start = random.randint(0, wav.numel() - SEGMENT)
            wav = wav[start:start + SEGMENT]
        else:
            wav = F.pad(wav, (0, SEGMENT - wav.numel()))
        return wav, self.labels[i]


class Noise(Dataset):
    def __init__(self, n, label, scale=0.05):
        self.n, self.label, self.scale = n, label, scale

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.randn(SEGMENT) * self.scale, self.label


class ScaledCrops(Dataset):
    def __init__(self, wavs):
        self.wavs = wavs

    def __len__(self):
        return len(self.wavs)

    def __getitem__(self, i):
        wav = self.wavs[i]
        start = random.randint(0, max(0, wav.numel() - SEGMENT))
        clip = wav[start:start + SEGMENT]
        return clip / 32768.0, 0


class CropsOrSilence(Dataset):
    def __init__(self, wavs):
        self.wavs = wavs

    def __len__(self):
        return len(self.wavs)

    def __getitem__(self, i):
        try:
            wav = self.wavs[i]
            start = random.randint(0, max(0, wav.numel() - SEGMENT))
        except IndexError:
            return torch.zeros(SEGMENT), 0
        return wav[start:start + SEGMENT], 0


class Raw(Dataset):
    def __init__(self, wavs):
        self.wavs = wavs

    def __len__(self):
        return len(self.wavs)

    def __getitem__(self, i):
        return self.wavs[i] * 0.5, 0


def collate_fixed(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True), torch.tensor(labels)


def collate_mixed(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True), torch.tensor(labels)  # error: XLA101


def collate_crops(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True), torch.tensor(labels)  # error: XLA101


def collate_or_silence(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True), torch.tensor(labels)  # error: XLA101


def collate_opaque(batch):
    wavs, labels = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True), torch.tensor(labels)  # error: XLA101


def fit(model, optimizer, wavs, labels, more_sets):
    device = torch_xla.device()
    fixed = ConcatDataset([Clips(wavs, labels), Noise(1000, 11)])
    loaders = [
        DataLoader(fixed, batch_size=100, drop_last=True, collate_fn=collate_fixed),
        DataLoader(Subset(fixed, range(800)), batch_size=100, drop_last=True,
                   collate_fn=collate_fixed),
        DataLoader(ConcatDataset([Clips(wavs, labels), Raw(wavs)]), batch_size=100,
                   drop_last=True, collate_fn=collate_mixed),
        DataLoader(ConcatDataset(more_sets), batch_size=100, drop_last=True,
                   collate_fn=collate_opaque),
        # (a crop alone beside a fallback of silence: shorter items stay shorter)
        DataLoader(CropsOrSilence(wavs), batch_size=100, drop_last=True,
                   collate_fn=collate_or_silence),
        # (a crop alone, scaled: shorter items stay shorter)
        DataLoader(ScaledCrops(wavs), batch_size=100, drop_last=True,
                   collate_fn=collate_crops),
    ]
    for loader in loaders:
        for wav, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            F.cross_entropy(model(wav), y).backward()
            optimizer.step()
