"""Eval file for XLA502 (optimizer step without all-reduce in multi-replica training)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp


def _mp_fn(index, loader):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        optimizer.step()  # error: XLA502
    # Traps: the reducing step, or an explicit reduce first.
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        xm.optimizer_step(optimizer)
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        xm.reduce_gradients(optimizer)
        optimizer.step()


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=([],))
