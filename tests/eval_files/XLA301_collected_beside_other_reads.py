"""Eval file for XLA301: a host read runs the graph of what it reads and nothing else.
A rollout loop that copies each sampled action to the host (``acts.cpu()``) but keeps the
log-probabilities and values of the same forward pass in lists holds one pending graph
per iteration, all run as one graph where the lists are finally stacked. Traps: reading
the collected tensor itself turns it into device data, and so does appending a copy."""
import torch
import torch_xla
from torch.distributions import Categorical


def rollout(envs, model, obs, steps):
    device = torch_xla.device()
    logps, values = [], []
    for _ in range(steps):  # error: XLA301
        logits, value = model(obs)
        dist = Categorical(logits=logits)
        acts = dist.sample()
        logps.append(dist.log_prob(acts))
        values.append(value.squeeze(-1))
        nxt, rewards, dones, _ = envs.step(acts.cpu().numpy())  # error: XLA201
        obs = torch.from_numpy(nxt).float().to(device)
    return torch.stack(logps), torch.stack(values)


def predict(model, batches):
    device = torch_xla.device()
    outs = []
    for x in batches:  # trap: the collected output is read itself every iteration
        out = model(x.to(device))
        outs.append(out)
        print(out.cpu().shape)  # error: XLA201
    copies = []
    for x in batches:  # trap: a host copy is what the list keeps (per batch: XLA201)
        copies.append(model(x.to(device)).cpu())  # error: XLA201
    return outs, copies
