"""Eval file for XLA201: an evaluation pass written inline in the training loop, every N
steps: reads after the pass run once per evaluation (as in a validate() function);
reads inside it run per evaluation batch."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def fit(model, optimizer, loader, val_loader, eval_every):
    device = torch_xla.device()
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % eval_every == 0:
            total = torch.zeros((), device=device)
            with torch.no_grad():
                for vx, vy in pl.MpDeviceLoader(val_loader, device):
                    batch_loss = torch.nn.functional.cross_entropy(model(vx), vy)
                    total += batch_loss
                    print(f"batch {batch_loss.item():.4f}")  # error: XLA201
            # Trap: once per evaluation pass.
            print(f"val loss {(total / len(val_loader)).item():.4f}")
        if step % 100 == 0:
            print(f"train loss {loss.item():.4f}")  # error: XLA201


def log_metrics(model, optimizer, loader, run):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        metrics = {"loss": loss, "lr": 0.1}
        # One read (.item()); the logging call itself then gets host numbers only.
        run.log({k: (v.item() if torch.is_tensor(v) else v)  # error: XLA201
                 for k, v in metrics.items()})
