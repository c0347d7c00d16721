"""Eval file for XLA401: an ``enabled=`` switch wrapped in ``bool(...)`` has the truth of
what it converts: ``bool(args.amp and device.type == "cuda")`` is False on the XLA
device whatever ``--amp`` says; ``bool(args.amp)`` is a setting of the run, reported."""
import argparse

import torch
import torch_xla

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
args = parser.parse_args()


def train(model, loader, optimizer):
    device = torch_xla.device()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # Trap: the device test is False on XLA, so autocast is off there.
        with torch.amp.autocast(device_type="cuda", dtype=torch.float16,
                                enabled=bool(args.amp and device.type == "cuda")):
            loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        torch_xla.sync()
    with torch.amp.autocast("cuda", enabled=bool(args.amp)):  # error: XLA401
        return model(x)
