"""Eval file for XLA102: batch sizes that reach the entry point through launch ``args``.

``torch_xla.launch(_mp_fn, args=(parser.parse_args(),))`` calls ``_mp_fn(index, args)``
in each process, so ``args.test_batch_size`` is the parser's default (250), which
divides CIFAR-10's 10,000 test images. ImageNet's 50,000 validation images
(``split="val"``) divide into batches of 250 but not of 256.
"""
import argparse

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader
from torchvision import datasets, models


def accuracy(model, loader, device):
    correct = torch.zeros((), device=device)
    with torch.no_grad():
        for images, labels in pl.MpDeviceLoader(loader, device):
            correct += (model(images).argmax(1) == labels).sum()
    return correct


def _mp_fn(index, args):
    device = torch_xla.device()
    model = models.resnet18(num_classes=10).to(device)
    cifar = datasets.CIFAR10(args.data, train=False)
    imagenet = datasets.ImageNet(args.data, split="val")
    accuracy(model, DataLoader(cifar, batch_size=args.test_batch_size), device)
    accuracy(model, DataLoader(imagenet, batch_size=250), device)
    accuracy(model, DataLoader(imagenet, batch_size=256), device)  # error: XLA102
    xm.master_print("done")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="/data")
    parser.add_argument("--test_batch_size", type=int, default=250)
    torch_xla.launch(_mp_fn, args=(parser.parse_args(),))
