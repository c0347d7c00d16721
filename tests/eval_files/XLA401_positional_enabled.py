"""Eval file for XLA401: ``enabled`` passed positionally switches CUDA AMP on or off.

``torch.cuda.amp.autocast(enabled, dtype, cache_enabled)`` and ``torch.autocast(
device_type, dtype, enabled, ...)`` take it by position too: ``autocast(False)`` is off,
and ``autocast(self.use_amp)`` is a setting of the run (off by default here, reported
as ``enabled=self.use_amp`` is).
"""
import torch
import torch_xla


class Trainer:
    def __init__(self, model, **kwargs):
        self.use_amp = kwargs.get("use_amp", False)
        self.model = model.to(torch_xla.device())

    def step(self, x):
        with torch.cuda.amp.autocast(True):  # error: XLA401
            a = self.model(x)
        with torch.autocast("cuda", torch.float16, True):  # error: XLA401
            b = self.model(x)
        with torch.cuda.amp.autocast(self.use_amp):  # error: XLA401
            d = self.model(x)
        # Traps: switched off.
        with torch.cuda.amp.autocast(False):
            c = self.model(x)
        with torch.autocast("cuda", torch.float16, False):
            e = self.model(x)
        return a, b, c, d, e
