"""Eval file for XLA201: a graph batch whose collate function counts the graphs in Python
(``"num_graphs": len(graphs)``); MpDeviceLoader moves the tensors only, so the model's
``forward(x, batch, num_graphs)`` gets an int and sizes its pooling buffer with it, no
host read. A forward argument that is a tensor, used as a size, is one."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch import nn
from torch.utils.data import DataLoader


def collate_graphs(graphs):
    xs, batch = [], []
    for gi, g in enumerate(graphs):
        xs.append(g["x"])
        batch.append(torch.full((g["x"].shape[0],), gi, dtype=torch.long))
    return {"x": torch.cat(xs), "batch": torch.cat(batch), "y": torch.stack([g["y"] for g in graphs]),
            "num_graphs": len(graphs)}


class Pool(nn.Module):
    def __init__(self, dim: int = 64, classes: int = 6) -> None:
        super().__init__()
        self.lin = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, classes)

    def forward(self, x, batch, num_graphs):
        h = self.lin(x).relu()
        pooled = torch.zeros(num_graphs, h.shape[1], device=h.device).index_add_(0, batch, h)  # trap: an int
        return self.out(pooled)


class CountedPool(nn.Module):
    def __init__(self, dim: int = 64) -> None:
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, batch):
        num_graphs = batch.max() + 1
        return torch.zeros(num_graphs, x.shape[1], device=x.device).index_add_(0, batch, self.lin(x))  # error: XLA201


def train(dataset, epochs: int = 10) -> None:
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=32, shuffle=True, drop_last=True, collate_fn=collate_graphs)
    model = Pool().to(device)
    counted = CountedPool().to(device)
    opt = torch.optim.Adam(list(model.parameters()) + list(counted.parameters()), lr=1e-3)
    for _ in range(epochs):
        for data in pl.MpDeviceLoader(loader, device):
            logits = model(data["x"], data["batch"], data["num_graphs"])
            loss = nn.functional.cross_entropy(logits, data["y"]) + counted(data["x"], data["batch"]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
