"""XLA201: leaving ``with xp.StepTrace(...)`` (or ``with torch_xla.step():``) runs the
barrier, as does a block whose last statement is one: a copy written after such a block
copies results and runs no graph. A copy inside the block, before the barrier, executes
the pending graph."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.debug.profiler as xp


def train(model, loader, optimizer, log_every=20):
    device = torch_xla.device()
    model.to(device).train()
    for step, (x, y) in enumerate(loader):
        with xp.StepTrace("train_step", step_num=step):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            early = loss.detach().cpu()  # error: XLA201
        if step % log_every == 0:
            print(step, loss.detach().cpu(), early)


def evaluate(model, loader):
    device = torch_xla.device()
    outs = []
    for x, _ in loader:
        with torch.no_grad():
            logits = model(x.to(device))
            torch_xla.sync()
        outs.append(logits.cpu())
    return outs
