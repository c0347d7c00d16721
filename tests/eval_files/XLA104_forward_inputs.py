"""Eval file for XLA104: a module's forward takes what the calls of its instances pass
(``model(ids, labels)``), so a mask computed from a forward input with a comparison
(``labels != -100``) is a boolean mask of a lazy XLA tensor when the step passes batches
of an XLA loader, and not when the only call passes CPU tensors. An optional input
(``labels=None``) takes what the calls pass too, and past ``if labels is None: return``
it is not None."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class TokenClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(1000, 32)
        self.head = nn.Linear(32, 5)

    def forward(self, input_ids, labels):
        logits = self.head(self.emb(input_ids))
        active = labels != -100
        return F.cross_entropy(logits[active], labels[active])  # error: XLA104


class Segmenter(nn.Module):
    def __init__(self, ignore_index=-1):
        super().__init__()
        self.head = nn.Linear(6, 13)
        self.ignore_index = ignore_index

    def forward(self, points, labels=None):
        logits = self.head(points)
        if labels is None:
            return logits
        valid = labels != self.ignore_index
        return logits, F.cross_entropy(logits[valid], labels[valid])  # error: XLA104


class HostProbe(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 2)

    def forward(self, x, keep):
        picked = x[keep > 0]
        return self.head(picked)


def train(dataset):
    device = torch_xla.device()
    loader = torch.utils.data.DataLoader(dataset, batch_size=64, drop_last=True)
    model = TokenClassifier().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for ids, labels in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        loss = model(ids, labels)
        loss.backward()
        xm.optimizer_step(opt)


def train_segmenter(loader):
    device = torch_xla.device()
    model = Segmenter().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for points, labels in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        _, loss = model(points, labels)
        loss.backward()
        xm.optimizer_step(opt)


def probe():
    net = HostProbe()
    return net(torch.randn(4, 8), torch.randn(4))
