"""Eval file for XLA502: xm.optimizer_step all-reduces the gradients of the optimizer it
steps only; a GAN's other optimizer stepped bare still updates per replica."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def _mp_fn(index, dataset, disc, gen):
    device = torch_xla.device()
    sampler = DistributedSampler(dataset, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    loader = DataLoader(dataset, batch_size=64, sampler=sampler, drop_last=True)
    opt_d = torch.optim.Adam(disc.parameters())
    opt_g = torch.optim.Adam(gen.parameters())
    for x in pl.MpDeviceLoader(loader, device):
        d_loss = disc(gen(torch.randn_like(x)).detach()).mean() - disc(x).mean()
        opt_d.zero_grad()
        d_loss.backward()
        xm.optimizer_step(opt_d)
        g_loss = -disc(gen(torch.randn_like(x))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()  # error: XLA502
    # Trap: both reduced.
    for x in pl.MpDeviceLoader(loader, device):
        disc(x).mean().backward()
        xm.optimizer_step(opt_d)
        gen(x).mean().backward()
        xm.reduce_gradients(opt_g)
        opt_g.step()


if __name__ == "__main__":
    torch_xla.launch(_mp_fn, args=(None, None, None))
