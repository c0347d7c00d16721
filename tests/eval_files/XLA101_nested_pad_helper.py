"""Eval file for XLA101: a padding helper whose nested function pads each item to a
length it is handed (``def pad(x, max_len)`` inside ``pad_2D``), called by the collate
method with the batch's longest length, against a caller-given length and a helper the
collate function does not reach."""
import numpy as np
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset

MAX_FRAMES = 1000


def pad_1d(inputs, pad_value=0):
    def pad_data(x, length, value):
        return np.pad(x, (0, length - x.shape[0]), mode="constant", constant_values=value)

    max_len = max(len(x) for x in inputs)  # error: XLA101
    return np.stack([pad_data(x, max_len, pad_value) for x in inputs])


def pad_2d(inputs, maxlen=None):
    def pad(x, max_len):
        return np.pad(x, ((0, max_len - np.shape(x)[0]), (0, 0)))

    if maxlen:
        return np.stack([pad(x, maxlen) for x in inputs])
    max_len = max(np.shape(x)[0] for x in inputs)  # error: XLA101
    return np.stack([pad(x, max_len) for x in inputs])


def pad_fixed(inputs):
    # Trap: the nested function is handed a constant length.
    def pad(x, length):
        return np.pad(x, (0, length - len(x)))

    return np.stack([pad(x, MAX_FRAMES) for x in inputs])


def pad_for_report(inputs):
    # Trap: no collate function reaches it (a host-side table of results).
    def pad(x, length):
        return np.pad(x, (0, length - len(x)))

    longest = max(len(x) for x in inputs)
    return np.stack([pad(x, longest) for x in inputs])


class SpeechSet(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]

    def reprocess(self, data, idxs):
        texts = pad_1d([data[i]["text"] for i in idxs])
        mels = pad_2d([data[i]["mel"] for i in idxs])
        pitch = pad_fixed([data[i]["pitch"] for i in idxs])
        return torch.from_numpy(texts), torch.from_numpy(mels), torch.from_numpy(pitch)

    def collate_fn(self, data):
        return self.reprocess(data, range(len(data)))


def fit(model, optimizer, items, results):
    device = torch_xla.device()
    dataset = SpeechSet(items)
    loader = DataLoader(dataset, batch_size=8, drop_last=True, collate_fn=dataset.collate_fn)
    for texts, mels, pitch in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        model(texts, mels, pitch).backward()
        optimizer.step()
        torch_xla.sync()
    return pad_for_report(results)
