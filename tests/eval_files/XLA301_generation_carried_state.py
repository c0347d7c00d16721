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


@torch.no_grad()
def ancestral(x, betas, alphas, steps=100):
    for i in reversed(range(steps)):  # error: XLA301
        eps = unet(x, i).sample
        mean = (x - betas[i] * eps) / alphas[i]
        x = mean + betas[i] * torch.randn_like(x)
    return x


@torch.no_grad()
def lstm_unroll(x, cell, steps=32):
    h = torch.zeros(4, 16, device=device)
    c = torch.zeros(4, 16, device=device)
    for _ in range(steps):  # error: XLA301
        h, c = cell(x, (h, c))
    return h


@torch.no_grad()
def fixed_point(x, tol=1e-4):
    z = torch.zeros_like(x)
    for _ in range(100):
        z_next = decoder(z, x)
        if (z_next - z).norm() < tol:  # error: XLA103
            break
        z = z_next
    return z


class Img2Img:
    def __init__(self):
        self.scheduler = DDPMScheduler(num_train_timesteps=1000)

    @torch.no_grad()
    def sample(self, latents, strength=0.5):
        for t in self.scheduler.timesteps:  # error: XLA301
            latents = self.scheduler.step(unet(latents, t).sample, t, latents).prev_sample
        start = int(1000 * (1 - strength))
        timesteps = self.scheduler.timesteps[start:]
        for t in timesteps:  # error: XLA301
            latents = self.scheduler.step(unet(latents, t).sample, t, latents).prev_sample
        return latents


cell = torch.nn.LSTMCell(16, 16).to(device)
ancestral(sample, torch.rand(100, device=device), torch.rand(100, device=device))
lstm_unroll(x0, cell)
fixed_point(x0)
pipe = Img2Img()
pipe.sample(sample)
