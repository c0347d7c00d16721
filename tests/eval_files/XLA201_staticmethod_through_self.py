"""Eval file for XLA201: a staticmethod called through ``self`` takes the tensor it is
handed as its first parameter (``self`` is not bound to it), so what it returns is a lazy
tensor whose ``.item()`` in the validation loop reads the device every batch."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


class Fitter:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader

    @staticmethod
    def rmse(batch):
        return torch.sqrt(torch.mean(batch, [1, 2, 3])).mean()

    @staticmethod
    def count(batch):
        return len(batch)

    def validate(self):
        device = torch_xla.device()
        loss_module = torch.nn.MSELoss(reduction="none")
        total, seen = 0.0, 0
        with torch.no_grad():
            for inputs, labels in self.loader:
                inputs, labels = inputs.to(device), labels.to(device)
                loss = self.rmse(loss_module(self.model(inputs), labels))
                total += loss.item()  # error: XLA201
                seen += self.count(labels)
        xm.master_print(total / seen)
