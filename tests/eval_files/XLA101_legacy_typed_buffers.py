"""Eval file for XLA101: a collate class that sizes legacy typed tensors by the batch.

``torch.LongTensor(len(batch), max_len)`` is an uninitialised tensor of that shape: sized
by the longest item, each batch has another length. The same buffer at a fixed length,
filled by slice, leaves every batch at that length.
"""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

MAX_TEXT = 190


class TextAudioCollate:
    """Zero-pads text and spectrograms to the longest item of the batch."""

    def __call__(self, batch):
        max_text_len = max([len(x[0]) for x in batch])  # error: XLA101
        max_spec_len = max([x[1].size(1) for x in batch])  # error: XLA101
        text_padded = torch.LongTensor(len(batch), max_text_len)
        spec_padded = torch.FloatTensor(len(batch), batch[0][1].size(0), max_spec_len)
        text_padded.zero_()
        spec_padded.zero_()
        for i, (text, spec) in enumerate(batch):
            text_padded[i, : text.size(0)] = text
            spec_padded[i, :, : spec.size(1)] = spec
        return text_padded, spec_padded


class FixedTextCollate:
    def __call__(self, batch):
        text_padded = torch.LongTensor(len(batch), MAX_TEXT)
        text_padded.zero_()
        for i, (text, _) in enumerate(batch):
            text_padded[i, : text.size(0)] = text[:MAX_TEXT]
        lengths = torch.LongTensor([len(x[0]) for x in batch])
        return text_padded, lengths


def train(dataset, model, optimizer):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=16, drop_last=True, collate_fn=TextAudioCollate())
    fixed = DataLoader(dataset, batch_size=16, drop_last=True, collate_fn=FixedTextCollate())
    for (text, spec), (fixed_text, lengths) in zip(pl.MpDeviceLoader(loader, device),
                                                   pl.MpDeviceLoader(fixed, device)):
        loss = model(text, spec, fixed_text, lengths)
        loss.backward()
        optimizer.step()
        torch_xla.sync()
