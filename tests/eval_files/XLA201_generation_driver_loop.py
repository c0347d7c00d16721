"""Eval file for XLA201: a loop over prompts whose every iteration runs a sampler with a
denoising step loop of its own (a barrier per step) is a driver: the decoded images it
copies to the host once per prompt are its result, not a read in the middle of a step.
A per-step read inside the sampler's own loop, and a scalar read in the driver, still are."""
import torch
import torch_xla


class Sampler:
    def __init__(self, model):
        self.model = model

    def sample(self, cond, steps):
        x = torch.randn(1, 4, 64, 64, device=torch_xla.device())
        for i in range(steps):
            x = self.model(x, cond)
            print(x.abs().max().item())  # error: XLA201
            torch_xla.sync()
        return x


def generate(model, decoder, prompts, encode):
    device = torch_xla.device()
    model, decoder = model.to(device), decoder.to(device)
    sampler = Sampler(model)
    images, scores = [], []
    for prompt in prompts:
        cond = encode(prompt).to(device)
        latent = sampler.sample(cond, 50)
        image = torch.clamp(decoder(latent), 0.0, 1.0)
        images.append(image.cpu().numpy())  # trap: the generation's result
        scores.append(image.mean().item())  # error: XLA201
    return images, scores
