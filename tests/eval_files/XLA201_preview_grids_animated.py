"""Eval file for XLA201: the DCGAN tutorial's fixed-noise previews, copied to the host every
500 iterations, made into a grid and kept in a list that is only shown as an animation
after training: the transfer is the point. A list of copies that is only summed up is a
read per step."""
import matplotlib.animation as animation
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch_xla
import torchvision.utils as vutils


def train(netG, netD, loader, optG, optD, epochs: int = 5) -> None:
    device = torch_xla.device()
    netG.to(device)
    netD.to(device)
    fixed_noise = torch.randn(64, 100, 1, 1, device=device)
    img_list, norms = [], []
    iters = 0
    for epoch in range(epochs):
        for real, _ in loader:
            real = real.to(device)
            noise = torch.randn(real.size(0), 100, 1, 1, device=device)
            loss_d = netD(real).mean() - netD(netG(noise).detach()).mean()
            loss_d.backward()
            optD.step()
            loss_g = -netD(netG(noise)).mean()
            loss_g.backward()
            optG.step()
            torch_xla.sync()
            if iters % 500 == 0:
                with torch.no_grad():
                    preview = netG(fixed_noise).detach().cpu()  # trap: shown after training
                img_list.append(vutils.make_grid(preview, padding=2, normalize=True))
                norms.append(netG(fixed_noise).norm().detach().cpu())  # error: XLA201
            iters += 1
    print(sum(float(n) for n in norms))
    fig = plt.figure(figsize=(8, 8))
    ims = [[plt.imshow(np.transpose(g, (1, 2, 0)), animated=True)] for g in img_list]
    animation.ArtistAnimation(fig, ims, interval=1000).save("progress.gif")
