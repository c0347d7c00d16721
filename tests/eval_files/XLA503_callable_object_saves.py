"""Eval file for XLA503: ``es = EarlyStopping(...)`` then ``es(score, model, path)`` runs
the class's ``__call__`` with those arguments, and its ``save_checkpoint`` saves the XLA
model's state dict with torch.save (the Kaggle early-stopping helper)."""
import numpy as np
import torch
import torch_xla
import torch_xla.core.xla_model as xm


class EarlyStopping:
    def __init__(self, patience=3):
        self.patience = patience
        self.best = None
        self.counter = 0

    def __call__(self, score, model, path):
        if self.best is None or score > self.best:
            self.best = score
            self.save_checkpoint(model, path)
            self.counter = 0
        else:
            self.counter += 1

    def save_checkpoint(self, model, path):
        torch.save(model.state_dict(), path)  # error: XLA503


def fit(model, optimizer, loader, evaluate):
    device = torch_xla.device()
    model.to(device)
    es = EarlyStopping(patience=3)
    for epoch in range(10):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            xm.optimizer_step(optimizer)
            torch_xla.sync()
        es(np.float64(evaluate(model)), model, f"model_{epoch}.bin")
        if es.counter >= es.patience:
            break
