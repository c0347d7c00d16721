"""XLA201: a method that appends one loss per task of the features it is given returns a
list of lazy tensors; ``torch.tensor(parts)`` reads each on the host. The same helper
given host numbers returns host numbers, and ``torch.stack(parts)`` stays on the device."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class MultiTaskHead(torch.nn.Module):
    def __init__(self, dim, tasks):
        super().__init__()
        self.tasks = tasks
        self.heads = torch.nn.ModuleDict({t: torch.nn.Linear(dim, 2) for t in tasks})

    def losses(self, feats, targets):
        parts = []
        for name in self.tasks:
            parts.append(F.cross_entropy(self.heads[name](feats), targets[name]))
        return parts


def scaled(values, factor):
    out = []
    for v in values:
        out.append(v * factor)
    return out


def train(loader, backbone, tasks, device):
    head = MultiTaskHead(2048, tasks).to(device)
    opt = torch.optim.SGD(list(backbone.parameters()) + list(head.parameters()), lr=0.05)
    for images, targets in pl.MpDeviceLoader(loader, device):
        parts = head.losses(backbone(images), targets)
        losses = torch.tensor(parts, device=device)  # error: XLA201
        kept = torch.stack(parts).detach()
        weights = torch.tensor(scaled([1.0, 2.0], 0.5), device=device)
        loss = (weights * kept * losses).sum() + sum(parts)
        opt.zero_grad()
        loss.backward()
        xm.optimizer_step(opt)
