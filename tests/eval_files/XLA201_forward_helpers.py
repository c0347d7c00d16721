"""Eval file for XLA201/XLA104: a module's forward hands its inputs to helper methods.

The forward's inputs are the step's tensors on the module's device; a helper method of
the class that receives them (a loss computed inside the head) reads them per step too.
"""
import torch
import torch.nn as nn
import torch_xla


class DetectionHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, feats, labels=None, meta=None):
        out = self.proj(feats)
        if labels is None:
            return out
        return self.get_losses(out, labels, tag=meta)

    def get_losses(self, out, labels, tag=None):
        print(f"labels = {labels}")  # error: XLA201
        num_gt = int(labels.sum())  # error: XLA201
        picked = out[labels > 0]  # error: XLA104
        print(f"tag = {tag}")  # trap: meta is never used as a tensor
        return self.reduce(picked, labels) + num_gt

    def reduce(self, picked, labels):
        return picked.sum() + labels.float().mean()


class LossMixin:
    def mixin_loss(self, out, target):
        print("target", target)  # error: XLA201
        return out.sum() + target.float().sum()


class ClassifierHead(LossMixin, nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    def forward(self, feats, labels=None, num_classes=None, mode="train", size=None):
        out = self.proj(feats)
        self.check_mode(mode)
        return (self.one_hot_loss(out, labels, num_classes) + self._static_loss(out, labels)
                + self.mixin_loss(out, labels) + self.resize(out, size))

    def check_mode(self, mode):
        self._validate(mode)
        print(f"mode={mode}")  # trap: a string, only handed to another method
        if mode == "eval":  # trap: a string comparison
            return None
        return mode.split(",")

    def _validate(self, mode):
        assert mode in ("train", "eval")

    def one_hot_loss(self, out, labels, num_classes):
        print(f"num_classes={num_classes}")  # trap: an int, the second argument of one_hot
        return (out - torch.nn.functional.one_hot(labels, num_classes)).sum()

    @staticmethod
    def _static_loss(out, labels):
        print("static", labels)  # error: XLA201
        return out.sum() + labels.float().sum()

    def resize(self, out, size):
        print(f"resizing to {size}")  # trap: a size tuple for interpolate
        return torch.nn.functional.interpolate(out, size).sum()


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = DetectionHead()

    def forward(self, feats, name="step"):
        print(f"running {name}")  # trap: a string argument, handed to no tensor use
        return self.log_name(name) + self.head(feats)

    def log_name(self, name):
        return len(name)


def train(loader):
    device = torch_xla.device()
    model = DetectionHead().to(device)
    head = ClassifierHead().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for feats, labels in loader:
        feats, labels = feats.to(device), labels.to(device)
        loss = model(feats, labels) + head(feats, labels, num_classes=4)
        loss.backward()
        opt.step()
        torch_xla.sync()
