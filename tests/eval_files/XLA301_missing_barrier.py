"""Eval file for XLA301 (missing step barrier)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader

device = torch_xla.device()


def no_barrier(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    for x, y in loader:  # error: XLA301
        loss = model(x.to(device), y.to(device))
        loss.backward()
        optimizer.step()


def optimizer_step_without_barrier(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    for batch in loader:  # error: XLA301
        model(batch.to(device)).backward()
        xm.optimizer_step(optimizer)


def while_loop(model, dataset, optimizer):
    it = iter(DataLoader(dataset, batch_size=8, drop_last=True))
    while True:  # error: XLA301
        batch = next(it)
        model(batch.to(device)).backward()
        optimizer.step()


def helper_step(model, batch, optimizer):
    model(batch).backward()
    optimizer.step()


def via_helper(model, dataset, optimizer):
    for batch in DataLoader(dataset, batch_size=4, drop_last=True):  # error: XLA301
        helper_step(model, batch.to(device), optimizer)


# Traps below: every loop has a barrier.
def with_sync(model, dataset, optimizer):
    for batch in DataLoader(dataset, batch_size=4, drop_last=True):  # error: XLA302
        model(batch.to(device)).backward()
        optimizer.step()
        torch_xla.sync()


def with_mark_step(model, dataset, optimizer):
    for batch in DataLoader(dataset, batch_size=4, drop_last=True):  # error: XLA302
        model(batch.to(device)).backward()
        optimizer.step()
        xm.mark_step()  # error: XLA508


def with_barrier_true(model, dataset, optimizer):
    for batch in DataLoader(dataset, batch_size=4, drop_last=True):  # error: XLA302
        model(batch.to(device)).backward()
        xm.optimizer_step(optimizer, barrier=True)


def with_device_loader(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=4, drop_last=True)
    for batch in pl.MpDeviceLoader(loader, device):
        model(batch).backward()
        optimizer.step()


def with_parallel_loader(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=4, drop_last=True)
    for batch in pl.ParallelLoader(loader, [device]).per_device_loader(device):
        model(batch).backward()
        optimizer.step()


def sync_in_helper(model, dataset, optimizer):
    def step(batch):
        model(batch).backward()
        optimizer.step()
        torch_xla.sync()

    for batch in DataLoader(dataset, batch_size=4, drop_last=True):  # error: XLA302
        step(batch.to(device))


def accumulation(model, dataset, optimizer, k):
    for batch in DataLoader(dataset, batch_size=4, drop_last=True):
        for micro in batch.to(device).chunk(k):
            model(micro).backward()
        optimizer.step()
        torch_xla.sync()


@torch_xla.compile
def compiled_epoch(model, batches, optimizer):
    for batch in batches:
        model(batch).backward()
        optimizer.step()


def step_context(model, dataset, optimizer):
    for batch in DataLoader(dataset, batch_size=4, drop_last=True):  # error: XLA302
        with torch_xla.step():
            model(batch.to(device)).backward()
            optimizer.step()


def outputs_dropped(model, dataset):
    # A forward pass per batch whose output nothing keeps: in eval mode no graph ever
    # runs (a warm-up or throughput loop that measures tracing), in train mode each
    # pass chains BatchNorm's running statistics into one growing graph.
    with torch.no_grad():
        for batch in DataLoader(dataset, batch_size=4, drop_last=True):  # error: XLA301
            model(batch.to(device))
    torch_xla.sync()


def unknown_source(model, loader, optimizer):
    # Trap: a loader parameter with no visible call site may be an MpDeviceLoader.
    for batch in loader:
        model(batch).backward()
        optimizer.step()


def epoch_barrier_only(model, dataset, optimizer):
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    for _ in range(3):
        for batch in loader:  # error: XLA301
            model(batch.to(device)).backward()
            optimizer.step()
        torch_xla.sync()


def micro_steps(model, batch, optimizer, k):
    # Trap: gradient accumulation inside a step whose caller places the barrier.
    for micro in batch.chunk(k):
        model(micro).backward()
    optimizer.step()


def caller(model, loader, optimizer):
    for batch in pl.MpDeviceLoader(loader, device):
        micro_steps(model, batch, optimizer, 4)


def next_of_device_loader(model, loader, optimizer, steps):
    # Trap: MpDeviceLoader.__next__ marks the step.
    it = iter(pl.MpDeviceLoader(loader, device))
    for _ in range(steps):
        model(next(it)).backward()
        optimizer.step()


def zipped_device_loader(model, dataset, optimizer, iterations):
    import itertools

    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    device_loader = pl.MpDeviceLoader(loader, device)
    for i, (x, y) in zip(range(iterations), itertools.cycle(device_loader)):  # trap: each iteration takes a batch of the XLA loader
        loss = model(x, y)
        loss.backward()
        optimizer.step()


def zipped_plain_loaders(model, dataset, optimizer):
    a = DataLoader(dataset, batch_size=8, drop_last=True)
    b = DataLoader(dataset, batch_size=8, drop_last=True)
    for (x, y), (u, v) in zip(a, b):  # error: XLA301
        loss = model(x.to(device), y.to(device)) + model(u.to(device), v.to(device))
        loss.backward()
        optimizer.step()
