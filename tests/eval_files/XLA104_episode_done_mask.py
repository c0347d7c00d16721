"""Eval file for XLA104: the returns of the episodes that ended in a batch, selected by
the batch's ``done`` flags (a boolean tensor on the device) in the learner step of an
actor-learner agent: one output length per count of finished episodes."""
import torch
import torch_xla


def learn(model, optimizer, batch, device):
    batch = {k: v.to(device) for k, v in batch.items()}
    out = model(batch["frame"])
    loss = (out["baseline"] - batch["reward"]).pow(2).mean()
    episode_returns = batch["episode_return"][batch["done"]]  # error: XLA104
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    torch_xla.sync()
    return episode_returns


def train(model, optimizer, batches):
    device = torch_xla.device()
    returns = []
    for batch in batches:
        returns.append(learn(model, optimizer, batch, device))
    # Trap: indexing by a list of step numbers gathers rows (a static shape).
    picked = torch.stack(returns)[[0, 1]]
    return picked
