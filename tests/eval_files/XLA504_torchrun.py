"""Eval file for XLA504: a script that torchrun starts once per device and that sets up
the XLA process group itself (``dist.init_process_group("xla")``, as the Neuron and
torch_xla DDP guides do) is multi-replica training: a loader without a sampler feeds
every replica the same batches."""
import torch
import torch.distributed as dist
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.runtime as xr
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

dist.init_process_group("xla")
device = torch_xla.device()
data = TensorDataset(torch.randn(512, 8), torch.randint(0, 2, (512,)))
train_loader = DataLoader(data, batch_size=32, drop_last=True)  # error: XLA504
# Trap: sharded by the process group's rank and world size.
sharded = DataLoader(data, batch_size=32, drop_last=True,
                     sampler=DistributedSampler(data, num_replicas=xr.world_size(),
                                                rank=xr.global_ordinal()))
model = torch.nn.Linear(8, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for loader in (train_loader, sharded):
    for x, y in pl.MpDeviceLoader(loader, device):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)
