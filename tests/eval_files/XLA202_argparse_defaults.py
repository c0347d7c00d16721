"""Eval file for XLA202: anomaly mode behind a run setting whose default is known.

A flag that argparse sets to True unless the user says otherwise (``default=True``, or
``action="store_false"``) switches anomaly mode on in every run; a ``store_true`` flag
or ``default=False`` is a debugging switch, off unless asked for. ``set_defaults`` wins
over an option's own default; an argument group's options are the parser's; a class
attribute that is literally False keeps its branch off; ``and`` with a computed test
(the master replica) is still off unless the flag is given.
"""
import argparse

import torch
import torch_xla
import torch_xla.runtime

parser = argparse.ArgumentParser()
parser.add_argument("--detect-anomaly", default=True)
parser.add_argument("--no-anomaly", dest="anomaly", action="store_false")
parser.add_argument("--debug", action="store_true")
parser.add_argument("--check-nan", default=False)
parser.add_argument("--trace", action="store_true")
parser.set_defaults(trace=True)
parser.add_argument("--no-grad-check", dest="grad_check", action="store_false")
parser.set_defaults(grad_check=False)
debug = parser.add_argument_group("debug")
debug.add_argument("--nan-check", default=True)
debug.add_argument("--slow-check", action="store_true")
args = parser.parse_args()


class CFG:
    debug = False
    anomaly = True


def train(model, loader, optimizer):
    if args.detect_anomaly:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    if args.anomaly:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    torch.autograd.set_detect_anomaly(args.anomaly)  # error: XLA202
    if args.trace:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    if args.nan_check:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    if CFG.anomaly:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    # Traps: off unless the run asks for it.
    if args.debug:
        torch.autograd.set_detect_anomaly(True)
    if args.check_nan:
        torch.autograd.set_detect_anomaly(True)
    if not args.anomaly:
        torch.autograd.set_detect_anomaly(True)
    torch.autograd.set_detect_anomaly(args.debug)
    if args.grad_check:
        torch.autograd.set_detect_anomaly(True)
    if args.slow_check:
        torch.autograd.set_detect_anomaly(True)
    if CFG.debug:
        torch.autograd.set_detect_anomaly(True)
    if args.debug and torch_xla.runtime.global_ordinal() == 0:
        torch.autograd.set_detect_anomaly(True)
    with torch.autograd.detect_anomaly(check_nan=False):
        pass
    device = torch_xla.device()
    for x in loader:
        loss = model(x.to(device)).sum()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
