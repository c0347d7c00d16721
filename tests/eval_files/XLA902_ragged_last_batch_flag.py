"""Eval file for XLA902 (opt-in): drop_last taken from a setting of the run."""
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

device = torch_xla.device()


def loaders(dataset, flags):
    flagged = DataLoader(dataset, batch_size=32, drop_last=flags.drop_last)  # error: XLA902
    # Traps: a literal choice, and a loader that never reaches the device.
    fixed = DataLoader(dataset, batch_size=32, drop_last=True)
    unused = DataLoader(dataset, batch_size=32, drop_last=flags.drop_last)
    return pl.MpDeviceLoader(flagged, device), pl.MpDeviceLoader(fixed, device), unused
