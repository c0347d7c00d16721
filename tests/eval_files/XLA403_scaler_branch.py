"""Eval file for XLA403: ``scaler.step(optimizer)`` in multi-replica training.

A GradScaler's ``step`` runs ``optimizer.step()`` with this replica's own gradients; the
all-reduce of ``xm.optimizer_step`` in the other branch of the same ``if`` never runs on
the AMP path (torch_xla's AMP examples all-reduce the gradients before ``scaler.step``).
(XLA402: ``torch.amp.GradScaler`` passes no ``found_inf`` to the syncfree optimizer.)
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
from torch_xla.amp import syncfree


class Trainer:
    def __init__(self, flags, loader):
        self.flags = flags
        self.device = torch_xla.device()
        self.model = torch.nn.Linear(4, 2).to(self.device)
        self.optimizer = syncfree.Adam(self.model.parameters())
        self.scaler = torch.amp.GradScaler("xla") if flags.amp else None
        self.loader = pl.MpDeviceLoader(loader, self.device)

    def step(self, x, y):
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        if self.flags.amp:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)  # error: XLA402, XLA403
            self.scaler.update()
        else:
            loss.backward()
            xm.optimizer_step(self.optimizer)

    def step_reduced(self, x, y):
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        xm.reduce_gradients(self.optimizer)
        self.scaler.step(self.optimizer)  # error: XLA402
        self.scaler.update()

    def fit(self):
        for x, y in self.loader:
            self.step(x, y)

    def fit_reduced(self):
        for x, y in self.loader:
            self.step_reduced(x, y)


def _mp_fn(index, flags, loader):
    trainer = Trainer(flags, loader)
    trainer.fit()
    trainer.fit_reduced()


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None, None))
