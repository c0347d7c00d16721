"""Eval file for XLA101: a collate function that pads by hand to the longest sequence of
its batch, against one that pads to a fixed length. Reported where the longest length is
taken (``max(...)``): a fixed length there is the fix."""
import math

import numpy as np
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


def collate_lengths(batch):
    lengths = [len(ids) for ids, _ in batch]
    longest = max(lengths)  # error: XLA101
    out = torch.zeros(len(batch), longest, dtype=torch.long)
    for i, (ids, _) in enumerate(batch):
        out[i, : lengths[i]] = torch.tensor(ids)
    return out


def collate_pad_widths(batch):
    max_len = max(len(ids) for ids, _ in batch)  # error: XLA101
    return torch.stack([
        torch.nn.functional.pad(torch.tensor(ids), (0, max_len - len(ids)), value=PAD)
        for ids, _ in batch])


def collate_tensor_max(batch):
    lengths = torch.tensor([len(ids) for ids, _ in batch])
    frames = torch.zeros(len(batch), int(lengths.max()))  # error: XLA101
    return frames, lengths


def collate_capped(batch):
    # Capped, the longest length still changes from batch to batch up to the cap.
    n = min(max(map(len, (ids for ids, _ in batch))), MAX_LEN)  # error: XLA101
    return torch.zeros(len(batch), n, dtype=torch.long)


def collate_bucketed(batch):
    # Trap: rounded up to a multiple of 64, a bounded set of shapes.
    n = (max(len(ids) for ids, _ in batch) + 63) // 64 * 64
    return torch.zeros(len(batch), n, dtype=torch.long)


def collate_fixed_pad(batch):
    # Trap: F.pad to a fixed length.
    return torch.stack([
        torch.nn.functional.pad(torch.tensor(ids), (0, MAX_LEN - len(ids)), value=PAD)
        for ids, _ in batch])


DATASET_MAX = max(len(ids) for ids, _ in [([1, 2], 0), ([3], 1)])
LABEL_TOKENS = [[5, 6], [7, 8, 9], [10]]
HOP = 320


def collate_running_max(batch):
    max_len = 0
    for ids, _ in batch:
        max_len = max(max_len, len(ids))  # error: XLA101
    lengths = []
    for ids, _ in batch:
        lengths.append(len(ids))
    out = torch.full((len(batch), max_len), PAD, dtype=torch.long)
    frames = np.zeros((len(batch), max(lengths)))  # error: XLA101
    return out, torch.from_numpy(frames)


def collate_named_sizes(batch):
    n = max(len(ids) for ids, _ in batch)  # error: XLA101
    n = min(n, MAX_LEN)
    shape = (len(batch), n + 2)
    return torch.zeros(shape)


def collate_frames(batch):
    longest: int = max(w.size(0) for w, _ in batch)  # error: XLA101
    frames = math.ceil(longest / HOP)
    return torch.zeros(len(batch), frames, 80)


def collate_constants(batch):
    # Traps: a length fixed for the run (the dataset's longest, a config table's), the
    # longest only as a fill value, a power of two rounded up to.
    labels = torch.full((len(batch), max(len(t) for t in LABEL_TOKENS)), -100)
    ids = torch.full((len(batch), DATASET_MAX), PAD)
    lens = torch.full((1,), max(len(ids) for ids, _ in batch))
    width = 1 << (max(len(ids) for ids, _ in batch) - 1).bit_length()
    return labels, ids, lens, torch.zeros(len(batch), width)


def fit(model, optimizer, data):
    device = torch_xla.device()
    for fn in (collate, collate_masks, MelCollater(), collate_crops, collate_fixed,
               collate_lengths, collate_pad_widths, collate_tensor_max, collate_capped,
               collate_bucketed, collate_fixed_pad, collate_running_max, collate_named_sizes,
               collate_frames, collate_constants):
        loader = DataLoader(data, batch_size=32, collate_fn=fn, drop_last=True)
        for x, y in pl.MpDeviceLoader(loader, device):
            model(x).sum().backward()
            optimizer.step()
