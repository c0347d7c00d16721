"""Eval file for XLA104: a tensor whose device is not known (a loss helper's argument)
indexed by a boolean mask made on the XLA device is on that device too (indexing takes
both on one device): the selection has as many rows as the mask holds True values. A
mask of unknown device, or a CPU tensor indexed by a CPU mask, is not reported."""
import torch
import torch_xla


def loss_terms(parts, targets, scores):
    device = torch_xla.device()
    preds = torch.cat(parts, 0)
    fg = torch.zeros(preds.shape[0], dtype=torch.bool, device=device)
    fg[: targets.shape[0]] = True
    picked = preds.view(-1, 4)[fg]  # error: XLA104
    host = torch.arange(8)[torch.arange(8) > 3]
    other = preds[scores]
    return picked, host, other
