"""Eval file for XLA503: moving the live model to the CPU mid-training to checkpoint it."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl

device = torch_xla.device()


def train(loader, epochs, path):
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, x in enumerate(pl.MpDeviceLoader(loader, device)):
        model(x).sum().backward()
        optimizer.step()
        if step % 1000 == 0:
            model.cpu()  # error: XLA503
            torch.save(model.state_dict(), path)
            model.to(device)
    # Traps: after training, and xm.save in the step.
    model.cpu()
    torch.save(model.state_dict(), path)


def train_xm(loader, path):
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        optimizer.step()
        xm.save(model.state_dict(), path)
