"""Eval file for XLA102: loaders whose last batch can or cannot be short."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import torchvision
from torch.utils.data import DataLoader, IterableDataset, RandomSampler, TensorDataset

N_ROWS = 4096


class TokenStream(IterableDataset):
    """Fixed blocks from an endless stream: no last batch at all."""

    def __init__(self, source):
        self.source = source

    def __iter__(self):
        for block in self.source:
            yield torch.tensor(block)


class ChunkedRows(torch.utils.data.Dataset):
    """Each item is already a batch."""

    def __init__(self, rows, chunk):
        self.rows, self.chunk = rows, chunk

    def __len__(self):
        return len(self.rows) // self.chunk

    def __getitem__(self, i):
        return self.rows[i * self.chunk:(i + 1) * self.chunk]


def loaders(source, rows, train_ds):
    device = torch_xla.device()
    even = TensorDataset(torch.randn(N_ROWS, 16), torch.randn(N_ROWS, 1))
    uneven = TensorDataset(torch.zeros((1000, 16)), torch.zeros(1000))
    built = [
        DataLoader(even, batch_size=64, shuffle=True),
        DataLoader(uneven, batch_size=64, shuffle=True),  # error: XLA102
        DataLoader(even, batch_size=64, sampler=None),  # trap: the default sampler, 64 rows
        DataLoader(uneven, batch_size=64, sampler=None),  # error: XLA102
        DataLoader(uneven, batch_size=len(uneven)),
        DataLoader(TokenStream(source), batch_size=8),
        DataLoader(ChunkedRows(rows, 32), batch_size=None),
        DataLoader(train_ds, batch_size=32,
                   sampler=RandomSampler(train_ds, replacement=True, num_samples=10 ** 9)),
        DataLoader(train_ds, batch_size=32,
                   sampler=RandomSampler(train_ds, replacement=True, num_samples=3200)),
        DataLoader(train_ds, batch_size=32,  # error: XLA102
                   sampler=RandomSampler(train_ds, replacement=True, num_samples=1000)),
    ]
    return [pl.MpDeviceLoader(b, device) for b in built]


def train_split_sizes(model, optimizer):
    # Oxford Flowers' validation split (1,020 images) in batches of 34 divides evenly; the
    # SVHN training split (73,257 images) in batches of 64 does not.
    device = torch_xla.device()
    flowers = DataLoader(torchvision.datasets.Flowers102("data", split="val"), batch_size=34)
    digits = DataLoader(torchvision.datasets.SVHN("data", split="train"),  # error: XLA102
                        batch_size=64, shuffle=True)
    # USPS's 7,291 training images in batches of 317 divide evenly, its 2,007 test images
    # in batches of 96 do not; Food-101's 75,750 training images in batches of 250 do.
    usps_train = DataLoader(torchvision.datasets.USPS("data", train=True), batch_size=317)
    usps_test = DataLoader(torchvision.datasets.USPS("data", train=False),  # error: XLA102
                           batch_size=96)
    food = DataLoader(torchvision.datasets.Food101("data"), batch_size=250, shuffle=True)
    for loader in (flowers, digits, usps_train, usps_test, food):
        for x, y in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
