"""Eval file for XLA201: every tqdm spelling iterates the loader it wraps."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, TensorDataset
from tqdm.autonotebook import tqdm
from tqdm.contrib import tenumerate
from tqdm.std import tqdm as std_tqdm

device = torch_xla.device()


def evaluate(model, loader):
    model.eval()
    preds = []
    with torch.no_grad():
        for x, _ in tqdm(loader, total=len(loader), desc="Validating"):
            out = model(x.to(device))
            preds.append(torch.softmax(out, dim=1).cpu())  # error: XLA201
    return preds


def train(model, loader, optimizer):
    total = torch.zeros((), device=device)
    for x, y in std_tqdm(pl.MpDeviceLoader(loader, device)):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        print(loss)  # error: XLA201
        total += loss.detach()
    # Trap: read once, after the loop.
    return total.item()


def evaluate_numbered(model, loader):
    scores = []
    with torch.no_grad():
        for i, (x, _) in tenumerate(loader):
            scores.append(model(x.to(device)).max(dim=1).values.cpu())  # error: XLA201
    return scores


def main():
    ds = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
    loader = DataLoader(ds, batch_size=8, drop_last=True)
    model = torch.nn.Linear(8, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, loader, optimizer)
    return evaluate(model, loader), evaluate_numbered(model, loader)
