"""Eval file for XLA201: values drawn from a ``torch.distributions`` object.

A distribution built from lazy tensors (``Categorical(logits=policy(obs))``) samples,
scores and measures on their device: ``action.item()`` in a rollout loop reads the device
once per environment step. One built from Python numbers (a mixup ``Beta(alpha, alpha)``)
samples on the CPU, and its reads cost nothing.
"""
import torch
import torch_xla
from torch.distributions import Beta, Categorical, Normal


def rollout(policy, env, n_steps):
    device = torch_xla.device()
    obs = env.reset()
    actions, logps = [], []
    for _ in range(n_steps):
        obs_t = torch.as_tensor(obs, dtype=torch.float32, device=device).unsqueeze(0)
        with torch.no_grad():
            dist = Categorical(logits=policy(obs_t))
            action = dist.sample()
            logps.append(dist.log_prob(action))
        obs, reward, done, _ = env.step(action.item())  # error: XLA201
        actions.append(action)
        if done:
            obs = env.reset()
    return actions, logps


def train(loader, model, optimizer, alpha=0.4):
    device = torch_xla.device()
    mix = Beta(alpha, alpha)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        lam = mix.sample().item()
        idx = torch.randperm(x.size(0), device=device)
        out = model(lam * x + (1 - lam) * x[idx])
        mu, log_std = out.chunk(2, dim=-1)
        noise = Normal(mu, log_std.exp())
        loss = -noise.log_prob(y).mean() + 0.01 * noise.entropy().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if noise.entropy().mean().item() < 0.1:  # error: XLA201
            break
        torch_xla.sync()
