"""Eval file for XLA201: meters, progress bars and callbacks that read a value every step."""
import lightning.pytorch as lp
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from ignite.engine import Engine, Events
from tqdm import tqdm

device = torch_xla.device()


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.sum += float(value) * n  # error: XLA201
        self.count += n


class DeviceMeter:
    def __init__(self):
        self.total = torch.zeros((), device=device)

    def update(self, value):
        # Trap: accumulates on the device, read once later.
        self.total += value.detach()


def train(model, loader, optimizer):
    meter, on_device, scalars = AverageMeter(), DeviceMeter(), AverageMeter()
    bar = tqdm(pl.MpDeviceLoader(loader, device))
    for x in bar:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        meter.update(loss)
        on_device.update(loss)
        bar.set_postfix(loss=loss)  # error: XLA201
        # Traps: host values, and a read in a step closure.
        bar.set_postfix(lr=optimizer.param_groups[0]["lr"])
        xm.add_step_closure(lambda v: scalars.update(v.item()), args=(loss,))
    print(on_device.total.item())


class Module(lp.LightningModule):
    def training_step(self, batch, batch_idx):
        loss = self.layer(batch).sum()
        self.log("train_loss", loss, prog_bar=True)  # error: XLA201
        # Traps: logged without the progress bar, or shown at the epoch's end only.
        self.log("other", loss)
        self.log("epoch_loss", loss, prog_bar=True, on_step=False, on_epoch=True)
        self.log("epoch_synced", loss, sync_dist=True, on_step=False, on_epoch=True)
        # sync_dist=True at each step: XLAStrategy.reduce is xm.mesh_reduce
        self.log("synced_loss", loss, sync_dist=True)  # error: XLA201
        return loss

    def validation_step(self, batch, batch_idx):
        loss = self.layer(batch).sum()
        self.log("val_loss", loss, prog_bar=True)  # (Lightning logs it per epoch here)
        self.log("val_step_loss", loss, prog_bar=True, on_step=True)  # error: XLA201
        self.log("val_synced", loss, sync_dist=True)  # (reduced once per epoch here)


def ignite_training(model, optimizer, loader):
    def step(engine, batch):
        optimizer.zero_grad()
        loss = model(batch.to(device)).sum()
        loss.backward()
        optimizer.step()
        return loss

    trainer = Engine(step)

    @trainer.on(Events.ITERATION_COMPLETED)
    def log(engine):
        print(f"loss {engine.state.output}")  # error: XLA201

    trainer.run(loader, max_epochs=1)


class Runner:
    def __init__(self, model, loader, device):
        self.model = model
        self.loader = loader
        self.device = device

    def fit(self, step_fn, opt):
        for x, y in self.loader:
            loss = step_fn(self.model, x.to(self.device), y.to(self.device))
            loss.backward()
            opt.step()
            torch_xla.sync()


def run_engine(model, loader, opt):
    # A callback handed to a method of an instance built in the same expression runs
    # in that method's step loop.
    def step_with_item(model, x, y):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        print("loss", loss.item())  # error: XLA201
        return loss

    def step_quiet(model, x, y):
        return torch.nn.functional.cross_entropy(model(x), y)

    device = torch_xla.device()
    Runner(model.to(device), loader, device).fit(step_with_item, opt)
    Runner(model.to(device), loader, device).fit(step_quiet, opt)


class Evaluator:
    """A callback stored by the constructor and called per batch as ``self.metric_fn``."""

    def __init__(self, model, loader, metric_fn, host_fn):
        self.model = model
        self.loader = loader
        self.metric_fn = metric_fn
        self.host_fn = host_fn

    def run(self):
        # (a plain loader: the forward pass runs only inside the stored callback)
        for x, y in self.loader:
            accuracy = self.metric_fn(self.model, x.to(device), y.to(device))
            print(f"acc={accuracy:.3f}")  # error: XLA201
            # Trap: the other callback returns a Python number.
            rate = self.host_fn(len(y))
            print(f"rate={rate:.3f}")


def run_evaluator(model, loader):
    def accuracy_of(model, x, y):
        return (model(x).argmax(-1) == y).float().mean()

    def per_second(n):
        return n / 0.5

    Evaluator(model.to(device), loader, accuracy_of, per_second).run()
