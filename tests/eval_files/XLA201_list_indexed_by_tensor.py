"""Eval file for XLA201: a Python list (or tuple) indexed by a 0-d lazy tensor takes the
tensor's ``__index__``, a read of its value each step; indexing by a Python int, a dict
keyed by the tensor object, and a tensor indexed by a tensor stay on the device. In a
module's forward (a step), an ``nn.ModuleList`` indexed by a tensor the forward computes
reads it too; one indexed by a forward argument of unknown kind, or by a loop counter,
stays silent."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm

CLASSES = ("cat", "dog", "bird")


class Router(torch.nn.Module):
    def __init__(self, dim=8, n=4):
        super().__init__()
        self.gate = torch.nn.Linear(dim, n)
        self.experts = torch.nn.ModuleList(torch.nn.Linear(dim, dim) for _ in range(n))
        self.scales = [1.0, 0.5, 0.25, 0.125]

    def forward(self, x, layer=0):
        best = self.gate(x.mean(0)).argmax()
        scale = self.scales[best]  # error: XLA201
        h = self.experts[best](x) * scale  # error: XLA201
        h = self.experts[layer](h)
        for i in range(len(self.experts)):
            h = self.experts[i](h)
        return h


def train(model, loader, opt, names):
    device = torch_xla.device()
    labels = ["neg", "pos"]
    seen = {}
    for step, (x, y) in enumerate(loader):
        logits = model(x.to(device))
        loss = torch.nn.functional.cross_entropy(logits, y.to(device))
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        pred = logits[0].argmax()
        name = labels[pred]  # error: XLA201
        kind = CLASSES[logits[1].argmax()]  # error: XLA201
        first = labels[step % 2]
        seen[pred] = step
        top = logits[pred]
        del name, kind, first, top
