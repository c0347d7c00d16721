"""Eval file for XLA401: a trainer that picks its loss scaler by the device setting's
prefix (``isinstance(device, str) and device.startswith("xla")``) builds a stand-in on the
XLA path: the CUDA GradScaler of the other branch never runs there. A GradScaler built
without such a test is reported."""
import torch
import torch_xla
from torch.cuda import amp


class NoScaler:
    def scale(self, loss):
        return loss

    def step(self, optimizer):
        optimizer.step()

    def update(self):
        pass


class Trainer:
    def __init__(self, model, device: str = "xla") -> None:
        self.device = device
        self.model = model.to(torch_xla.device())
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)
        if isinstance(self.device, str) and self.device.startswith("xla"):
            self.scaler = NoScaler()
        else:
            self.scaler = amp.GradScaler(enabled=True)  # trap: the GPU branch

    def fit(self, loader) -> None:
        for x, y in loader:
            loss = self.model(x.to(torch_xla.device()), y.to(torch_xla.device()))
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            torch_xla.sync()


class PlainTrainer(Trainer):
    def __init__(self, model) -> None:
        super().__init__(model)
        self.scaler = amp.GradScaler(enabled=True)  # error: XLA401
