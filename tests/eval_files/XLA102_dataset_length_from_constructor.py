"""Eval file for XLA102: a dataset class whose ``__len__`` returns an attribute that its
``__init__`` sets from a constructor argument.

Each construction has its own size: 8000 synthetic samples in batches of 32 are all
full batches, 2000 leave a last batch of 16. An attribute that another method may
change, or one set under a condition, has no known size (any size may leave a
remainder)."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset


class SyntheticTokens(Dataset):
    def __init__(self, vocab_size=1000, seq_len=64, num_samples=10000):
        self.num_samples = num_samples
        self.data = [torch.randint(1, vocab_size, (seq_len,)) for _ in range(num_samples)]

    def __len__(self):
        return self.num_samples

    def __getitem__(self, idx):
        return self.data[idx]


class Resampled(Dataset):
    def __init__(self, num_samples, debug=False):
        self.size = num_samples
        if debug:
            self.size = 100

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        return torch.randint(1, 1000, (64,))


def create_loaders(batch_size=32):
    train = SyntheticTokens(1000, 64, num_samples=8000)
    val = SyntheticTokens(1000, 64, num_samples=2000)
    train_loader = DataLoader(train, batch_size=batch_size, shuffle=True)
    val_loader = DataLoader(val, batch_size=batch_size)  # error: XLA102
    extra = DataLoader(Resampled(8000), batch_size=batch_size)  # error: XLA102
    return train_loader, val_loader, extra


def main(model, optimizer):
    device = torch_xla.device()
    train_loader, val_loader, extra = create_loaders(32)
    for tokens in pl.MpDeviceLoader(train_loader, device):
        loss = model(tokens).mean()
        loss.backward()
        optimizer.step()
    for loader in (val_loader, extra):
        for tokens in pl.MpDeviceLoader(loader, device):
            model(tokens)
