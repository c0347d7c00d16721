"""Eval file for XLA201: ``fn(*args)`` in a helper that runs a callback every N steps
passes the values its caller handed in those positions (``every(step, 100, report, step,
loss)``), so the callback formats the step's lazy loss; handed host numbers only, it
stays silent."""
import torch
import torch_xla


def every(step, interval, fn, *args):
    if step % interval == 0:
        fn(*args)


def train(model, loader, opt, clock):
    device = torch_xla.device()
    model.to(device)

    def report(step, loss):
        print(f"step {step}: loss={loss:.4f}")  # error: XLA201

    def timing(step, seconds):
        print(f"step {step}: {seconds:.2f}s")

    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        opt.step()
        torch_xla.sync()
        every(step, 100, report, step, loss)
        every(step, 100, timing, step, clock() - 1.0)
