"""Eval file for XLA401: AMP switches the script turns off, or on, for the XLA device.

``if args.tpu and args.amp: args.amp = False`` leaves ``args.amp`` False on XLA whether
or not it was set; ``if args.tpu: assert not args.fp16`` refuses fp16 there; a flag
computed from the device (``cuda = device.type != "cpu"``) holds on XLA whatever its
name says.
"""
import argparse

import torch
import torch_xla

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
parser.add_argument("--fp16", action="store_true")
parser.add_argument("--bf16_autocast", action="store_true")
parser.add_argument("--tpu", action="store_true")
args = parser.parse_args()
if args.tpu and args.amp:
    print("AMP is off on TPU")
    args.amp = False
if args.tpu:
    assert not args.fp16, "fp16 is not supported on TPU"
    device = torch_xla.device()
else:
    device = torch.device("cuda")


def train(model, loader, optimizer):
    # Traps: both switches are False on the XLA path.
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
    for x, y in loader:
        with torch.cuda.amp.autocast(enabled=args.fp16):
            loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        torch_xla.sync()
    # A setting the script does not turn off is reported.
    with torch.cuda.amp.autocast(enabled=args.bf16_autocast):  # error: XLA401
        return model(x.to(device))


def yolo_style(model, loader, optimizer):
    xla = torch_xla.device()
    cuda = xla.type != "cpu"  # True on the XLA device, whatever the name says
    scaler = torch.cuda.amp.GradScaler(enabled=cuda)  # error: XLA401
    for x in loader:
        with torch.cuda.amp.autocast(enabled=cuda):  # error: XLA401
            loss = model(x.to(xla)).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        torch_xla.sync()
