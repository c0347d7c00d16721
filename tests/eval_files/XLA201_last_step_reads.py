"""Eval file for XLA201: a read when the step counter (or the counter shifted by a
constant, ``step + 1``) meets a value the loop never changes runs once per epoch; a read
every N steps runs many times."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def fit(model, optimizer, loader, epochs, warmup):
    device = torch_xla.device()
    last = len(loader) - 1
    num_batches = len(loader)
    for epoch in range(epochs):
        for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            # Traps: the last step of the epoch, the end of the warm-up.
            if step == len(loader) - 1:
                print(f"epoch {epoch} last loss {loss.item():.4f}")
            if step == last or step == warmup:
                print(f"loss {loss.item():.4f}")
            if (step + 1) == num_batches or num_batches == step + 1:
                print(f"epoch {epoch} done, loss {loss.item():.4f}")
            if step % 10 == 0:
                print(f"loss {loss.item():.4f}")  # error: XLA201
