"""Eval file for XLA502: a project with a multi-process path (xmp.spawn) beside an SPMD
one. Code in a function named for SPMD (priming the optimizer for a distributed
checkpoint, an SPMD training loop) runs in the single SPMD process, where the sharded
step needs no gradient all-reduce; the multi-process loop still does."""
import torch
import torch_xla
import torch_xla.distributed.xla_multiprocessing as xmp


def prime_optimizer_spmd(optimizer):
    for group in optimizer.param_groups:
        for p in group["params"]:
            p.grad = torch.zeros_like(p)
    optimizer.step()
    torch_xla.sync()
    return optimizer


def train_spmd(model, loader, optimizer, device):
    prime_optimizer_spmd(optimizer)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device)).backward()
        optimizer.step()
        torch_xla.sync()


def train_replica(model, loader, optimizer, device):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device)).backward()
        optimizer.step()  # error: XLA502
        torch_xla.sync()


def _mp_fn(index, flags):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if flags.mode == "spmd":
        train_spmd(model, flags.loader, optimizer, device)
    else:
        train_replica(model, flags.loader, optimizer, device)


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(None,))
