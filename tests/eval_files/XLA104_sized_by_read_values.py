"""XLA104: a tensor sized by a number read from the device in the step (a factory's
shape, ``torch.split``'s sizes) has a new shape whenever the data changes it; sizes that
are constants, or read once before the loop, give every step the same shapes, a read
value passed as a fill value or a bound of the drawn values shapes nothing, and a CPU
tensor's shape compiles nothing."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def mean_pool(hidden, lengths):
    pieces = torch.split(hidden, lengths.tolist())  # error: XLA104, XLA201
    return torch.stack([p.mean(0) for p in pieces])


def train(loader, model, opt, device, probe):
    fixed = int(probe.sum().item())
    for x, lengths, labels in pl.MpDeviceLoader(loader, device):
        hidden = model(x)
        pooled = mean_pool(hidden, lengths)
        n_pos = int((labels > 0).sum().item())  # error: XLA201
        noise = torch.randint(0, 10, (n_pos * 4,), device=device)  # error: XLA104
        pad = torch.zeros(n_pos, 16, device=device)  # error: XLA104
        same = torch.zeros(fixed, 16, device=device) + torch.full((8,), n_pos, device=device).sum()
        drawn = torch.randint(0, n_pos + 1, (8,), device=device)
        # (a CPU histogram for the log: its shape compiles nothing)
        hist = torch.zeros(n_pos + 1)
        hist += 1
        loss = pooled.sum() + noise.sum() + pad.sum() + same.sum() + drawn.sum()
        loss.backward()
        xm.optimizer_step(opt)
