"""XLA104: a length read from the device in each step, capped by a setting the analysis
cannot see (``min(read, cfg["max_len"] // 2)``), is still a per-step slice bound: the cap
is a host number or unknown, and either way the read decides the shape."""
import numpy as np
import torch
import torch_xla

device = torch_xla.device()
model = torch.nn.Conv1d(8, 8, 3, padding=1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train(loader, config):
    max_len = config.get("max_len", 200)
    for mels, lengths in loader:
        mels, lengths = mels.to(device), lengths.to(device)
        out = model(mels)
        crop = min(int(lengths.min().item() / 2 - 1), max_len // 2)  # error: XLA201
        start = np.random.randint(0, 4)
        clip = out[:, :, start:start + crop]  # error: XLA104
        fixed = out[:, :, start:start + max_len // 2]
        (clip.sum() + fixed.sum()).backward()
        opt.step()
        torch_xla.sync()
