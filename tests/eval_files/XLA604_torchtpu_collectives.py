"""Eval file for XLA604 (gradient reduction, collectives, the 'xla' process group)."""
# flake8-xla: --xla-migrate=torchtpu
import torch
import torch.distributed as dist
import torch_xla.core.xla_model as xm  # error: XLA600
import torch_xla.distributed.xla_backend  # error: XLA600

dist.init_process_group("xla", init_method="xla://")  # error: XLA604


def step(model, optimizer, x, t):
    loss = model(x).sum()
    loss.backward()
    xm.reduce_gradients(optimizer)  # error: XLA604
    xm.optimizer_step(optimizer)  # error: XLA604
    total = xm.all_reduce(xm.REDUCE_SUM, t)  # error: XLA604
    xm.rendezvous("checkpoint")  # error: XLA604
    # Trap: torch.distributed itself is the counterpart.
    dist.all_reduce(t)
    return total, torch.distributed.get_rank()
