"""Eval file for XLA301: evaluation loops that carry device state across batches."""
import torch
import torch_xla
from torch.utils.data import DataLoader


class Meter:
    def __init__(self):
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


@torch.no_grad()
def accuracy(model, dataset, device):
    loader = DataLoader(dataset, batch_size=100, drop_last=True)
    correct = torch.zeros((), device=device)
    for x, y in loader:  # error: XLA301
        out = model(x.to(device))
        correct += (out.argmax(-1) == y.to(device)).sum()
    return correct.item()


@torch.no_grad()
def mean_loss(model, dataset, device):
    loader = DataLoader(dataset, batch_size=100, drop_last=True)
    meter = Meter()
    for x, y in loader:  # error: XLA301
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        meter.update(loss, x.size(0))
        print(loss.item())  # error: XLA201
    return meter.sum / meter.count


@torch.no_grad()
def per_batch(model, dataset, device):
    loader = DataLoader(dataset, batch_size=100, drop_last=True)
    losses = []
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        losses.append(loss.item())  # error: XLA201
    return sum(losses) / len(losses)


@torch.no_grad()
def top1_in_place(model, dataset, device):
    loader = DataLoader(dataset, batch_size=100, drop_last=True)
    total = torch.zeros(1, device=device)
    for x, y in loader:  # error: XLA301
        out = model(x.to(device))
        hits = out.argmax(-1).eq(y.to(device))
        total.add_(hits.sum())
    return total.cpu().tolist()


@torch.no_grad()
def clamped_batches(model, dataset, device):
    loader = DataLoader(dataset, batch_size=100, drop_last=True)
    outs = []
    for x, y in loader:
        x = x.to(device)
        x.mul_(0.5)
        outs.append(model(x).argmax(-1).cpu())  # error: XLA201
    return outs


@torch.no_grad()
def synced(model, dataset, device):
    loader = DataLoader(dataset, batch_size=100, drop_last=True)
    correct = torch.zeros((), device=device)
    for x, y in loader:
        correct += (model(x.to(device)).argmax(-1) == y.to(device)).sum()
        torch_xla.sync()
    return correct.item()


def main(model, dataset):
    device = torch_xla.device()
    model = model.to(device)
    return [f(model, dataset, device) for f in (accuracy, mean_loss, per_batch, top1_in_place,
                                             clamped_batches, synced)]


def on_device(loader, device):
    for x, y in loader:
        yield x.to(device), y.to(device)


def train_steps(model, dataset, optimizer, steps):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=100, drop_last=True)
    it = iter(loader)
    for _ in range(steps):  # error: XLA301
        x, y = next(it)
        torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device)).backward()
        optimizer.step()
        optimizer.zero_grad()
    for x, y in on_device(loader, device):  # error: XLA301
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
