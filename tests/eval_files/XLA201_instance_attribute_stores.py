"""Eval file for XLA201: a training loop stores a lazy loss into an attribute of a state
object (``state.loss = loss.detach()``, outside the class's methods) and hands the object
to a logging helper, which formats that attribute once per step. Attributes that only
ever hold host values (``state.step``, or the same name on another class's instances)
stay silent."""
import logging
from dataclasses import dataclass
from typing import Any

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl

log = logging.getLogger("train")


@dataclass
class TrainState:
    step: int = 0
    loss: Any = None


class Summary:
    def __init__(self):
        self.loss = 0.0
        self.step = 0


def log_state(state):
    log.info("step %d loss %.4f", state.step, state.loss)  # error: XLA201


def log_summary(summary):
    log.info("step %d loss %.4f", summary.step, summary.loss)


def train(model, loader, opt):
    device = torch_xla.device()
    model.to(device)
    state = TrainState()
    summary = Summary()
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        state.loss = loss.detach()
        state.step += 1
        summary.loss = 0.5
        summary.step = state.step
        log_state(state)
        log_summary(summary)


class Meter:
    def __init__(self):
        self.val = 0.0


def log_meter(meter):
    log.info("latest %.3f", meter.val)  # (a loss meter and a timer share the class)


def train_with_meters(model, loader, opt, clock):
    device = torch_xla.device()
    model.to(device)
    loss_meter, step_time = Meter(), Meter()
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loss_meter.val = loss.detach()
        step_time.val = clock() - 1.0
        log_meter(step_time)
