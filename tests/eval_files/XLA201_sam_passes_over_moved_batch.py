"""Eval file for XLA201/XLA403: a loop over batches of unknown origin that moves its own
loop variables to the device and runs a training loop over ``range(...)`` (SAM's two
passes of one batch) is the step loop: what it prints per batch is a per-step read. The
device chosen as ``if device is None: device = torch_xla.device()`` (handed to the
launcher through a tuple named ``arg_list``) is the XLA device, so a branch for CUDA or
CPU devices is off the XLA path there."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.xla_multiprocessing as xmp


def train_model(model, datasets, optimizer, device, use_sam=False):
    train_loader, _ = datasets
    if device.type != "xla":
        scaler = torch.amp.GradScaler(device.type)
    else:
        scaler = torch.amp.GradScaler("cpu")
    total = 0
    for (x, y) in train_loader:
        x, y = x.to(device), y.to(device)
        for _ in range(int(use_sam) + 1):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            if device.type in {"cuda", "cpu", "mps"}:
                scaler.scale(loss).backward()
                scaler.step(optimizer)  # trap: off the XLA path
                scaler.update()
            elif device.type == "xla":
                loss.backward()
                xm.optimizer_step(optimizer)
                optimizer.zero_grad()
                torch_xla.sync()
        total += loss.detach()
        print(f"running loss {total:.3f}")  # error: XLA201


def _worker(rank, world_size, device, model, datasets, optimizer):
    if device is None:
        device = torch_xla.device()
    train_model(model.to(device), datasets, optimizer, device)


def launch(device_type, model, datasets, optimizer):
    device = None if device_type == "xla" else torch.device(device_type)
    arg_list = (8, device, model, datasets, optimizer)
    xmp.spawn(_worker, args=arg_list)
