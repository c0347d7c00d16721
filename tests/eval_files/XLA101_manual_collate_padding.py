"""Eval file for XLA101: a collate function that pads by hand to the longest sequence of
its batch, against one that pads to a fixed length. Reported where the longest length is
taken (``max(...)``): a fixed length there is the fix."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

PAD = 0
MAX_LEN = 128


def collate(batch):
    max_len = max(len(ids) for ids, _ in batch)  # error: XLA101
    out = torch.full((len(batch), max_len), PAD, dtype=torch.long)
    for i, (ids, _) in enumerate(batch):
        out[i, : len(ids)] = torch.tensor(ids)
    return out, torch.tensor([y for _, y in batch])


def collate_masks(batch):
    masks = torch.zeros(len(batch), max([len(ids) for ids, _ in batch]))  # error: XLA101
    return masks


class MelCollater:
    """Pads spectrograms to the longest of each batch, read from their shapes."""

    def __call__(self, batch):
        longest = max([mel.shape[1] for mel, _ in batch])  # error: XLA101
        mels = torch.zeros((len(batch), 80, longest)).float()
        texts = torch.zeros(len(batch), max(t.size(0) for _, t in batch)).long()  # error: XLA101
        frames = max(mel.shape[1] for mel, _ in batch)  # error: XLA101
        energy = torch.zeros(len(batch), 1, frames)
        for i, (mel, text) in enumerate(batch):
            mels[i, :, : mel.shape[1]] = mel
            texts[i, : text.size(0)] = text
        return mels, texts, energy


def collate_crops(batch):
    # Trap: every item is cropped to a fixed size first; the widest crop is that size.
    crops = [img[:, :224, :224] for img in batch]
    out = torch.zeros(len(crops), 3, 224, 224)
    for i, c in enumerate(crops):
        out[i] = c
    return out


def collate_fixed(batch):
    # Trap: a fixed length; the longest item is only checked against it.
    assert max(len(ids) for ids, _ in batch) <= MAX_LEN
    out = torch.full((len(batch), MAX_LEN), PAD, dtype=torch.long)
    for i, (ids, _) in enumerate(batch):
        out[i, : len(ids)] = torch.tensor(ids)
    return out


def fit(model, optimizer, data):
    device = torch_xla.device()
    for fn in (collate, collate_masks, MelCollater(), collate_crops, collate_fixed):
        loader = DataLoader(data, batch_size=32, collate_fn=fn, drop_last=True)
        for x, y in pl.MpDeviceLoader(loader, device):
            model(x).sum().backward()
            optimizer.step()
