"""Eval file for XLA201: a tensor copied to the host with ``.cpu()`` or ``.tolist()`` holds
its computed data afterwards, so a second read of it in the same step (no new value
between) executes no graph and is not reported. A first ``.item()`` or ``float()`` leaves
the tensor's graph in place (measured on torch_xla 2.9: a second read executes it again),
so both reads are reported; so is a read after the name is rebound, or after a copy that
may not run (in a branch)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def train(model, loader, optimizer, log_every=100):
    device = torch_xla.device()
    history = []
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)
        history.append(loss.detach().cpu())  # error: XLA201
        if step % log_every == 0:
            print(f"step {step} loss {loss.item():.4f}")
            print(float(loss.detach()))
        aux = y.mean()
        value = aux.item()  # error: XLA201
        again = float(aux)  # error: XLA201
        loss = loss * 2
        print(loss.item())  # error: XLA201
        if step % 7 == 0:
            seen = y.tolist()  # error: XLA201
        total = y.sum().item()  # error: XLA201
        last = y.item()  # error: XLA201
    return history, seen, total, value, again, last
