"""Eval file for XLA503: torch.save of torch_xla's legacy DataParallel wrapper.

The wrapper keeps a deep copy of the model on every device of ``device_ids`` (by
default every XLA device), so saving the wrapper itself pickles XLA tensors; with
``device_ids=[]`` it runs the plain PyTorch/CPU model instead.
"""
import torch
import torch_xla.core.xla_model as xm
import torch_xla.distributed.data_parallel as dp


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def train(num_cores, path):
    devices = xm.get_xla_supported_devices(max_devices=num_cores) if num_cores else []
    model_parallel = dp.DataParallel(Net, device_ids=devices)
    torch.save(model_parallel, path)  # error: XLA503


def train_default(path):
    wrapped = dp.DataParallel(Net)
    torch.save(wrapped, path)  # error: XLA503


def train_on_cpu(path):
    # Trap: no device ids, so the wrapper holds the CPU model only.
    on_cpu = dp.DataParallel(Net, device_ids=[])
    torch.save(on_cpu, path)


def train_checkpoint(path, epoch):
    wrapper = dp.DataParallel(Net)
    torch.save({"epoch": epoch, "model": wrapper}, path)  # error: XLA503
