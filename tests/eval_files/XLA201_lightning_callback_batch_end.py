"""Eval file for XLA201: a Lightning Callback's per-batch hooks on a TPU Trainer.

The Trainer calls ``on_train_batch_end(trainer, pl_module, outputs, batch, batch_idx)``
after every training batch, with the step's outputs and batch on the XLA device:
``outputs["loss"].item()`` there copies the loss to the host each step. The epoch hook
runs once per epoch, and the hook's ``batch_idx`` is a Python int.
"""
import statistics

import lightning.pytorch as L
import torch_xla.core.xla_model as xm


class LossHistory(L.Callback):
    def __init__(self):
        self.losses = []
        self.device_losses = []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.losses.append(outputs["loss"].item())  # error: XLA201
        self.device_losses.append(outputs["loss"].detach())
        if batch_idx % 100 == 0:
            xm.add_step_closure(print, args=(batch_idx,))

    def on_train_epoch_end(self, trainer, pl_module):
        losses = [t.item() for t in self.device_losses]
        print(statistics.median(losses))
        self.device_losses.clear()


def fit(module, loader):
    trainer = L.Trainer(accelerator="tpu", devices=8, max_epochs=5, callbacks=[LossHistory()])
    trainer.fit(module, loader)
