"""Eval file for XLA103: ``or`` / ``and`` between lazy tensors outside a branch test.

Python's ``a or b`` takes the truth of ``a`` to pick its result, so ``bad =
torch.isnan(loss) or torch.isinf(gnorm)`` reads the lazy ``isnan`` result on the host
every step (measured on torch_xla 2.9, PJRT_DEVICE=CPU: one read, two graph executions),
where ``torch.isnan(loss) | torch.isinf(gnorm)`` stays on the device. The last operand's
truth is never taken, and host values (``cfg.skip or args.skip``) read nothing.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def train(model, loader, optimizer, args):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        bad = torch.isnan(loss) or torch.isinf(gnorm)  # error: XLA103
        fine = torch.isfinite(loss) | torch.isfinite(gnorm)  # trap: stays on the device
        skip = args.skip_bad and args.clip  # trap: host flags
        last = args.scale or torch.ones_like(gnorm)  # trap: only the last operand is a tensor
        keep = torch.where(bad | ~fine, torch.zeros_like(gnorm), last)
        # one read per gradient, reported once, at the all()
        finite = all(torch.isfinite(p.grad).all() and args.check  # error: XLA103
                     for p in model.parameters())
        keep = keep * float(finite)
        if not skip:
            for p in model.parameters():
                p.grad.mul_(keep)
        xm.optimizer_step(optimizer)
