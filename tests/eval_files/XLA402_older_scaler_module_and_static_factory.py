"""Eval file for XLA402: torch_xla 2.1-2.8 also spelled the XLA scaler by its module
(``torch_xla.amp.grad_scaler.GradScaler``, gone in 2.9: XLA507), and a trainer that
builds its optimizer with a static method called through its class
(``Trainer.get_optimizer(params)``) steps that method's plain Adam."""
import torch
import torch_xla
import torch_xla.amp.grad_scaler  # error: XLA507


class Trainer:
    def __init__(self, model):
        self.model = model.to(torch_xla.device())
        self.optimizer = Trainer.get_optimizer(self.model.parameters())
        self.scaler = torch_xla.amp.grad_scaler.GradScaler()  # error: XLA507

    @staticmethod
    def get_optimizer(params):
        return torch.optim.Adam(params, lr=1e-3)  # error: XLA402

    def step(self, loss):
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
