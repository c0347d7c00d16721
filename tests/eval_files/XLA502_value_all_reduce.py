"""Eval file for XLA502: an all-reduce of the loss is not one of the gradients.

``xm.all_reduce(xm.REDUCE_SUM, loss.detach(), scale=...)`` averages one tensor (the
global loss, for logging): the gradients stay each replica's own, so a bare
``optimizer.step()`` after it still diverges the replicas. An all-reduce of the
gradient list (``xm._fetch_gradients(optimizer)``) before the step reduces them.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr


def reduce_mean(t):
    return xm.all_reduce(xm.REDUCE_SUM, t, scale=1.0 / xr.world_size())


def _mp_fn(index, loader, model):
    device = torch_xla.device()
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        global_loss = reduce_mean(loss.detach())
        optimizer.step()  # error: XLA502
        xm.add_step_closure(print, args=(global_loss,))


def _mp_fn_reduced(index, loader, model):
    device = torch_xla.device()
    model = model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        grads = xm._fetch_gradients(optimizer)
        xm.all_reduce(xm.REDUCE_SUM, grads, scale=1.0 / xr.world_size())
        optimizer.step()


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=(None, None))
    torch_xla.launch(_mp_fn_reduced, args=(None, None))
