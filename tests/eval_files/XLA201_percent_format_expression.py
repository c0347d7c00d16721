"""Eval file for XLA201: %-formatting whose format string is built from literals
(``("%11s" * 2 + "%11.4g" * n) % (...)``, YOLO's progress line) and whose tuple spreads a
lazy loss tensor with ``*losses`` formats each element with ``__format__``: a copy to the
host per step. A format of Python numbers alone is not."""
import torch
import torch_xla


def train(model, loader, optimizer, epochs: int) -> None:
    device = torch_xla.device()
    model.to(device)
    tloss = None
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            loss_items = model(x.to(device), y.to(device))
            loss_items.sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            torch_xla.sync()
            tloss = loss_items.detach() if tloss is None else (tloss * i + loss_items) / (i + 1)
            n = tloss.shape[0]
            print(("%11s" * 2 + "%11.4g" * n) % (f"{epoch + 1}/{epochs}", i, *tloss))  # error: XLA201
            print(("%11s" * 2 + "%11d") % (f"{epoch + 1}/{epochs}", i, x.shape[0]))  # trap: ints
