"""Eval file for XLA402 (non-syncfree optimizer under a GradScaler)."""
import torch
import torch.optim as optim
import torch_xla
from torch_xla.amp import syncfree
from transformers import AdamW

device = torch_xla.device()


def plain(model, loss):
    optimizer = optim.SGD(model.parameters(), lr=0.1)  # error: XLA402
    scaler = torch.amp.GradScaler("xla")
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


def chosen(model, loss, flags):
    optim_cls = syncfree.SGD if flags.syncfree else optim.SGD  # error: XLA402
    optimizer = optim_cls(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("xla")

    def train_step():
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # error: XLA402
        scaler.update()

    train_step()


def hf_adamw(model, loss):
    opt = AdamW(model.parameters())  # error: XLA402
    scaler = torch.amp.GradScaler("xla")
    scaler.scale(loss).backward()
    scaler.step(opt)


# Traps.
def syncfree_ok(model, loss):
    optimizer = syncfree.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("xla")
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    found_inf = sum(scaler._found_inf_per_device(optimizer).values())
    optimizer.step(found_inf=found_inf)


def bf16_without_scaler(model, x):
    optimizer = optim.AdamW(model.parameters())
    with torch.autocast("xla", dtype=torch.bfloat16):
        loss = model(x)
    loss.backward()
    optimizer.step()
    torch_xla.sync()


def syncfree_through_torch_scaler(model, loss):
    # torch_xla 2.9: torch.amp.GradScaler.step() ignores the syncfree protocol.
    optimizer = syncfree.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("xla")
    scaler.scale(loss).backward()
    scaler.step(optimizer)  # error: XLA402
    scaler.update()


def disabled_scaler(model, loss):
    optimizer = optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("xla", enabled=False)
    scaler.step(optimizer)


class AmpConfig:
    enabled = True
    dtype = torch.bfloat16


def scaler_for_float16_only(model, loss, amp=AmpConfig()):
    # Trap: loss scaling only for float16 (``torch.half``); the config asks for bfloat16
    optimizer = optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("xla", enabled=amp.enabled and amp.dtype == torch.half)
    scaler.step(optimizer)


def scaler_for_float16_when_asked(model, loss, args, amp=AmpConfig()):
    optimizer = optim.AdamW(model.parameters())  # error: XLA402
    scaler = torch.amp.GradScaler("xla", enabled=amp.enabled and (args.fp16 or amp.dtype == torch.float16))
    scaler.step(optimizer)


class RunConfig:
    amp = True
    use_bf16 = True


def scaler_unless_bf16(model, loss, cfg=RunConfig()):
    # Trap: ``not`` of a known setting: loss scaling is off with bfloat16
    optimizer = optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("xla", enabled=cfg.amp and not cfg.use_bf16)
    scaler.step(optimizer)


def scaler_on_a_string_test(model, loss, cfg=AmpConfig()):
    # a dtype never equals a string: ``torch.bfloat16 != "bfloat16"`` is True, the scaler is on
    optimizer = optim.AdamW(model.parameters())  # error: XLA402
    scaler = torch.amp.GradScaler("xla", enabled=cfg.dtype != "bfloat16")
    scaler.step(optimizer)
