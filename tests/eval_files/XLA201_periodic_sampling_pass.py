"""Eval file for XLA201: a branch of the training loop taken every N steps that runs a
sampling pass (a metrics function whose loop draws images from the generator and runs a
network on them, reached through a test helper) reads its results once per pass, not
per step; a branch that only logs still reads the step's loss."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch import nn


class Scorer(nn.Module):
    def forward(self, images):
        return images.mean(dim=(1, 2, 3)), images.flatten(1).softmax(-1)


def accumulate(generator, scorer, num_images, device):
    pool = []
    for _ in range(num_images // 50):
        with torch.no_grad():
            images = generator(torch.randn(50, 128, device=device))
            pool.append(scorer(images)[1])
    return torch.cat(pool)


def inception_score(generator, scorer, num_images, device):
    probs = accumulate(generator, scorer, num_images, device)
    return probs.mean(), probs.std()


def test(generator, scorer, state, device):
    is_mean, is_std = inception_score(generator, scorer, 5000, device)
    print("IS %3.3f +/- %3.3f" % (is_mean, is_std))
    if is_mean > state["best_IS"]:
        state["best_IS"] = float(is_mean)


def log_step(step, loss):
    print("step %d loss %.4f" % (step, loss))  # error: XLA201


def train(generator, discriminator, optimizer, loader, state):
    device = torch_xla.device()
    scorer = Scorer().to(device)
    for step, (x, _) in enumerate(pl.MpDeviceLoader(loader, device)):
        optimizer.zero_grad()
        fake = generator(torch.randn(x.shape[0], 128, device=device))
        loss = discriminator(fake).mean() - discriminator(x).mean()
        loss.backward()
        xm.optimizer_step(optimizer)
        if step % 100 == 0:
            log_step(step, loss)
        if not (step % 5000):
            test(generator, scorer, state, device)
