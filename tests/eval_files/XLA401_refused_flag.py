"""Eval file for XLA401: a flag that the script's argument checks refuse on the XLA path
(``if args.device == "xla": if args.fp16: parser.error(...)`` in the main block) is off
wherever the XLA path runs; a flag refused only by a log call is not."""
import argparse
import logging

import torch
import torch_xla


def train(args, model, loader, opt):
    device = torch_xla.device() if args.device == "xla" else torch.device(args.device)
    scaler = torch.cuda.amp.GradScaler() if args.fp16 else None  # trap
    scaler2 = torch.cuda.amp.GradScaler() if args.half else None  # error: XLA401
    model.to(device)
    for x, y in loader:
        loss = model(x.to(device), y.to(device))
        if scaler is not None:
            scaler.scale(loss).backward()
        elif scaler2 is not None:
            scaler2.scale(loss).backward()
        else:
            loss.backward()
        opt.step()
        torch_xla.sync()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="xla")
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--half", action="store_true")
    args = parser.parse_args()
    if args.device == "xla":
        if args.fp16:
            parser.error("--fp16 needs CUDA")
        if args.half:
            logging.error("--half is slow on XLA")
    train(args, None, None, None)
