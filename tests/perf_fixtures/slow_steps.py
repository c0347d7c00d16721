"""Fixture: three steps, then a hang that ignores SIGTERM.

Each step compiles a new graph (a new shape) and ends with ``torch_xla.sync()``;
the steps are 2.2 s apart, longer than the probe's partial-save interval, so the
probe saves its figures at each barrier.  Then the script ignores SIGTERM (as a
long XLA compilation holds off Python's signal handlers) and sleeps: only SIGKILL
stops it, and the report must still show the three steps.
"""
import os
import signal
import time

import torch
import torch_xla

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "3"))

device = torch_xla.device()
for step in range(STEPS):
    x = torch.ones(4, 8 + step, device=device)
    y = (x * 2).sum()
    torch_xla.sync()
    time.sleep(2.2)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
while True:
    time.sleep(1)
