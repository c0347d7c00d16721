"""Eval file for XLA501: a GPU entry point handed to a launcher function of the module
that runs it only off the XLA path (``spawn_main(main, args)``, whose ``else:`` calls
``main(0, args)``) is not XLA code; one that the launcher may run on either path is."""
import torch
import torch_xla
import torch_xla.distributed.xla_multiprocessing as xmp


def _main_xla(index, args):
    device = torch_xla.device()
    return device


def main(index, args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # trap: GPU only
    return device


def evaluate(index, args):
    device = torch.device("cuda")  # error: XLA501
    return device


def spawn_main(entry, args):
    if args.use_tpu:
        xmp.spawn(_main_xla, args=(args,))
    else:
        entry(0, args)


def run_both(entry, args):
    entry(0, args)


if __name__ == "__main__":
    spawn_main(main, None)
    run_both(evaluate, None)
