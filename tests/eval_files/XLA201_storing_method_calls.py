"""Eval file for XLA201: a loop over the members of an ensemble, each trained in full by
a function with its own training loop, is no step loop because a member's setter
(``members[i].set_anchors(anchors)``) is handed device tensors: a method named for
storing what it is handed (set_*, update, add, push, log...) is bookkeeping, not a
forward pass. The training function's once-per-epoch read is no hazard; its per-step
read is, as is a read in a loop whose unknown callable does run a forward pass."""
import torch
import torch_xla
from torch import nn


def fit_one(model, x, y, epochs=3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        total = torch.zeros((), device=x.device)
        for i in range(0, len(x) - len(x) % 32, 32):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
            loss.backward()
            optimizer.step()
            total += loss.detach()
            print(loss.item())  # error: XLA201
            torch_xla.sync()
        print(f"epoch {epoch}: {float(total):.4f}")
    return model


def fit_members(members, x, y, anchors):
    device = torch_xla.device()
    x, y = x.to(device), y.to(device)
    extra = anchors.to(device)
    out = []
    for i in range(len(members)):
        members[i].set_anchors(extra)
        out.append(fit_one(members[i], x, y))
    return out


def score_members(members, x):
    x = x.to(torch_xla.device())
    scores = []
    for i in range(len(members)):
        pred = members[i].predict(x)
        scores.append(pred.mean().item())  # error: XLA201
    return scores
