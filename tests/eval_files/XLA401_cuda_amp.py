"""Eval file for XLA401 (CUDA AMP on XLA)."""
import functools

import torch
import torch_xla
from torch.cuda.amp import GradScaler as GS
from torch.cuda.amp import autocast

device = torch_xla.device()
USE_FP16 = False
PRECISION = "bfloat16"


def forward(model, x):
    with torch.cuda.amp.autocast():  # error: XLA401
        a = model(x)
    with autocast(dtype=torch.float16):  # error: XLA401
        b = model(x)
    with torch.autocast("cuda", dtype=torch.float16):  # error: XLA401
        c = model(x)
    with torch.amp.autocast(device_type="cuda"):  # error: XLA401
        d = model(x)
    scaler = GS()  # error: XLA401
    scaler2 = torch.amp.GradScaler("cuda")  # error: XLA401
    # Traps: the XLA spellings.
    with torch.autocast("xla", dtype=torch.bfloat16):
        e = model(x)
    with torch.autocast(device_type="xla", dtype=torch.bfloat16):
        f = model(x)
    scaler3 = torch.amp.GradScaler("xla")
    # Trap: switched off by a module constant that is False.
    off = torch.amp.GradScaler("cuda", enabled=USE_FP16)
    # Trap: a test of a module constant that is false (nanoGPT's dtype == "float16").
    off2 = torch.cuda.amp.GradScaler(enabled=(PRECISION == "float16"))
    on = torch.cuda.amp.GradScaler(enabled=(PRECISION != "float16"))  # error: XLA401
    del off2, on
    return a, b, c, d, e, f, scaler, scaler2, scaler3, off


def guarded(model, x, args):
    # Trap: only reached when CUDA is present.
    if torch.cuda.is_available():
        with torch.cuda.amp.autocast():
            return model(x)
    # An fp16 flag does not keep the XLA path out: --fp16 on a TPU reaches it.
    if args.fp16:
        from apex import amp
        model = amp.initialize(model)  # error: XLA401
    return model(x)


def apex_path(model, optimizer):
    from apex import amp
    return amp.initialize(model, optimizer, opt_level="O1")  # error: XLA401


@torch.cuda.amp.autocast()  # error: XLA401
def decorated(model, x):
    return model(x)


def switched_by_settings(model, x, args, use_amp):
    # The scaler's creation under a setting is reported where it is made ...
    scaler = None
    if args.amp:
        scaler = torch.cuda.amp.GradScaler()  # error: XLA401
    # ... and so is autocast switched by a setting of the run: the run that turns AMP on
    # with XLA trains in float32 without a word.
    with torch.cuda.amp.autocast(enabled=scaler is not None):  # error: XLA401
        a = model(x)
    with torch.cuda.amp.autocast(enabled=use_amp):  # error: XLA401
        b = model(x)
    grads = torch.cuda.amp.GradScaler(enabled=args.fp16)  # error: XLA401
    b = b + grads.get_scale()
    # A switch known to be on is no setting.
    always = True
    with torch.cuda.amp.autocast(enabled=always):  # error: XLA401
        c = model(x)
    return a, b, c


def turned_off_for_xla(model, x, cfg):
    # Trap: a switch the script turns off for XLA.
    if cfg.use_tpu:
        cfg.mixed_precision = False
    with torch.cuda.amp.autocast(enabled=cfg.mixed_precision):
        return model(x)


# A context made once with functools.partial and entered in the step: CUDA autocast.
cuda_autocast = functools.partial(torch.autocast, "cuda", dtype=torch.float16)  # error: XLA401
legacy_autocast = functools.partial(torch.cuda.amp.autocast, enabled=True)  # error: XLA401
xla_autocast = functools.partial(torch.autocast, "xla", dtype=torch.bfloat16)
other_partial = functools.partial(torch.nn.functional.cross_entropy, reduction="sum")


def partial_contexts(model, x):
    with cuda_autocast():
        a = model(x)
    with xla_autocast():
        b = model(x)
    return a, b, other_partial
