"""Eval file for XLA201/XLA103: a module-level ``test_*`` function that takes no argument
and that its module never calls, in a training script no test runner collects, is a
check run by hand (a gradient test on the host): not a training step. The script's own
training loop still is."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def test_double_gradients():
    device = torch_xla.device()
    model = torch.nn.Linear(4, 4).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0)
    for _ in range(3):
        loss = model(torch.randn(2, 4, device=device)).sum()
        loss.backward()
        optimizer.step()
        print(loss.item())
        assert torch.allclose(loss, loss * 1.0)


def train(loader):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 4).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for (x,) in pl.MpDeviceLoader(loader, device):
        loss = model(x).sum()
        loss.backward()
        xm.optimizer_step(optimizer)
        print(loss.item())  # error: XLA201
