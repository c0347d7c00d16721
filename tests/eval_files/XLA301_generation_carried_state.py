"""Eval file for XLA301: denoising and decoding loops that carry a lazy tensor from one
iteration to the next with no barrier and no host read (one graph of every step)."""
import torch
import torch_xla
import batch_source
from diffusers import DDPMScheduler, UNet2DModel

device = torch_xla.device()
scheduler = DDPMScheduler(num_train_timesteps=1000)
unet = UNet2DModel(sample_size=32).to(device)

sample = torch.randn(4, 3, 32, 32).to(device)
for i, t in enumerate(scheduler.timesteps):  # error: XLA301
    with torch.no_grad():
        residual = unet(sample, t).sample
    sample = scheduler.step(residual, t, sample).prev_sample


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.GRUCell(16, 16)

    def forward(self, x, h):
        return self.cell(x, h)


decoder = Decoder().to(device)


@torch.no_grad()
def unroll(x, steps=64):
    h = torch.zeros(4, 16, device=device)
    for _ in range(steps):  # error: XLA301
        h = decoder(x, h)
    return h


@torch.no_grad()
def unroll_with_barrier(x, steps=64):
    h = torch.zeros(4, 16, device=device)
    for _ in range(steps):
        h = decoder(x, h)
        torch_xla.sync()
    return h


@torch.no_grad()
def unroll_reading_each_step(x, steps=64):
    h = torch.zeros(4, 16, device=device)
    norms = []
    for _ in range(steps):
        h = decoder(x, h)
        norms.append(h.norm().item())  # error: XLA201
    return norms


@torch.no_grad()
def unroll_on_the_host(x, steps=64):
    cpu_decoder = Decoder()
    h = torch.zeros(4, 16)
    for _ in range(steps):
        h = cpu_decoder(x.cpu(), h)
    return h


@torch.no_grad()
def unroll_over_given_items(x, items):
    # (the items may come from an XLA loader that marks each step)
    h = torch.zeros(4, 16, device=device)
    for item in items:
        h = decoder(item, h)
    return h


@torch.no_grad()
def fresh_each_step(x, steps=64):
    # (nothing is carried: each iteration's output is dropped for the next)
    out = None
    for _ in range(steps):
        out = decoder(x, torch.zeros(4, 16, device=device))
    return out


x0 = torch.randn(4, 16).to(device)
unroll(x0)
unroll_with_barrier(x0)
unroll_reading_each_step(x0)
unroll_on_the_host(x0)
unroll_over_given_items(x0, batch_source.batches())
fresh_each_step(x0)
