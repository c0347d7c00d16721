"""Eval file for XLA201: a branch taken every N steps whose evaluation runs on the master
process only (``if master_process: losses = estimate_loss()``) is still an evaluation
branch: its reads (a flag broadcast to every rank, then read back) run once per
evaluation, not per step. A branch guarded by a run setting that only sometimes
evaluates still reads the step's loss every N steps."""
import torch
import torch.distributed as dist
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


@torch.no_grad()
def estimate_loss(model, loader):
    out = []
    for x, y in pl.MpDeviceLoader(loader, torch_xla.device()):
        out.append(torch.nn.functional.mse_loss(model(x), y))
    return torch.stack(out).mean()


def train(model, opt, get_batch, val_loader, eval_interval, log_interval, cfg):
    device = torch_xla.device()
    master_process = xm.is_master_ordinal()
    best = float("inf")
    it = 0
    while True:
        if it % eval_interval == 0:
            save = False
            if master_process:
                val = estimate_loss(model, val_loader)
                save = float(val) < best
            flag = torch.tensor([1 if save else 0], device=device)
            dist.broadcast(flag, src=0)
            if bool(flag.item()):
                xm.save(model.state_dict(), "ckpt.pt")
        x, y = get_batch()
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        loss.backward()
        xm.optimizer_step(opt)
        if it % log_interval == 0:
            if cfg.eval_on_log:
                estimate_loss(model, val_loader)
            print("loss", loss.item())  # error: XLA201
        it += 1
