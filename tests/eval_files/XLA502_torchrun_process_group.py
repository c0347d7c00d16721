"""Eval file for XLA502: a script that sets up the XLA process group
(``dist.init_process_group("xla")``) runs as one replica per device under
``torchrun --nproc_per_node=N``, with no xmp.spawn in sight; a bare ``optimizer.step()``
of a model that no DDP wraps applies each replica's own gradients."""
import torch
import torch.distributed as dist
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, DistributedSampler


def main(dataset):
    dist.init_process_group("xla", init_method="xla://")
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sampler = DistributedSampler(dataset, num_replicas=dist.get_world_size(),
                                 rank=dist.get_rank(), drop_last=True)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler, drop_last=True)
    for x in pl.MpDeviceLoader(loader, device):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()  # error: XLA502
    # Trap: the reducing step.
    for x in pl.MpDeviceLoader(loader, device):
        model(x).sum().backward()
        xm.optimizer_step(opt)


if __name__ == "__main__":
    main(list(torch.randn(64, 4)))
