"""XLA301: what a loop's batches are, from how the code treats them.

A loop that moves its batches to the device only off the XLA path gets them, on XLA,
from a loader its caller passed in (an MpDeviceLoader marks the step): not reported.
"""
import lightning as L
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def train(model, optimizer, dataloader, device):
    for data, target in dataloader:
        if device.type != "xla":
            data, target = data.to(device), target.to(device)
        loss = torch.nn.functional.cross_entropy(model(data), target)
        loss.backward()
        if device.type == "xla":
            xm.optimizer_step(optimizer)
        else:
            optimizer.step()


def train_plain(model, optimizer, dataloader, device):
    for data, target in dataloader:  # error: XLA301
        data, target = data.to(device), target.to(device)
        loss = torch.nn.functional.cross_entropy(model(data), target)
        loss.backward()
        optimizer.step()


def fit(fabric: L.Fabric, model, optimizer, batches):
    """``fabric.backward(loss)`` is Lightning Fabric's backward, not a tensor's: ``fabric``
    is no lazy tensor, nor is what its other methods return."""
    for step in range(10):
        codes = fabric.to_device(next(batches))
        out = model(codes)
        head = codes[:, : model.offset]
        loss = out.sum() + head.float().sum()
        fabric.backward(loss)
        optimizer.step()
        torch_xla.sync()
        print(f"step {step}: lr {fabric.world_size}")


def main(model, optimizer, dataset):
    device = torch_xla.device()
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, drop_last=True)
    train_plain(model, optimizer, loader, device)
    if device.type == "xla":
        loader = pl.MpDeviceLoader(loader, device)
    train(model, optimizer, loader, device)
