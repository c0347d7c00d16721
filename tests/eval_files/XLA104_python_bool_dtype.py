"""Eval file for XLA104: a mask made with ``dtype=bool`` (Python's type, which torch takes
for ``torch.bool``) is a boolean mask: indexing with it has a data-dependent output
shape. The same buffer made with an integer dtype indexes rows (a static gather)."""
import torch
import torch_xla


def train(model, loader, optimizer, span: int = 32) -> None:
    device = torch_xla.device()
    model.to(device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        keep = torch.zeros(x.shape[0], x.shape[1], dtype=bool, device=device)
        keep[:, :span] = True
        rows = torch.zeros(4, dtype=torch.long, device=device)
        out = model(x)
        loss = (out[keep] - y[keep]).pow(2).mean()  # error: XLA104
        loss = loss + out[rows].sum() * 0
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        torch_xla.sync()
