"""Eval file for XLA505: ``torch_xla.launch(functools.partial(train, cfg))`` leaves
``train(cfg)`` no parameter for the process index (every replica raises a TypeError at
start-up); a partial that binds only the settings after the index does not."""
import functools

import torch_xla


def train(cfg):
    return cfg


def train_indexed(index, cfg):
    return index, cfg


if __name__ == "__main__":
    cfg = {"lr": 1e-3}
    torch_xla.launch(functools.partial(train, cfg))  # error: XLA505
    torch_xla.launch(functools.partial(train_indexed, cfg=cfg))  # trap
