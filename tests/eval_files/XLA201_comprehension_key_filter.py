"""Eval file for XLA201: a step's info dict holds host numbers and the forward pass's
lazy loss; a dict comprehension that keeps only some keys (``if k != "loss"``) copies
only those entries, so logging it reads the device only when the loss is kept."""
import logging

import torch
import torch_xla
import torch_xla.core.xla_model as xm

logger = logging.getLogger(__name__)


def train(model, loader, opt):
    device = torch_xla.device()
    for step, (x, y) in enumerate(loader):
        info = {"step": step, "lr": opt.param_groups[0]["lr"]}
        info["loss"] = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        info["loss"].backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
        meta = {k: v for k, v in info.items() if k != "loss"}
        logger.info("meta %s", meta)
        hosts = {k: v for k, v in info.items() if k not in ("loss", "grad_norm")}
        print(f"{hosts}")
        losses = {k: v for k, v in info.items() if k == "loss"}
        print(f"{losses}")  # error: XLA201
        everything = {k: v for k, v in info.items() if v is not None}
        logger.info("all %s", everything)  # error: XLA201
