"""Eval file for XLA502: gradients all-reduced by a helper the step calls.

``allreduce_grads(opt)`` runs ``xm.reduce_gradients(optimizer)`` on its parameter: the
optimizer the step then steps. A step with no all-reduce on its path is reported.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr


def allreduce_grads(optimizer):
    if xr.world_size() > 1:
        xm.reduce_gradients(optimizer)


def _mp_fn(index, loader, model):
    device = torch_xla.device()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for x, y in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        allreduce_grads(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()


def _unreduced(index, loader, model):
    device = torch_xla.device()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for x, y in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()  # error: XLA502


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=(None, None))
    torch_xla.launch(_unreduced, args=(None, None))
