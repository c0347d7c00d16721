"""Eval file for XLA201: a validation loop over batches whose every iteration runs a whole
generation (a model method with a denoising loop of forward passes, no barrier of its
own) copies the generated result to the host once per batch for a host metric: that
copy is the generation's result, as in a loop over prompts. The same copy of a single
forward pass's output, per batch of a data loop, is a read in the middle of the step;
and a scalar read beside the generated result still is one, as is the sampler's own read
of a timestep schedule made on the device (not the result)."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch import nn


class Denoiser(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Conv1d(2, 1, 3, padding=1)

    def forward(self, x: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        return self.net(torch.cat([x, cond], dim=1))

    @torch.no_grad()
    def sample(self, cond: torch.Tensor, steps: int = 50) -> torch.Tensor:
        x = torch.randn_like(cond)
        schedule = torch.linspace(0, 999, steps, device=cond.device).long().tolist()  # error: XLA201
        for t in reversed(schedule):
            x = x - 0.1 * t / 999 * self(x, cond)
        return x


def validate(model: Denoiser, val_loader, metric) -> float:
    device = torch_xla.device()
    model.to(device).eval()
    total = 0.0
    for batch in val_loader:
        mix = batch["mix"].to(device)
        est = model.sample(mix)
        total += metric(est.cpu().numpy(), batch["target"].numpy())  # trap: the result
    return total


def validate_on_device(model: Denoiser, val_loader, metric) -> list[float]:
    device = torch_xla.device()
    model.to(device).eval()
    scores, spreads = [], []
    for batch in pl.MpDeviceLoader(val_loader, device):
        est = model.sample(batch["mix"])
        scores.append(metric(est.cpu().numpy(), batch["target"].cpu().numpy()))  # trap
        spreads.append(est.std().item())  # error: XLA201
    return scores


def denoise_once(model: Denoiser, val_loader, metric) -> float:
    device = torch_xla.device()
    model.to(device).eval()
    total = 0.0
    for batch in val_loader:
        mix = batch["mix"].to(device)
        with torch.no_grad():
            est = model(torch.randn_like(mix), mix)
        total += metric(est.cpu().numpy(), batch["target"].numpy())  # error: XLA201
    return total


def main(val_loader, metric) -> None:
    model = Denoiser()
    validate(model, val_loader, metric)
    validate_on_device(model, val_loader, metric)
    denoise_once(model, val_loader, metric)
