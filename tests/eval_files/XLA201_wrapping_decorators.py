"""Eval file for XLA201: functions wrapped by a decorator of the project.

A call of ``@timed def train_step(...)`` runs the wrapper ``timed`` returns, with the
decorated function as its ``fn``: ``float(loss)`` in that wrapper reads each step's
loss on the host. A decorator whose wrapper hands ``fn`` to ``xm.add_step_closure``
makes the decorated function a step closure: its reads run after the step's graph. One
that calls ``fn`` on the master replica only still reads there every step.
"""
import functools
import time

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        loss = fn(*args, **kwargs)
        print(f"{fn.__name__}: {time.perf_counter() - t0:.3f}s loss={float(loss):.4f}")  # error: XLA201
        return loss
    return wrapper


def after_step(fn):
    def schedule(*args):
        xm.add_step_closure(fn, args=args)
    return schedule


def master_only(fn):
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        if xm.is_master_ordinal():
            return fn(*args, **kwargs)
        return None
    return wrapped


@master_only
def log_step(step, loss):
    print(f"step {step}: loss {loss.item():.4f}")  # error: XLA201


@timed
def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


@after_step
def report(step, loss):
    print(f"step {step}: loss {loss.item():.4f}")


def train(model, loader, optimizer):
    device = torch_xla.device()
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = train_step(model, optimizer, x, y)
        report(step, loss)
        log_step(step, loss)
