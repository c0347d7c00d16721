"""XLA501: a guarded device choice in a Dataset's methods is where its items are made (on
the host, in the loader's workers: the CPU on an XLA host), not where the model runs; the
same choice in a model class or the training function still sends the run to the CPU."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
import torchaudio


class SpectrogramDataset(torch.utils.data.Dataset):
    def __init__(self, waves, transforms):
        self.waves = waves
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.transforms = transforms.to(self.device)

    def __getitem__(self, i):
        return self.transforms(self.waves[i].to(self.device))

    def __len__(self):
        return len(self.waves)


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # error: XLA501
        self.proj = torch.nn.Linear(64, 32).to(self.device)

    def forward(self, x):
        return self.proj(x)


def train(waves):
    data = SpectrogramDataset(waves, torchaudio.transforms.MelSpectrogram(n_mels=64))
    loader = torch.utils.data.DataLoader(data, batch_size=8, drop_last=True)
    device = torch_xla.device()
    model = Encoder().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in pl.MpDeviceLoader(loader, device):
        model(x.mean(-1)).sum().backward()
        opt.step()
