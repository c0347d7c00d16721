"""Eval file for XLA301: an epoch loop whose steps are the loops over the data that each
epoch runs is not itself a step loop, even when the epoch function ends with one more
optimizer step (the last partial accumulation bucket)."""
import torch
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def single_epoch(model, loader, opt, grad_acc=1):
    i = 0
    for x, y in loader:
        i += 1
        loss = model(x).sum()
        loss.backward()
        if i % grad_acc == 0:
            xm.optimizer_step(opt)
            opt.zero_grad()
    if i % grad_acc != 0:
        xm.optimizer_step(opt)
        opt.zero_grad()


def plain_epoch(model, loader, opt, device):
    for x, y in loader:  # error: XLA301
        loss = model(x.to(device)).sum()
        loss.backward()
        opt.step()


def main(train_loader):
    device = xm.xla_device()  # error: XLA508
    model = torch.nn.Linear(2, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        single_epoch(model, pl.ParallelLoader(train_loader, [device]).per_device_loader(device),
                     opt, grad_acc=4)
    for epoch in range(10):
        plain_epoch(model, train_loader, opt, device)


main(torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 2)),
                                 batch_size=8, drop_last=True))
