"""Eval file for XLA101: collate functions that pad to the batch's longest item are no
hazard when every Dataset of the module returns that part of the item at one length
already (an audio clip cropped or padded to SEGMENT samples in ``__getitem__``, a mel
spectrogram resized to FRAMES frames): the padding never changes the shape. A part
resampled after the crop, or another part of the item (the transcript), still varies."""
import random

import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import torchaudio
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

SR = 16000
SEGMENT = 2 * SR
FRAMES = 400


class Clips(Dataset):
    def __init__(self, items, transcripts, train=True):
        self.items = items
        self.transcripts = transcripts
        self.train = train

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        wav, _ = torchaudio.load(path)
        wav = wav.mean(dim=0)
        n = wav.shape[-1]
        if n >= SEGMENT:
            start = random.randint(0, n - SEGMENT) if self.train else (n - SEGMENT) // 2
            wav = wav[start:start + SEGMENT]
        else:
            wav = F.pad(wav, (0, SEGMENT - n))
        mel = torchaudio.compute_deltas(wav[None])
        mel = F.interpolate(mel[None], size=FRAMES, mode="linear")[0]
        return wav, mel, torch.tensor(self.transcripts[i])


def collate_wavs(batch):
    wavs, mels, texts = zip(*batch)
    return pad_sequence(list(wavs), batch_first=True)


def collate_mels(batch):
    mels = [item[1] for item in batch]
    frames = max(m.shape[-1] for m in mels)
    out = mels[0].new_zeros(len(mels), mels[0].shape[0], frames)
    for i, m in enumerate(mels):
        out[i, :, :m.shape[-1]] = m
    return out


def collate_texts(batch):
    texts = [t for _, _, t in batch]
    return pad_sequence(texts, batch_first=True)  # error: XLA101


class Perturbed(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        wav, _ = torchaudio.load(self.items[i])
        wav = wav[0]
        if wav.shape[-1] > SEGMENT:
            start = random.randint(0, wav.shape[-1] - SEGMENT)
            wav = wav[start:start + SEGMENT]
        else:
            wav = F.pad(wav, (0, SEGMENT - wav.shape[-1]))
        wav = torchaudio.functional.resample(wav, SR, int(SR * random.uniform(0.9, 1.1)))
        return wav, 0


def collate_perturbed(batch):
    wavs = [w for w, _ in batch]
    return pad_sequence(wavs, batch_first=True)  # error: XLA101


class Reviews(Dataset):
    def __init__(self, encoded, max_len=256):
        self.encoded, self.max_len = encoded, max_len

    def __len__(self):
        return len(self.encoded)

    def __getitem__(self, i):
        ids = self.encoded[i][:self.max_len]
        ids = ids + [0] * (self.max_len - len(ids))
        return ids, torch.randn(SEGMENT)


class Uncapped(Dataset):
    def __init__(self, encoded, max_len=256):
        self.encoded, self.max_len = encoded, max_len

    def __len__(self):
        return len(self.encoded)

    def __getitem__(self, i):
        ids = self.encoded[i]
        return ids + [0] * (self.max_len - len(ids)), 0


def collate_ids(batch):
    seqs, noise = zip(*batch)
    width = max(len(s) for s in seqs)
    out = torch.full((len(seqs), width), 0, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.tensor(s)
    return out, pad_sequence(list(noise), batch_first=True)


def collate_uncapped(batch):
    seqs = [s for s, _ in batch]
    width = max(len(s) for s in seqs)  # error: XLA101
    out = torch.full((len(seqs), width), 0, dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.tensor(s)
    return out


def train(model, items, texts, paths):
    device = torch_xla.device()
    loaders = [DataLoader(Clips(items, texts), batch_size=8, drop_last=True, collate_fn=fn)
               for fn in (collate_wavs, collate_mels, collate_texts)]
    loaders.append(DataLoader(Perturbed(paths), batch_size=8, drop_last=True,
                              collate_fn=collate_perturbed))
    loaders.append(DataLoader(Reviews(texts), batch_size=8, drop_last=True,
                              collate_fn=collate_ids))
    loaders.append(DataLoader(Uncapped(texts), batch_size=8, drop_last=True,
                              collate_fn=collate_uncapped))
    for loader in loaders:
        for batch in pl.MpDeviceLoader(loader, device):
            model(batch)
