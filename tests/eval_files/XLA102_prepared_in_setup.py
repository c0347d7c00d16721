"""Eval file for XLA102: a trainer class builds its loaders in ``setup()`` and then, later in
the same method, replaces them with what ``accelerator.prepare`` returns (prepared
loaders even out the batches); the training loop in another method iterates the
prepared ones. A loader that a later branch only may replace stays the one iterated."""
import torch
import torch_xla
from accelerate import Accelerator
from torch.utils.data import DataLoader


class Task:
    def __init__(self, model, train_set, eval_set, use_prepare):
        self.accelerator = Accelerator()
        self.model = model
        self.train_set = train_set
        self.eval_set = eval_set
        self.use_prepare = use_prepare

    def setup(self):
        self.train_dataloader = DataLoader(self.train_set, batch_size=32, shuffle=True)  # trap: prepared below
        self.eval_dataloader = DataLoader(self.eval_set, batch_size=64)  # error: XLA102
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        (
            self.model,
            self.optimizer,
            self.train_dataloader,
        ) = self.accelerator.prepare(self.model, optimizer, self.train_dataloader)
        if self.use_prepare:
            self.eval_dataloader = self.accelerator.prepare(self.eval_dataloader)

    def train(self):
        self.setup()
        for batch in self.train_dataloader:
            loss = self.model(**batch).loss
            self.accelerator.backward(loss)
            self.optimizer.step()
            self.optimizer.zero_grad()
        device = torch_xla.device()
        self.model.eval()
        for batch in self.eval_dataloader:
            with torch.no_grad():
                self.model(**{k: v.to(device) for k, v in batch.items()})
            torch_xla.sync()


class EarlyExitTask(Task):
    """The first loader stays visible when the method may stop, or run code of its own,
    before the replacement."""

    def setup(self):
        self.train_dataloader = DataLoader(self.train_set, batch_size=32, shuffle=True)
        self.eval_dataloader = DataLoader(self.eval_set, batch_size=64)  # error: XLA102
        if not self.use_prepare:
            return
        self.eval_dataloader = self.accelerator.prepare(self.eval_dataloader)

    def build(self):
        self.val_dataloader = DataLoader(self.eval_set, batch_size=48)  # error: XLA102
        self.warm_up()
        self.val_dataloader = self.accelerator.prepare(self.val_dataloader)

    def build_aux(self):
        self.aux_dataloader = DataLoader(self.eval_set, batch_size=16)  # trap: prepared below
        self.log_sizes()
        self.aux_dataloader = self.accelerator.prepare(self.aux_dataloader)

    def log_sizes(self):
        print(len(self.train_set), len(self.eval_set))

    def warm_up(self):
        device = torch_xla.device()
        for batch in self.val_dataloader:
            self.model(**{k: v.to(device) for k, v in batch.items()})
            torch_xla.sync()

    def evaluate(self):
        self.setup()
        self.build()
        self.build_aux()
        device = torch_xla.device()
        for batch in self.aux_dataloader:
            self.model(**batch)
            torch_xla.sync()
        for batch in self.eval_dataloader:
            with torch.no_grad():
                self.model(**{k: v.to(device) for k, v in batch.items()})
            torch_xla.sync()
