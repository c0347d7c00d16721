"""Eval file for XLA102: DataLoaders handed to a Lightning Trainer on the TPU.

``trainer.fit(model, train_loader, val_loader)`` with ``pl.Trainer(tpu_cores=8)`` (or
``accelerator="tpu"``) runs the training and validation steps over those loaders on the
XLA device: each one without ``drop_last`` ends its epoch with a short batch. A Trainer
for GPUs puts nothing on the XLA device. ``limit_train_batches``/``limit_val_batches``
of a number of batches or a fraction below 1.0 stop the epoch before its last batch;
1.0 (the non-debug run's value) runs the whole loader.
"""
import pytorch_lightning as pl
from torch.utils.data import DataLoader


def main(model, train_ds, val_ds):
    train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)  # error: XLA102
    val_loader = DataLoader(val_ds, batch_size=64)  # error: XLA102
    trainer = pl.Trainer(tpu_cores=8, max_epochs=3)
    trainer.fit(model, train_loader, val_loader)


def main_gpu(model, train_ds):
    loader = DataLoader(train_ds, batch_size=32, shuffle=True)
    trainer = pl.Trainer(accelerator="gpu", devices=2)
    trainer.fit(model, train_dataloaders=loader)


def main_limited(model, train_ds, val_ds, args):
    if args.debug:
        limit = 100
    else:
        limit = 1.0
    train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)  # error: XLA102
    val_loader = DataLoader(val_ds, batch_size=64)
    trainer = pl.Trainer(tpu_cores=8, limit_train_batches=limit, limit_val_batches=0.25)
    trainer.fit(model, train_loader, val_loader)
