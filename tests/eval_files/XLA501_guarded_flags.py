"""Eval file for XLA501: CUDA calls behind a TPU flag read through ``hasattr`` or
``getattr``.

``hasattr(args, "tpu") and args.tpu`` holds wherever ``args.tpu`` does, so the TPU branch
returns before the CUDA set-up; ``getattr(args, "use_tpu", False)`` is the flag by its
name, like ``args.use_tpu``, and ``getattr(cfg, "device", "cuda")`` the device setting
whatever its fallback. A ``hasattr`` test alone says nothing of the device, nor does an
option about the device (``tpu_metrics_debug``), which the XLA run may leave off. A
conditional whose arm taken on XLA is the XLA device hides its CUDA arm; a CUDA-or-CPU
choice does not (the XLA host trains on the CPU).
"""
import torch
import torch_xla


def init_distributed(args):
    if hasattr(args, "tpu") and args.tpu:
        args.device = torch_xla.device()
        return
    torch.cuda.set_device(args.gpu)


def sync(args):
    if getattr(args, "use_tpu", False):
        torch_xla.sync()
    else:
        torch.cuda.synchronize()


def setup_device(cfg):
    if getattr(cfg, "device", "cuda") == "cuda":
        torch.cuda.set_device(cfg.local_rank)
    return torch_xla.device()


def autocast_kind():
    # Trap: the kind string autocast and pin_memory tests take (nanoGPT), not a device.
    device = torch_xla.device()
    device_type = "cuda" if "cuda" in str(device) else "cpu"
    return device_type


def debug_metrics(args):
    if getattr(args, "tpu_metrics_debug", False):
        print("metrics")
    else:
        torch.cuda.synchronize()  # error: XLA501


def pick(cfg):
    on_gpu = getattr(cfg, "device", "cuda") == "cuda"
    return torch.device("cuda") if on_gpu else torch_xla.device()


def fallback():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")  # error: XLA501


def spawned(args):
    if hasattr(args, "spawned"):
        return
    torch.cuda.synchronize()  # error: XLA501


def main(args):
    init_distributed(args)
    sync(args)
    spawned(args)
    setup_device(args)
    debug_metrics(args)
    pick(args)
    fallback()
