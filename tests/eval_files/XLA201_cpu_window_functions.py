"""XLA201: a window function (``torch.hann_window``) without ``device=`` is a CPU tensor
like any torch factory, so moving it to a CPU tensor's device copies nothing from the
device; a window length given as a tensor is read on the host."""
import json

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl

device = torch_xla.device()
model = torch.nn.Linear(16, 16).to(device)


class Spectral:
    def __init__(self, n_fft=64):
        self.window = torch.hann_window(n_fft)

    def inverse(self, magnitude, phase):
        return torch.istft(torch.polar(magnitude, phase), n_fft=self.window.numel(),
                           window=self.window.to(magnitude.device))


def evaluate(loader, config):
    spectral = Spectral(config["n_fft"])
    found = []
    for x, phase in pl.MpDeviceLoader(loader, device):
        with torch.no_grad():
            out = model(x)
        # (a window's length is a size: a tensor given as one is read on the host)
        taper = torch.hann_window((out > 0).sum())  # error: XLA201
        torch_xla.sync()
        scores = out.cpu().float()
        wav = spectral.inverse(scores.abs(), phase.cpu())
        found.append((wav.numpy(), taper))
    return found


if __name__ == "__main__":
    data = [(torch.randn(4, 16), torch.randn(4, 16)) for _ in range(8)]
    with open("config.json") as f:
        evaluate(data, json.load(f))
