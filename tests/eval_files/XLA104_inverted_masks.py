"""Eval file for XLA104: masks built as boolean factories, and their inverses."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.core.xla_model as xm


def info_nce(features, batch_size, device):
    labels = torch.cat([torch.arange(batch_size) for _ in range(2)]).to(device)
    labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
    sim = F.normalize(features, dim=1) @ F.normalize(features, dim=1).T
    diagonal = torch.eye(labels.shape[0], dtype=torch.bool).to(device)
    labels = labels[~diagonal].view(labels.shape[0], -1)  # error: XLA104
    sim = sim[~diagonal].view(sim.shape[0], -1)  # error: XLA104
    # Trap: a mask of ones kept as floats multiplies; it selects nothing.
    weights = torch.ones(labels.shape, dtype=torch.float32, device=device)
    return (sim * labels * weights).sum()


def train(model, loader, optimizer, batch_size):
    device = torch_xla.device()
    for x in loader:
        loss = info_nce(model(x.to(device)), batch_size, device)
        loss.backward()
        xm.optimizer_step(optimizer)
        torch_xla.sync()
