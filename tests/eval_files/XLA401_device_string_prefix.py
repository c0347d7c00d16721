"""Eval file for XLA401: branches on the prefix of a device string.

``args.device.startswith("xla")`` holds on the XLA path (``"xla"``, ``"xla:0"``), as
``args.device == "xla"`` does: its ``else`` is the GPU path. ``startswith("cuda")`` fails
there, so its ``else`` runs on XLA.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


def train(args, model, loader, optimizer):
    if args.device.startswith("xla"):
        device = torch_xla.device()
        scaler = None
    else:
        device = torch.device(args.device)
        scaler = torch.cuda.amp.GradScaler()
    model.to(device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        if args.device.startswith("xla"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            xm.optimizer_step(optimizer, barrier=True)
        else:
            with torch.cuda.amp.autocast():
                loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        optimizer.zero_grad()


def evaluate(args, model, loader):
    device = torch_xla.device()
    for x, _ in loader:
        if args.device.startswith("cuda"):
            out = model(x.to(device))
        else:
            with torch.cuda.amp.autocast():  # error: XLA401
                out = model(x.to(device))
        torch_xla.sync()
        del out
