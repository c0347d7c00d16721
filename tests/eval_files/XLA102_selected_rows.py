"""Eval file for XLA102: a dataset cut to a known number of rows (``ds.select(range(n))``
of a DatasetDict split, ``Subset(ds, range(n))``) leaves no short last batch when the
batch size divides that number."""
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from datasets import load_dataset
from torch.utils.data import DataLoader, Subset

ROWS = 1000
BATCH = 8


def loaders(base):
    data = load_dataset("yelp_review_full")
    data.set_format("torch")
    small_train = data["train"].shuffle(seed=42).select(range(ROWS))
    small_eval = data["test"].select(range(0, 640))
    picked = list(range(128))
    return [
        # Traps: 1000 rows by 8, 640 by 64, 96 by 32.
        DataLoader(small_train, shuffle=True, batch_size=BATCH),
        DataLoader(small_eval, batch_size=64),
        DataLoader(Subset(base, range(96)), batch_size=32),
        DataLoader(Subset(base, picked), batch_size=32),
        DataLoader(Subset(base, [0, 1, 2, 3]), batch_size=2),
        # These do not divide: 1000 by 16, 640 by 100, a split of unknown size.
        DataLoader(small_train, batch_size=16),  # error: XLA102
        DataLoader(small_eval, batch_size=100),  # error: XLA102
        DataLoader(data["validation"], batch_size=BATCH),  # error: XLA102
    ]


def fit(model, optimizer, base):
    device = torch_xla.device()
    for loader in loaders(base):
        for batch in pl.MpDeviceLoader(loader, device):
            model(**batch).loss.backward()
            optimizer.step()
