"""Eval file for XLA202 (autograd anomaly detection on during training)."""
import os

import torch
import torch_xla
import torch_xla.core.xla_model as xm

device = torch_xla.device()
torch.autograd.set_detect_anomaly(True)  # error: XLA202


def train(model, loader, optimizer, args):
    with torch.autograd.detect_anomaly():  # error: XLA202
        for x, y in loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            optimizer.step()
            torch_xla.sync()
    # Traps: switched off, a flag of unknown value, a CUDA-only debugging branch.
    torch.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(args.debug_anomaly)
    with torch.autograd.detect_anomaly(False):
        pass
    if torch.cuda.is_available():
        torch.autograd.set_detect_anomaly(True)


def debug_switches(args, cfg, model, x):
    # Traps: anomaly mode behind a run setting of unknown value (a debugging switch).
    if args.detect_anomaly:
        torch.autograd.set_detect_anomaly(True)
    if not cfg.fast:
        with torch.autograd.detect_anomaly():
            model(x.to(device)).sum().backward()
    # Still reported: a guard that holds on the XLA path, and a test that is not a setting.
    if device.type == "xla":
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    if torch.isnan(x).any():
        torch.autograd.set_detect_anomaly(True)  # error: XLA202


def more_switches(cfg, args, step, model, x):
    # Traps: settings read through get/getattr/the environment, combined, or named.
    if cfg.get("detect_anomaly", False):
        torch.autograd.set_detect_anomaly(True)
    if getattr(args, "detect_anomaly", False) and args.verbose:
        torch.autograd.set_detect_anomaly(True)
    if os.environ.get("DETECT_ANOMALY") is True:
        torch.autograd.set_detect_anomaly(True)
    debug = args.debug
    if debug:
        torch.autograd.set_detect_anomaly(True)
    # Reported: values the code computes are not settings.
    first_steps = step < 10
    if first_steps:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
    is_master = xm.is_master_ordinal()
    if is_master:
        torch.autograd.set_detect_anomaly(True)  # error: XLA202
