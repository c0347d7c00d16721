"""XLA201: ``torch.device(...)`` objects say where a model and its outputs live."""
import torch
import torch.nn as nn
import torch_xla


def probe_on_cpu():
    """A probe fitted on the host: its loss is a CPU tensor, reading it syncs nothing."""
    device = torch.device("cpu")
    model = nn.Linear(4, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        loss = model(torch.randn(8, 4, device="cpu")).sum()
        loss.backward()
        opt.step()
        print(loss.item())


def train_on_xla():
    device = torch.device("xla")
    model = nn.Linear(4, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(10):
        loss = model(torch.randn(8, 4, device=device)).sum()
        loss.backward()
        opt.step()
        print(loss.item())  # error: XLA201
        torch_xla.sync()
