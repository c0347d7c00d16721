"""Eval file for XLA101: a collate method pads through a private helper that takes the
length (``self._pad_time(f, frames)`` with ``frames = max(...)``), against a private helper
handed a fixed length and a public helper whose length any caller may set."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset

MAX_FRAMES = 1600


def pad_to(x, length):
    return F.pad(x, (0, 0, 0, length - x.size(0)))


class SpeechSet(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]

    @staticmethod
    def _pad_time(x, length):
        return F.pad(x, (0, 0, 0, length - x.size(0)))

    def _pad_chars(self, t, length):
        return F.pad(t, (0, length - t.size(0)))

    def _pad_fixed(self, x, length):
        # Trap: every call hands it the fixed MAX_FRAMES.
        return F.pad(x, (0, 0, 0, length - x.size(0)))

    def collate(self, batch):
        feats, targets = zip(*batch)
        frames = max(f.size(0) for f in feats)  # error: XLA101
        chars = max(t.size(0) for t in targets)  # error: XLA101
        x = torch.stack([self._pad_time(f, frames) for f in feats])
        y = torch.stack([self._pad_chars(t, chars) for t in targets])
        return x, y

    def collate_fixed(self, batch):
        feats, _ = zip(*batch)
        return torch.stack([self._pad_fixed(f, MAX_FRAMES) for f in feats])

    def collate_public(self, batch):
        # Trap (unknown): a public helper's length is whatever its callers pass.
        feats, _ = zip(*batch)
        longest = max(f.size(0) for f in feats)
        return torch.stack([pad_to(f, longest) for f in feats])


def fit(model, optimizer, rows):
    device = torch_xla.device()
    data = SpeechSet(rows)
    for fn in (data.collate, data.collate_fixed):
        loader = DataLoader(data, batch_size=8, drop_last=True, collate_fn=fn)
        for x, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
