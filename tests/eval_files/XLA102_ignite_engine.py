"""Eval file for XLA102: loaders that an ignite engine on the XLA device runs.

``create_supervised_trainer(..., device=<XLA device>)`` and ``Engine(process_fn)`` with
a training step draw every batch of ``engine.run(loader)`` through the step on the
device, so a loader without ``drop_last`` ends each epoch with a new batch shape.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import ignite.distributed as idist
from ignite.engine import Engine, create_supervised_evaluator, create_supervised_trainer
from torch.utils.data import DataLoader


def loaders(train_set, val_set, batch_size):
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True)  # error: XLA102
    val = DataLoader(val_set, batch_size=batch_size)  # error: XLA102
    return train, val


def run(model, optimizer, train_set, val_set):
    device = torch_xla.device()
    model.to(device)
    train_loader, val_loader = loaders(train_set, val_set, 64)
    trainer = create_supervised_trainer(model, optimizer, torch.nn.functional.nll_loss,
                                        device=device)
    evaluator = create_supervised_evaluator(model, device=device)
    trainer.run(train_loader, max_epochs=3)
    evaluator.run(val_loader)


def run_custom(model, optimizer, dataset):
    device = torch_xla.device()
    model.to(device)

    def train_step(engine, batch):
        x, y = batch[0].to(device), batch[1].to(device)
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer, barrier=True)
        return loss

    data = DataLoader(dataset, batch_size=32)  # error: XLA102
    full = DataLoader(dataset, batch_size=32, drop_last=True)
    engine = Engine(train_step)
    engine.run(data, max_epochs=2)
    engine.run(full, max_epochs=2)


def run_on_cpu(model, optimizer, dataset):
    # Trap: an engine on the CPU.
    cpu_loader = DataLoader(dataset, batch_size=32)
    trainer = create_supervised_trainer(model, optimizer, torch.nn.functional.nll_loss,
                                        device="cpu")
    trainer.run(cpu_loader, max_epochs=1)


def run_parallel(local_rank, model, optimizer, dataset):
    # ignite's backend device: the XLA device under ``idist.Parallel(backend="xla-tpu")``
    device = idist.device()
    loader = DataLoader(dataset, batch_size=32, shuffle=True)  # error: XLA102
    trainer = create_supervised_trainer(model.to(device), optimizer,
                                        torch.nn.functional.nll_loss, device=device)
    trainer.run(loader, max_epochs=2)


def main(model, optimizer, dataset):
    with idist.Parallel(backend="xla-tpu", nproc_per_node=8) as parallel:
        parallel.run(run_parallel, model, optimizer, dataset)
