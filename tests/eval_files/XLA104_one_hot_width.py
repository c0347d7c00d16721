"""Eval file for XLA104: ``F.one_hot`` without ``num_classes`` on the device.

Without ``num_classes`` (or with -1) the width of the result is the largest label plus
one, read from the device (torch/nn/functional.py: "inferred as one greater than the
largest class value in the input tensor"): a host read every step, and a new output
shape whenever a batch lacks the top class. A given width is a static shape.
"""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl

NUM_CLASSES = 19


def dice_loss(logits, target):
    probs = logits.softmax(1)
    onehot = F.one_hot(target).permute(0, 3, 1, 2).float()  # error: XLA104
    fixed = F.one_hot(target, NUM_CLASSES).permute(0, 3, 1, 2).float()  # trap: static width
    inferred = F.one_hot(target, num_classes=-1)  # error: XLA104
    inter = (probs * fixed).sum((2, 3))
    return 1 - (2 * inter / (probs.sum((2, 3)) + onehot.sum((2, 3)) + 1e-6)).mean() + \
        inferred.float().mean() * 0


def train(model, loader, optimizer):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = dice_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    # Trap: labels on the host, one-hot encoded in the data pipeline.
    return F.one_hot(torch.tensor([0, 2, 1]))
