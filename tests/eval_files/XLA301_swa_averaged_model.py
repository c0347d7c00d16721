"""Eval file for XLA301: torch.optim.swa_utils.SWALR is a learning-rate scheduler, not an
optimizer, so an epoch loop that steps it after an inner loop over an MpDeviceLoader is
no training loop of its own; AveragedModel(model) is a module on the model's device,
whose BatchNorm recalibration over a plain loader, outputs dropped, runs nothing on the
device without a barrier."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.optim.swa_utils import SWALR, AveragedModel
from torch.utils.data import DataLoader


@torch.no_grad()
def recalibrate_bn(model, loader, device):
    model.train()
    for images, _ in loader:  # error: XLA301
        model(images.to(device))


def train(model, dataset, epochs=100, swa_start=75):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=128, shuffle=True, drop_last=True)
    model.to(device)
    swa_model = AveragedModel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    swa_scheduler = SWALR(optimizer, swa_lr=0.05)
    for epoch in range(epochs):  # trap: an epoch loop
        for images, labels in pl.MpDeviceLoader(loader, device):
            optimizer.zero_grad()
            F.cross_entropy(model(images), labels).backward()
            optimizer.step()
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
    recalibrate_bn(swa_model, loader, device)
