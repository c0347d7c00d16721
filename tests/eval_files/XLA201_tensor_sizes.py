"""Eval file for XLA201: a size or bound of a tensor factory given as a lazy 0-d tensor is
read on the host as a Python number (``torch.arange(lengths.max())``)."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl

MAX_LEN = 128


def sequence_mask(lengths, max_len=None):
    if max_len is None:
        max_len = lengths.max()
    ids = torch.arange(max_len, device=lengths.device)  # error: XLA201
    return ids.unsqueeze(0) < lengths.unsqueeze(1)


def fixed_mask(lengths):
    # Trap: a fixed bound; only the comparison involves the device lengths.
    ids = torch.arange(MAX_LEN, device=lengths.device)
    return ids.unsqueeze(0) < lengths.unsqueeze(1)


def train(model, optimizer, loader):
    device = torch_xla.device()
    for x, lengths in pl.MpDeviceLoader(loader, device):
        mask = sequence_mask(lengths)
        mask = mask & fixed_mask(lengths)[:, : mask.shape[1]]
        longest = lengths.max()
        ends = torch.arange(end=longest, device=device)  # error: XLA201
        fill = torch.full((4,), fill_value=longest, device=device)  # error: XLA201
        # Trap: sizes read from shapes are host ints under torch_xla.
        noise = torch.randn(x.shape[0], x.size(1), device=device)
        spans = torch.zeros(x.shape[0], int(MAX_LEN / 2), device=device)
        loss = (model(x + noise, mask) + spans.sum() + ends.sum() + fill.sum()).sum()
        loss.backward()
        optimizer.step()
