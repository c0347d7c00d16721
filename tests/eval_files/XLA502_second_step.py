"""Eval file for XLA502: optimizer steps that skip or precede the gradient all-reduce."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from accelerate import Accelerator

device = torch_xla.device()


def double_step(model, loader, optimizer):
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
        optimizer.step()  # error: XLA502


def closure_step(model, loader, optimizer):
    for x in pl.MpDeviceLoader(loader, device):
        def closure():
            loss = model(x).sum()
            loss.backward()
            return loss
        xm.optimizer_step(optimizer, optimizer_args={"closure": closure})  # error: XLA502


def raw_optimizer(model, loader):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters())
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        accelerator.backward(model(batch).sum())
        optimizer.optimizer.step()  # error: XLA502
        # Trap: the prepared optimizer reduces on XLA.
        optimizer.step()


def branches(model, loader, optimizer, use_xla):
    # Trap: one step per path.
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        if use_xla:
            xm.optimizer_step(optimizer)
        else:
            optimizer.step()


def step_before_reduce(model, loader, optimizer):
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        optimizer.step()  # error: XLA502
        xm.optimizer_step(optimizer)
        optimizer.zero_grad()


def accumulate_then_reduce(model, loader, optimizer, probe):
    # Trap: a step of the gradients of an earlier backward, then new gradients reduced.
    for x in pl.MpDeviceLoader(loader, device):
        probe(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        model(x).sum().backward()
        xm.optimizer_step(optimizer)


def separate_branches(model, loader, optimizer, tpu):
    # Trap: the bare step runs only off the TPU, in a block of its own.
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        if not tpu:
            optimizer.step()
        if tpu:
            xm.optimizer_step(optimizer, barrier=True)


def one_expression(model, loader, optimizer, use_xla):
    # Trap: one step or the other, in a single (wrapped) conditional expression.
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        (optimizer.step() if not use_xla else
         xm.optimizer_step(optimizer, barrier=False))


def traced_step(model, loader, optimizer, xp):
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        with xp.Trace("opt"):
            optimizer.step()  # error: XLA502
        xm.optimizer_step(optimizer)


class Stepper:
    def __init__(self, optimizer, use_xla):
        self.optimizer, self.use_xla = optimizer, use_xla

    def step(self):
        # Trap: the XLA branch returns before the plain step.
        if self.use_xla:
            xm.optimizer_step(self.optimizer)
            return
        self.optimizer.step()


def forward_backward(model, x):
    model(x).sum().backward()


def two_micro_steps(model, loader, optimizer):
    # Trap: a helper computes new gradients between the two steps.
    for x in pl.MpDeviceLoader(loader, device):
        forward_backward(model, x)
        optimizer.step()
        optimizer.zero_grad()
        forward_backward(model, x)
        xm.optimizer_step(optimizer)
