"""XLA201: the entries of a dict that a loss module returns, read on the host in the
step (``{k: v.item() for k, v in metrics.items()}``): each copies a lazy tensor's value,
also when the device of the model's outputs is not known here (a batch dict moved key
by key)."""
import torch
import torch_xla
from torch import nn
from mylib import build_distiller


class Loss(nn.Module):
    def forward(self, a, b):
        return self.inner(a, b)


def evaluate(loader, cfg):
    device = torch_xla.device()
    distiller = build_distiller(cfg)
    criterion = Loss()
    totals = {}
    with torch.no_grad():
        for batch in loader:
            for k, v in batch.items():
                batch[k] = v.to(device)
            out, target = distiller(batch["input_ids"], batch["attention_mask"])
            loss, metrics = criterion(out, target)
            scalars = {k: (v.item() if torch.is_tensor(v) else v) for k, v in metrics.items()}  # error: XLA201
            torch_xla.sync()
            for k, val in scalars.items():
                totals[k] = totals.get(k, 0.0) + val
    return totals
