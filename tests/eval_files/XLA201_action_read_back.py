"""Eval file for XLA201: an epsilon-greedy agent reads its greedy action back to the host
once per environment step (``_, action = torch.max(q, 1)`` then ``action =
int(action.item())`` in one arm of the ``if``), a host sync. After that reassignment the
action is a Python int, so what the environment returns for it (rewards, states) are
host values: logging them per step is no transfer."""
import random

import gym
import torch
import torch_xla
from torch import nn


def act(net: nn.Module, state, epsilon: float, device) -> int:
    if random.random() < epsilon:
        action = random.randrange(2)
    else:
        q = net(torch.tensor([state], dtype=torch.float32, device=device))
        _, action = torch.max(q, dim=1)
        action = int(action.item())  # error: XLA201
    return action


def train(episodes: int = 100) -> None:
    device = torch_xla.device()
    env = gym.make("CartPole-v1")
    net = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for episode in range(episodes):
        state, _ = env.reset()
        total = 0.0
        done = False
        while not done:
            action = act(net, state, 0.1, device)
            next_state, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            total += reward
            print(f"episode {episode} reward {reward} total {total}")  # trap: host values
            target = torch.tensor([reward], dtype=torch.float32, device=device)
            q = net(torch.tensor([state], dtype=torch.float32, device=device))[0, action]
            loss = (q - target).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            torch_xla.sync()
            state = next_state
