"""Eval file for XLA623 (forked children cannot use the TPU)."""
# flake8-xla: --xla-migrate=torchtpu
import multiprocessing
import os

import torch
import torch.multiprocessing as mp

device = torch.device("tpu")
mp.set_start_method("fork")  # error: XLA623
ctx = multiprocessing.get_context("fork")  # error: XLA623
loader = torch.utils.data.DataLoader(range(8), num_workers=2,
                                     multiprocessing_context="fork")  # error: XLA623
pid = os.fork()  # error: XLA623
# Traps: the spawn start method, and a DataLoader with workers that build CPU tensors.
mp.set_start_method("spawn", force=True)
plain = torch.utils.data.DataLoader(range(8), num_workers=2)
