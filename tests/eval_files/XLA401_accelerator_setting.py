"""Eval file for XLA401: ``args.accelerator == "GPU"`` compares a command-line setting,
not what ``xm.xla_device_hw()`` returns (where "GPU" is an XLA device too): its branch is
the GPU run's, so the CUDA AMP there is off the XLA path."""
import argparse

import torch
import torch_xla


def train(args, model, optimizer, loss):
    if args.accelerator == "GPU" and args.fp16:
        from apex import amp
        model, optimizer = amp.initialize(model, optimizer, opt_level="O1")  # trap
    elif args.accelerator == "TPU":
        model = model.to(torch_xla.device())
    scaler = torch.cuda.amp.GradScaler()  # error: XLA401
    scaler.scale(loss).backward()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--accelerator", default="GPU")
    parser.add_argument("--fp16", action="store_true")
    train(parser.parse_args(), None, None, None)
