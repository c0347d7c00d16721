"""Eval file for XLA201: a loop whose body always ends in ``break`` (a probe of the first
batch, a sample written once per epoch) runs one pass, so what it reads is read once, not
every step. A ``break`` under an ``if``, or a ``continue`` that can start another pass
first, leaves a step loop."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def validate(model, loader, writer, epoch):
    device = torch_xla.device()
    model.eval()
    with torch.no_grad():
        for i, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
            out = model(x)
            loss = torch.nn.functional.mse_loss(out, y).item()  # trap
            writer.add_image("sample", out[0].cpu().numpy(), epoch)  # trap
            print(f"epoch {epoch} loss {loss:.4f}")
            break


def evaluate(model, loader, limit):
    device = torch_xla.device()
    for i, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        out = model(x)
        print(torch.nn.functional.mse_loss(out, y).item())  # error: XLA201
        if i >= limit:
            break


def probe(model, loader):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        if x.shape[0] < 2:
            continue
        out = model(x)
        print(out.sum().item())  # error: XLA201
        break


def smoke_test(model, dataset, opt, loss_fn):
    # one batch drawn, one step traced, cut after the loop: no ragged batch, no endless graph
    device = torch_xla.device()
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, shuffle=True)  # trap
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        break
    torch_xla.sync()


def warm_up(model, dataset, opt, loss_fn):
    device = torch_xla.device()
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, drop_last=True)
    for x, y in loader:  # trap
        x, y = x.to(device), y.to(device)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        break
    torch_xla.sync()
