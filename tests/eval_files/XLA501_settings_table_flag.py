"""Eval file for XLA501 and XLA201: a branch on a settings table's flag
(``XLA_CFG["is_xla"]``, ``cfg["use_gpu"]``) is read by its key, as a flag attribute is:
the GPU branches are not the XLA path."""
import torch
import torch_xla.core.xla_model as xm

XLA_CFG = {"is_xla": False, "logging_interval": 20}


def train_one_epoch(model, loader, optimizer, device):
    for samples, targets in loader:
        if not XLA_CFG["is_xla"]:
            samples = samples.to(device, non_blocking=True)
            loss = model(samples, targets)
            print(loss.item())  # trap: GPU branch
            torch.cuda.synchronize()  # trap: GPU branch
        else:
            loss = model(samples, targets)
            print(loss.item())  # error: XLA201
        loss.backward()
        if XLA_CFG["is_xla"]:
            xm.reduce_gradients(optimizer)
        optimizer.step()
        xm.mark_step()  # error: XLA508


def main(model, loader, optimizer, cfg):
    XLA_CFG["is_xla"] = True
    device = xm.xla_device()  # error: XLA508
    if cfg["use_gpu"]:
        device = torch.device("cuda")  # trap: GPU branch
    train_one_epoch(model, loader, optimizer, device)
