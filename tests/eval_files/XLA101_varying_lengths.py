"""Eval file for XLA101: batches whose sequence length varies from step to step."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from fairseq.data import data_utils
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

device = torch_xla.device()


def token_budget_batches(dataset, max_tokens):
    # Token-budget batching: each batch has its own size and length.
    return data_utils.batch_by_size(dataset.ordered_indices(), dataset.num_tokens,  # error: XLA101
                                    max_tokens=max_tokens)


def train(model, optimizer, loader):
    for tokens in pl.MpDeviceLoader(loader, device):
        # The step pads the batch to its own longest sequence.
        batch = pad_sequence(tokens, batch_first=True)  # error: XLA101
        model(batch).sum().backward()
        optimizer.step()


def pad_collate(samples):
    return pad_sequence(samples, batch_first=True)  # error: XLA101


def fixed_collate(samples, length=128):
    # Trap: padded again to one fixed length.
    batch = pad_sequence(samples, batch_first=True)
    return F.pad(batch, (0, length - batch.size(1)))


def bucketed(dataset, input_shapes):
    # Trap: the project's own bucketing into a few fixed shapes.
    return sorted(dataset, key=len)[: len(input_shapes)]


def loaders(dataset):
    a = DataLoader(dataset, batch_size=8, collate_fn=pad_collate, drop_last=True)
    b = DataLoader(dataset, batch_size=8, collate_fn=fixed_collate, drop_last=True)
    return a, b
