"""Eval file for XLA201: a recursive helper that copies a nested state to the CPU
(``to_host(v)`` for each item of a dict, list or tuple) builds what a checkpoint save
writes when every call of it from elsewhere is in the saved object; its own calls of
itself pass their result on. The same helper shape whose result is logged per step
copies lazy tensors to the host every step."""
import torch
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def to_host(obj):
    if torch.is_tensor(obj):
        return obj.detach().cpu()  # trap: a checkpoint's copy
    if isinstance(obj, dict):
        return {k: to_host(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_host(v) for v in obj)
    return obj


def save_state(path, step, model, optimizer):
    state = to_host({"step": step, "model": model.state_dict(),
                     "optimizer": optimizer.state_dict()})
    if xm.is_master_ordinal():
        torch.save(state, path)


def stats_to_host(obj):
    if torch.is_tensor(obj):
        return obj.detach().cpu()  # error: XLA201
    if isinstance(obj, dict):
        return {k: stats_to_host(v) for k, v in obj.items()}
    return obj


def train(model, loader, optimizer, device, log):
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = model(x, y)
        loss.backward()
        xm.optimizer_step(optimizer)
        if step % 1000 == 0:
            save_state("ckpt.pt", step, model, optimizer)
        log.append(stats_to_host({"loss": loss}))
