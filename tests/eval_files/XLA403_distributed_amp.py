"""Eval file for XLA403 (distributed AMP without gradient all-reduce)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch_xla.amp import syncfree


def _mp_fn(index, loader):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = syncfree.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("xla")
    for x in pl.MpDeviceLoader(loader, device):
        scaler.scale(model(x).sum()).backward()
        scaler.unscale_(optimizer)
        found_inf = sum(scaler._found_inf_per_device(optimizer).values())
        optimizer.step(found_inf=found_inf)  # error: XLA403
        scaler.update()
    for x in pl.MpDeviceLoader(loader, device):
        scaler.scale(model(x).sum()).backward()
        gradients = xm._fetch_gradients(optimizer)
        xm.all_reduce("sum", gradients, scale=1.0 / xr.world_size())
        scaler.unscale_(optimizer)
        found_inf = sum(scaler._found_inf_per_device(optimizer).values())
        optimizer.step(found_inf=found_inf)
        scaler.update()


def cuda_scaler_step(model, loader, optimizer):
    scaler = torch.amp.GradScaler("xla")
    for x in pl.MpDeviceLoader(loader, torch_xla.device()):
        scaler.scale(model(x).sum()).backward()
        scaler.step(optimizer)  # error: XLA403
        scaler.update()


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=([],))
