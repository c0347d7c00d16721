"""XLA102: a DistributedSampler over a dataset of known size gives each replica
ceil(N / world) samples (torch/utils/data/distributed.py pads the last ones by
repeating). The last batch is whole when the batch size divides that count: for
num_replicas given as a number, for that world; for an unknown world, for every replica
count of one TPU host (1, 2, 4, 8)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
import torchvision
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def train(index):
    device = torch_xla.device()
    model = torch.nn.Linear(784, 10).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    train_set = torchvision.datasets.MNIST("data", train=True, download=True)
    test_set = torchvision.datasets.MNIST("data", train=False, download=True)
    world, rank = xr.world_size(), xr.global_ordinal()
    loaders = [
        # 60000 / 8 = 7500 per replica: 58 batches of 128 and one of 76
        DataLoader(train_set, batch_size=128,  # error: XLA102
                   sampler=DistributedSampler(train_set, num_replicas=world, rank=rank)),
        # 10000 over 1, 2, 4 or 8 replicas: 10000, 5000, 2500 or 1250 samples each
        DataLoader(test_set, batch_size=10,
                   sampler=DistributedSampler(test_set, num_replicas=world, rank=rank)),
        # 10000 / 8 = 1250 samples each: 12 batches of 100 and one of 50
        DataLoader(test_set, batch_size=100,  # error: XLA102
                   sampler=DistributedSampler(test_set, num_replicas=8, rank=rank)),
        # 10000 / 4 = 2500 samples each: 25 whole batches of 100
        DataLoader(test_set, batch_size=100,
                   sampler=DistributedSampler(test_set, num_replicas=4, rank=rank)),
    ]
    for loader in loaders:
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x.flatten(1)), y)
            loss.backward()
            xm.optimizer_step(opt)


if __name__ == "__main__":
    xmp.spawn(train)
