"""Eval file for XLA102: a LightningDataModule's loaders handed to a Trainer whose
accelerator a module constant names (``ACCELERATOR = "tpu"``, then
``Trainer(accelerator=ACCELERATOR)``): Lightning runs the steps over them on the XLA
device, so each loader without ``drop_last`` ends its epoch with a short batch (also when
the Trainer is built and fitted in one expression). A constant naming the GPU puts
nothing on the XLA device."""
from lightning import LightningDataModule, Trainer
from torch.utils.data import DataLoader

ACCELERATOR = "tpu"
GPU_ACCELERATOR = "gpu"
BATCH_SIZE = 32


class Sentences(LightningDataModule):
    def __init__(self, train_ds, val_ds):
        super().__init__()
        self.train_ds, self.val_ds = train_ds, val_ds

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=BATCH_SIZE, shuffle=True)  # error: XLA102

    def val_dataloader(self):
        return DataLoader(self.val_ds, batch_size=BATCH_SIZE)  # error: XLA102


class GpuSentences(LightningDataModule):
    def __init__(self, train_ds):
        super().__init__()
        self.train_ds = train_ds

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=BATCH_SIZE, shuffle=True)


def main(model, train_ds, val_ds):
    trainer = Trainer(accelerator=ACCELERATOR, max_epochs=3)
    trainer.fit(model, Sentences(train_ds, val_ds))


class Tokens(LightningDataModule):
    def __init__(self, train_ds):
        super().__init__()
        self.train_ds = train_ds

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=BATCH_SIZE, shuffle=True)  # error: XLA102


def main_chained(model, train_ds):
    Trainer(accelerator=ACCELERATOR, max_epochs=1).fit(model, datamodule=Tokens(train_ds))


def main_gpu(model, train_ds):
    trainer = Trainer(accelerator=GPU_ACCELERATOR, devices=2)
    trainer.fit(model, GpuSentences(train_ds))


if __name__ == "__main__":
    main(None, [], [])
    main_chained(None, [])
