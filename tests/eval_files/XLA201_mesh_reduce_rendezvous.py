"""Eval file for XLA201: xm.mesh_reduce in a step joins a rendezvous of every replica,
which runs torch_xla.sync() (the pending graph executes mid-step) and reads the payload
sizes on the host, even when what it reduces is already a Python number. Once after the
loop it is how torch_xla's own tests report accuracy."""
import numpy as np
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def run(index):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ds = TensorDataset(torch.randn(256, 4), torch.randint(0, 2, (256,)))
    sampler = DistributedSampler(ds, num_replicas=xr.world_size(), rank=xr.global_ordinal())
    loader = pl.MpDeviceLoader(DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True),
                               device)
    seen = 0
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        xm.optimizer_step(opt)
        seen += x.shape[0]
        if step % 10 == 0:
            total = xm.mesh_reduce("seen", seen, sum)  # error: XLA201
            xm.master_print(f"step {step}: {total} samples")
        if (step + 1) % 50 == 0:
            # Trap: every 50 steps, right after a rendezvous (which ran torch_xla.sync()):
            # a Python number reduced with nothing pending on the device.
            xm.rendezvous("log")
            avg = xm.mesh_reduce("seen_avg", seen / (step + 1), np.mean)
            xm.master_print(avg)
        xm.mesh_reduce("seen_every_step", seen, sum)  # error: XLA201
    # Trap: once, after the loop.
    total = xm.mesh_reduce("seen_final", seen, np.sum)
    xm.master_print(total)


if __name__ == "__main__":
    xmp.spawn(run)
