"""Eval file for XLA301: micro-batch loops inside a step that has its own optimizer step
and barrier (or a step reported for having none), against a data loop whose only barrier
runs once per epoch."""
import torch
import torch_xla
from torch.utils.data import DataLoader


def accumulate(model, optimizer, dataset, steps, accum):
    device = torch_xla.device()
    it = iter(DataLoader(dataset, batch_size=32, drop_last=True))
    for step in range(steps):
        # Trap: the micro-batches of one step; the step's barrier follows them.
        for micro in range(accum):
            x, y = next(it)
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            (loss / accum).backward()
        optimizer.step()
        optimizer.zero_grad()
        torch_xla.sync()


def epochs(model, optimizer, dataset, n_epochs):
    device = torch_xla.device()
    loader = DataLoader(dataset, batch_size=32, drop_last=True)
    for epoch in range(n_epochs):
        for x, y in loader:  # error: XLA301
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
        torch_xla.sync()



if __name__ == "__main__":
    # nanoGPT's loop at module level, without a barrier: the step loop is reported; its
    # micro-batch loop is not (a barrier there would cut the accumulation).
    net = torch.nn.Linear(4, 2).to(torch_xla.device())
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    batches = iter(DataLoader(torch.randn(64, 4), batch_size=8, drop_last=True))
    while True:  # error: XLA301
        for micro in range(4):
            batch = next(batches).to(torch_xla.device())
            (net(batch).sum() / 4).backward()
        opt.step()
        opt.zero_grad()
