"""Eval file for XLA201: a tensor read on the host a second time in the same step, with
no new value between (``train_loss += loss.item()`` then a log line's ``loss.item()``),
copies a value the first read already computed: only the first read executes the graph
and is reported. A read after the name is rebound, or after a read that may not run (in
a branch), is a read of its own."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def train(model, loader, optimizer, log_every=100):
    device = torch_xla.device()
    train_loss = 0.0
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)
        train_loss += loss.item()  # error: XLA201
        if step % log_every == 0:
            print(f"step {step} loss {loss.item():.4f}")
            print(float(loss.detach()))
        loss = loss * 2
        print(loss.item())  # error: XLA201
        if step % 7 == 0:
            seen = y.sum().item()  # error: XLA201
        total = y.sum().item()  # error: XLA201
    return train_loss, seen, total
