"""Eval file for XLA201: an epoch loop whose steps are a comprehension over the XLA
loader (``[step(x, y) for x, y in MpDeviceLoader(...)]`` with a compiled step) is an epoch
loop: the mean loss read after the comprehension runs once per epoch (the loader's ragged
last batch is XLA102's)."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader, TensorDataset


def train():
    device = torch_xla.device()
    ds = TensorDataset(torch.randn(1000, 32), torch.randn(1000, 1))
    loader = DataLoader(ds, batch_size=64, shuffle=True)  # error: XLA102
    model = torch.nn.Linear(32, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)

    @torch_xla.compile(full_graph=True)
    def train_step(x, y):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    for epoch in range(5):
        losses = [train_step(x, y) for x, y in pl.MpDeviceLoader(loader, device)]
        print(f"epoch {epoch}: {torch.stack(losses).mean().item():.4f}")  # trap: per epoch
