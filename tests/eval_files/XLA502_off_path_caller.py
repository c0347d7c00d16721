"""Eval file for XLA502: a shared training loop called by the XLA entry point with an
optimizer whose step() all-reduces (xm.optimizer_step), and by the GPU entry point, off
the XLA path, with a plain one: on the XLA path the loop steps the reducing one. A loop
that the XLA entry point itself hands a plain optimizer is still reported."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.xla_multiprocessing as xmp


class ReducingOptimizer:
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def zero_grad(self):
        self.optimizer.zero_grad()

    def step(self):
        xm.optimizer_step(self.optimizer)


def train_loop(model, loader, optimizer, device):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()  # trap: the XLA path passes the reducing optimizer
        torch_xla.sync()


def finetune_loop(model, loader, optimizer, device):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()  # error: XLA502
        torch_xla.sync()


def _mp_fn(index, model, loader):
    device = torch_xla.device()
    model = model.to(device)
    plain = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loop(model, loader, ReducingOptimizer(plain), device)
    finetune_loop(model, loader, plain, device)


def main_gpu(model, loader):
    device = torch.device("cuda")  # trap: the GPU program
    model = model.to(device)
    train_loop(model, loader, torch.optim.SGD(model.parameters(), lr=0.1), device)


def launch(entry, model, loader, use_tpu):
    if use_tpu:
        xmp.spawn(_mp_fn, args=(model, loader))
    else:
        entry(model, loader)


if __name__ == "__main__":
    launch(main_gpu, None, None, use_tpu=True)
