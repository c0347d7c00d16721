"""Eval file for XLA202: anomaly mode behind a command-line option whose default is known.

A flag that argparse sets to True unless the user says otherwise (``default=True``, or
``action="store_false"``) switches anomaly mode on in every run; a ``store_true`` flag
or ``default=False`` is a debugging switch, off unless asked for.
"""
import argparse

import torch
import torch_xla

parser = argparse.ArgumentParser()
parser.add_argument("--detect-anomaly", default=True)
parser.add_argument("--no-anomaly", dest="anomaly", action="store_false")
parser.add_argument("--debug", action="store_true")
parser.add_argument("--check-nan", default=False)
args = parser.parse_args()


def train(model, loader, optimizer):
    if args.detect_anomaly:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    if args.anomaly:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    torch.autograd.set_detect_anomaly(args.anomaly)  # error: XLA202
    # Traps: off unless the run asks for it.
    if args.debug:
        torch.autograd.set_detect_anomaly(True)
    if args.check_nan:
        torch.autograd.set_detect_anomaly(True)
    if not args.anomaly:
        torch.autograd.set_detect_anomaly(True)
    torch.autograd.set_detect_anomaly(args.debug)
    device = torch_xla.device()
    for x in loader:
        loss = model(x.to(device)).sum()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
