"""Eval file for XLA201: statements left after a ``return`` (or ``raise``, ``continue``,
``break``) of their block never run, so their host reads are not reported; the same
read before the ``return`` is."""
import torch
import torch_xla


def alphas_at(betas, t):
    # Trap: an old implementation left below the early return.
    out = torch.zeros_like(t)
    return out
    for i in range(out.shape[0]):
        out[i] = torch.prod(1 - betas[:t[i]])
    return out


def scaled(x, t):
    scale = t.max().item()  # error: XLA201
    return x * scale
    print(t.tolist())  # (never runs)


def train(model, images, optimizer, steps=50):
    device = torch_xla.device()
    betas = torch.linspace(1e-4, 0.02, steps)
    for x in images:
        x = x.to(device)
        t = torch.randint(0, steps, (8,)).to(device)
        for part in x:
            if part is None:
                continue
                print(t.sum().item())  # (never runs)
        optimizer.zero_grad()
        alpha = alphas_at(betas, t)
        loss = (model(scaled(x, t)) * alpha).mean()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
