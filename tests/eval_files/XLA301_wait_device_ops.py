"""Eval file for XLA301: ``xm.wait_device_ops()`` is no step barrier.

It waits for the computations already started on the device and starts none: a training
loop whose only call into torch_xla per step is ``xm.wait_device_ops()`` keeps adding
each step to one pending graph (measured on torch_xla 2.9, PJRT_DEVICE=CPU: nothing
compiles or executes until the first ``torch_xla.sync()``). A loop that also runs
``torch_xla.sync()`` is fine.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


def train(model, x, y, epochs):
    device = torch_xla.device()
    model = model.to(device)
    x, y = x.to(device), y.to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(epochs):  # error: XLA301
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        xm.wait_device_ops()


def train_synced(model, x, y, epochs):
    device = torch_xla.device()
    model = model.to(device)
    x, y = x.to(device), y.to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        xm.wait_device_ops()


if __name__ == "__main__":
    features, labels = torch.randn(256, 16), torch.randint(0, 4, (256,))
    net = torch.nn.Linear(16, 4)
    train(net, features, labels, epochs=20)
    train_synced(net, features, labels, epochs=20)
