"""Eval file for XLA501: the ``else`` of an ``if``/``elif`` chain that the XLA path never
reaches, because two of its tests are one condition and its negation there."""
import torch
import torch_xla


def setup(args):
    if args.tpu and not hasattr(args, "spawned"):
        device = torch_xla.device()
    elif hasattr(args, "spawned"):
        device = torch_xla.device()
    else:
        # Trap: reached only when args.tpu is false.
        device = torch.device("cuda")
    if args.tpu and args.debug:
        dev2 = torch_xla.device()
    elif args.debug:
        dev2 = torch_xla.device()
    else:
        dev2 = torch.device("cuda")  # error: XLA501
    return device, dev2
