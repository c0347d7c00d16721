"""Eval file for XLA201/XLA103: epoch loops and flags whose value on the XLA path is known."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def _is_tpu(device):
    return str(device).startswith("xla")


def train(model, optimizer, loader, epochs, accum_steps, cfg):
    device = torch_xla.device()
    use_tpu = _is_tpu(device)
    # Off on the TPU: a flag computed once from a test whose truth there is known.
    checks = bool(getattr(cfg, "checks", True)) and not use_tpu
    verbose = cfg.verbose and use_tpu
    for epoch in range(epochs):
        total = torch.zeros((), device=device)
        steps = 0
        for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            if checks and torch.isnan(loss).any():
                continue
            if verbose and torch.isnan(loss).any():  # error: XLA103
                continue
            (loss / accum_steps).backward()
            total = total + loss.detach()
            if (step + 1) % accum_steps == 0:
                xm.optimizer_step(optimizer)
                optimizer.zero_grad()
                steps += 1
        # The last partial accumulation bucket: one optimizer step per epoch, after the
        # inner step loop; the epoch loop is not a step loop, and its read runs once.
        if len(loader) % accum_steps:
            xm.optimizer_step(optimizer)
            optimizer.zero_grad()
            steps += 1
        torch_xla.sync()
        print(f"epoch {epoch}: {(total / max(steps, 1)).item():.4f}")
        for x, y in loader:  # a CPU pass over the data each epoch, for comparison
            print(x.sum().item())


class Trainer:
    def __init__(self, model, optimizer, cfg):
        self.device = torch_xla.device()
        self.use_tpu = _is_tpu(self.device)
        self.model, self.optimizer = model, optimizer
        # Off on the TPU: an attribute set once from tests whose truth there is known,
        # and a conditional that picks False there.
        self.nan_checks = cfg.nan_checks and not self.use_tpu
        self.grad_checks = cfg.grad_checks if not self.use_tpu else False

    def fit(self, loader, val_loader):
        for step, (x, y) in enumerate(loader):
            x, y = x.to(self.device), y.to(self.device)
            loss = torch.nn.functional.cross_entropy(self.model(x), y)
            if self.nan_checks and torch.isnan(loss).any():
                continue
            if self.grad_checks and torch.isinf(loss).any():
                continue
            loss.backward()
            xm.optimizer_step(self.optimizer)
            torch_xla.sync()
            print(f"step {step}: {loss.item():.4f}")  # error: XLA201
            if step % 500 == 0:
                # an evaluation every 500 steps leaves the loop around it a step loop
                for vx, vy in pl.MpDeviceLoader(val_loader, self.device):
                    self.model(vx)
