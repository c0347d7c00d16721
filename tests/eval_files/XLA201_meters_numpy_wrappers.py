"""Eval file for XLA201: reads through meter objects, NumPy, map() and loader wrappers."""
import numpy as np
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class RunningMeter:
    def __init__(self):
        self.val = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n


def to_device(batch, device):
    return [t.to(device) for t in batch]


class OnDevice:
    """Moves each batch of a plain loader to the device (no barrier)."""

    def __init__(self, loader, device):
        self.loader, self.device = loader, device

    def __iter__(self):
        for batch in self.loader:
            yield to_device(batch, self.device)


def train(model, loader, optimizer):
    device = torch_xla.device()
    meter = RunningMeter()
    window = []
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)
        meter.update(loss.detach(), x.size(0))
        window.append(loss.detach())
        if step % 10 == 0:
            print(f"loss {meter.val:.4f}")  # error: XLA201
            print(np.mean(window))  # error: XLA201
            print(len(window))
            print(f"{sum(window) / len(window):.3f}")  # error: XLA201
            print(list(map(float, window)))  # error: XLA201
            print(np.zeros(3), list(map(str, range(3))))


def predict(dataset):
    device = torch_xla.device()
    plain_loader = torch.utils.data.DataLoader(dataset, batch_size=16, drop_last=True)
    model = torch.nn.Linear(16, 2).to(device)
    preds = []
    for x, _ in OnDevice(plain_loader, device):
        preds.append(model(x).cpu())  # error: XLA201
    return torch.cat(preds)


class MetricLogger:
    """DeiT/MAE style: reads tensors it is given as keywords."""

    def __init__(self):
        self.values = {}

    def update(self, **kwargs):
        for name, value in kwargs.items():
            if isinstance(value, torch.Tensor):
                value = value.item()  # error: XLA201
            self.values[name] = value

    def log_all(self, *values):
        return [float(v) for v in values]  # error: XLA201


def train_logged(model, loader, optimizer):
    device = torch_xla.device()
    logger = MetricLogger()
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        xm.optimizer_step(optimizer)
        logger.update(loss=loss.detach(), lr=optimizer.param_groups[0]["lr"])
        logger.log_all(loss.detach())


def validate_with_toolbelt(model, loader, device):
    """pytorch_toolbelt's to_numpy(x) is x.detach().cpu().numpy() for a tensor."""
    from pytorch_toolbelt.utils import to_numpy
    scores = []
    for x in pl.MpDeviceLoader(loader, device):
        scores.extend(to_numpy(model(x).softmax(-1)))  # error: XLA201
    return np.array(scores)
