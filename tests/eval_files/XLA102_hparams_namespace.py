"""Eval file for XLA102: TensorFlow 1.x hyperparameters that PyTorch ports keep
(``tf.contrib.training.HParams(batch_size=100, ...)``, Tacotron 2 and WaveGlow) are a
namespace: an attribute holds what the construction passes, so CIFAR-10's 10,000 test
images in batches of 100 leave no remainder and in batches of 96 do."""
import tensorflow as tf
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torchvision
from torch.utils.data import DataLoader


def create_hparams():
    return tf.contrib.training.HParams(batch_size=100, eval_batch_size=96, epochs=3)


def evaluate(model, optimizer):
    hparams = create_hparams()
    device = torch_xla.device()
    test_set = torchvision.datasets.CIFAR10("data", train=False, download=True)
    whole = DataLoader(test_set, batch_size=hparams.batch_size)
    ragged = DataLoader(test_set, batch_size=hparams.eval_batch_size)  # error: XLA102
    for loader in (whole, ragged):
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            xm.optimizer_step(optimizer)
