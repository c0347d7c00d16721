"""Eval file for XLA201: a copy out of the device whose data goes to an image, video or
figure writer (torchvision's save_image, scikit-image's imsave, PIL, wandb.Image,
TensorBoard's add_image), directly or through host-array steps and names, writes sample
images every N steps: the transfer is the point. A copy that only feeds a host metric,
a scalar read beside the sample writing, and sample images written from a module's
forward or a method its forward calls (the copy cuts the step's graph in two) are still
reported; a ``forward`` method of a class that is no torch module is no traced forward."""
import numpy as np
import skimage.io as io
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import wandb
from PIL import Image
from torchvision.utils import make_grid, save_image


class GenDisc(torch.nn.Module):
    def __init__(self, gen, disc):
        super().__init__()
        self.gen, self.disc = gen, disc
        self.calls = 0

    def forward(self, z, real):
        fake = self.gen(z)
        both = torch.cat([fake, real], 0)
        self.calls += 1
        if xm.is_master_ordinal() and self.calls % 50 == 0:
            save_image(both[:64].cpu(), "d_input.png")  # error: XLA201
        return self.disc(both)


class Recon(torch.nn.Module):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.calls = 0

    def _dump(self, recon):
        save_image(recon.cpu(), "recon.png")  # error: XLA201

    def forward(self, x):
        recon = self.net(x)
        self.calls += 1
        if self.calls % 500 == 0:
            self._dump(recon)
        return (recon - x).pow(2).mean()


class Visualizer:
    def forward(self, images, step):
        save_image(images.detach().cpu(), f"vis-{step}.png")  # trap: not a torch module


def train(gen, disc, opt, loader, writer, args):
    device = torch_xla.device()
    for step, real in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = disc(gen(torch.randn(8, 64, device=device))).mean() - disc(real).mean()
        loss.backward()
        xm.optimizer_step(opt)
        if step % args.sample_every == 0:
            fake = gen(torch.randn(16, 64, device=device))
            grid = make_grid(fake, nrow=4, normalize=True).cpu()
            pixels = grid.numpy().transpose(1, 2, 0) * 255.0
            pixels = np.clip(pixels, 0, 255).astype(np.uint8)
            io.imsave(f"samples/{step:06d}.png", pixels)
            save_image(fake.cpu(), f"samples/raw-{step:06d}.png")
            Image.fromarray(fake[0].permute(1, 2, 0).cpu().numpy().astype(np.uint8)).save("a.png")
            wandb.log({"samples": wandb.Image(fake[:4].cpu())})
            writer.add_images("fake", fake.cpu(), step)
            spread = fake.std().cpu()  # error: XLA201
            print("sample spread", float(spread))  # (a CPU tensor by then)
            print("loss", loss.item())  # error: XLA201


def train_pair(pair, opt, loader):
    device = torch_xla.device()
    recon = Recon(torch.nn.Linear(64, 64)).to(device)
    vis = Visualizer()
    for step, real in enumerate(pl.MpDeviceLoader(loader, device)):
        out = pair(torch.randn(8, 64, device=device), real)
        (out.mean() + recon(real)).backward()
        xm.optimizer_step(opt)
        if step % 200 == 0:
            vis.forward(real, step)
