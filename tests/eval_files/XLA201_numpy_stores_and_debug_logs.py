"""Eval file for XLA201: item stores into numpy arrays, and debug logging switched off.

``loss_curve[step] = loss.detach()`` converts the lazy tensor into a numpy float
(``__float__``), a copy to the host each step. ``log.debug("loss %s", loss)`` in a
module whose logging level is INFO never formats its arguments: logging drops the
record first. ``log.info`` at that level formats them.
"""
import logging

import numpy as np
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl

logging.basicConfig(level=logging.INFO)
log = logging.getLogger(__name__)


def train(model, loader, optimizer, epochs, steps_per_epoch):
    device = torch_xla.device()
    loss_curve = np.zeros(epochs * steps_per_epoch, dtype=np.float32)
    seen = np.zeros(epochs * steps_per_epoch, dtype=np.int64)
    step = 0
    for _ in range(epochs):
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            loss_curve[step] = loss.detach()  # error: XLA201
            seen[step] = x.shape[0]
            log.debug("step %d loss %s", step, loss)
            log.info("step %d loss %s", step, loss)  # error: XLA201
            step += 1
    return loss_curve, seen
