"""Eval file for XLA102: what a cut to whole batches does not prove. Rows cut to a
multiple of another batch size than the loader's (a helper's parameter of the same
name), cut by a cap rather than the rows' own length, or grown after the cut (a method
that extends them) may still end in a short batch. A script that stops unless the
dataset is a multiple of the batch size (``if len(ds) % bs: raise``, an ``assert``)
loads whole batches, but not when that check runs only under a flag."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, Dataset, TensorDataset

BATCH = 16


class Lines(Dataset):
    def __init__(self, rows, batch_size):
        self.rows = list(rows)
        keep = len(self.rows) // batch_size * batch_size
        self.rows = self.rows[:keep]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return torch.tensor(self.rows[i])


def fit(model, opt, loader):
    device = torch_xla.device()
    for x in pl.MpDeviceLoader(loader, device):
        loss = model(x).sum()
        loss.backward()
        xm.optimizer_step(opt)


def make_dataset(x, y, batch_size):
    n = len(x) // batch_size * batch_size
    return TensorDataset(x[:n], y[:n])


def train_capped(model, opt, x, y, max_samples):
    batch_size = 128
    # (cut to whole batches of 8, then loaded in batches of 128)
    fit(model, opt, DataLoader(make_dataset(x, y, 8), batch_size=batch_size))  # error: XLA102
    # (a cap that is a multiple, but not of the rows: fewer rows leave a short batch)
    n = max_samples // BATCH * BATCH
    fit(model, opt, DataLoader(TensorDataset(x[:n], y[:n]), batch_size=BATCH))  # error: XLA102


class Growing(Lines):
    def add_pseudo_labels(self, extra):
        self.rows.extend(extra)


def train_growing(model, opt, rows, extra):
    ds = Growing(rows, BATCH)
    ds.add_pseudo_labels(extra)
    fit(model, opt, DataLoader(ds, batch_size=BATCH))  # error: XLA102


def train_checked(model, opt, train_ds, test_ds, batch_size):
    # (the script refuses datasets that are no multiple of the batch size)
    train_size = len(train_ds)
    if train_size % batch_size != 0:
        raise ValueError(f"{train_size} is no multiple of {batch_size}")
    assert len(test_ds) % batch_size == 0
    fit(model, opt, DataLoader(train_ds, batch_size=batch_size, shuffle=True))  # trap
    fit(model, opt, DataLoader(test_ds, batch_size=batch_size))  # trap


def train_unchecked(model, opt, train_ds, batch_size, strict):
    if strict:
        if len(train_ds) % batch_size:
            raise ValueError("ragged")
    fit(model, opt, DataLoader(train_ds, batch_size=batch_size))  # error: XLA102
