"""Eval file for XLA201: a helper file that a notebook runs after ``import
torch_xla.core.xla_model as xm`` (``%run training.py``) uses ``xm`` without importing it:
the file is XLA code and ``xm.optimizer_step`` is torch_xla's, so the per-step read of
the loss is reported."""
import torch


def train_epoch(loader, model, optimizer, criterion, device):
    model.train()
    total = 0.0
    for inputs, labels in loader:
        inputs, labels = inputs.to(device), labels.to(device)
        loss = criterion(model(inputs), labels)
        loss.backward()
        xm.optimizer_step(optimizer, barrier=True)  # noqa: F821 - the notebook's import
        optimizer.zero_grad()
        total += loss.item()  # error: XLA201
    return total


def valid_epoch(loader, model, device):
    model.eval()
    preds = []
    with torch.no_grad():
        for inputs, _ in loader:
            preds.append(model(inputs.to(device)).sigmoid())
            xm.mark_step()  # noqa: F821
    return torch.cat(preds).cpu()
