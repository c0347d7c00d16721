"""Eval file for XLA104: nn.Module data transforms run by the Dataset, on the CPU.

A module class whose every instance is handed to a Dataset (alone, or inside
``nn.Sequential``) runs in the loader's workers on CPU tensors: its masks are no device
work. The same kind of module applied to the batch in the step runs on the device.
"""
import torch
import torch.nn as nn
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset


class ClipOutliers(nn.Module):
    def forward(self, spec):
        bad = ~torch.isfinite(spec) | (spec.abs() > 30.0)
        spec[bad] = 0.0
        return spec


class DropBadBins(nn.Module):
    def forward(self, spec):
        spec[spec.abs() > 30.0] = 0.0  # error: XLA104
        return spec


class SpecDataset(Dataset):
    def __init__(self, specs, transform=None):
        self.specs = specs
        self.transform = transform

    def __len__(self):
        return len(self.specs)

    def __getitem__(self, i):
        spec = self.specs[i]
        return self.transform(spec) if self.transform is not None else spec


def train(specs, model, optimizer):
    device = torch_xla.device()
    tf = nn.Sequential(ClipOutliers())
    loader = DataLoader(SpecDataset(specs, transform=tf), batch_size=32, drop_last=True)
    on_device = DropBadBins()
    for spec in pl.MpDeviceLoader(loader, device):
        loss = model(on_device(spec)).mean()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
