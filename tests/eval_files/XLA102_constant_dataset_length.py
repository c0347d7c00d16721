"""Eval file for XLA102: a dataset class whose ``__len__`` returns a constant.

``N_TRAIN = BATCH_SIZE * STEPS``: the batch size divides the dataset's size, so every
batch is full. A size the batch size does not divide leaves a ragged last batch.
"""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset

BATCH_SIZE = 128
STEPS = 500
N_TRAIN = BATCH_SIZE * STEPS
N_VALID = 10_000


class PackedTokens(Dataset):
    def __len__(self):
        return N_TRAIN

    def __getitem__(self, idx):
        return torch.randint(0, 32000, (257,))


class HeldOut(Dataset):
    def __len__(self):
        return N_VALID

    def __getitem__(self, idx):
        return torch.randint(0, 32000, (257,))


def main(model, optimizer):
    device = torch_xla.device()
    loader = DataLoader(PackedTokens(), batch_size=BATCH_SIZE, shuffle=True)
    valid = DataLoader(HeldOut(), batch_size=BATCH_SIZE)  # error: XLA102
    for tokens in pl.MpDeviceLoader(loader, device):
        loss = model(tokens).mean()
        loss.backward()
        optimizer.step()
    for tokens in pl.MpDeviceLoader(valid, device):
        model(tokens)
