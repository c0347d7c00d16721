"""Eval file for XLA301: a helper that draws the micro-batches of one step with
``next(it)`` and steps the optimizer after them is part of its caller's step: the
caller's loop is the step loop, judged by its own barrier."""
import torch
import torch_xla
from torch.utils.data import DataLoader, TensorDataset


def accumulate_step(model, data_iter, optimizer, accum, device):
    optimizer.zero_grad()
    for _ in range(accum):
        x, y = next(data_iter)
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device)) / accum
        loss.backward()
    optimizer.step()
    return loss


def synced_epoch(model, loader, optimizer, device, steps=100):
    it = iter(loader)
    for _ in range(steps):
        accumulate_step(model, it, optimizer, 4, device)
        torch_xla.sync()


def unsynced_epoch(model, loader, optimizer, device, steps=100):
    it = iter(loader)
    for _ in range(steps):  # error: XLA301
        accumulate_step(model, it, optimizer, 4, device)


def main():
    device = torch_xla.device()
    model = torch.nn.Linear(32, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ds = TensorDataset(torch.randn(6400, 32), torch.randint(0, 2, (6400,)))
    loader = DataLoader(ds, batch_size=16, shuffle=True, drop_last=True)
    synced_epoch(model, loader, optimizer, device)
    unsynced_epoch(model, loader, optimizer, device)


if __name__ == "__main__":
    main()
