"""Eval file for XLA201: an environment rollout uploads each new observation to the device
and runs the policy on it, so every iteration is a step over fresh inputs (like a batch
of a loader), also inside a loop over curriculum stages. Copying the sampled actions to
the host for the environment is a device-to-host transfer per environment step. A loop
over a list of models that copies each one's output for a host metric is not such a
step."""
import gym
import numpy as np
import torch
import torch_xla
from torch import nn
from torch.distributions import Categorical


class Policy(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh())
        self.pi = nn.Linear(64, n_actions)
        self.v = nn.Linear(64, 1)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.body(x)
        return self.pi(h), self.v(h)


def train(stages: list[str], updates: int = 100, rollout: int = 128) -> None:
    device = torch_xla.device()
    for name in stages:
        envs = gym.vector.SyncVectorEnv([lambda: gym.make(name) for _ in range(8)])
        obs = torch.from_numpy(envs.reset()[0]).float().to(device)
        policy = Policy(obs.shape[1], envs.single_action_space.n).to(device)
        opt = torch.optim.Adam(policy.parameters(), lr=3e-4)
        for _ in range(updates):
            observations, actions_taken = [], []
            for _ in range(rollout):
                with torch.no_grad():
                    logits, _ = policy(obs)
                actions = Categorical(logits=logits).sample()
                observations.append(obs)
                actions_taken.append(actions)
                next_obs, rewards, term, trunc, _ = envs.step(actions.cpu().numpy())  # error: XLA201
                obs = torch.from_numpy(next_obs).float().to(device)
            with torch.no_grad():
                _, last_value = policy(obs)
            batch_obs = torch.cat(observations)
            batch_act = torch.cat(actions_taken)
            for _ in range(4):
                logits, value = policy(batch_obs)
                loss = -Categorical(logits=logits).log_prob(batch_act).mean() + \
                    (value - last_value.mean()).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                torch_xla.sync()


def compare(models: list[nn.Module], probe: np.ndarray) -> list[float]:
    device = torch_xla.device()
    x = torch.from_numpy(probe).float().to(device)
    scores = []
    for model in models:
        logits, _ = model.to(device)(x)
        scores.append(float(np.abs(logits.cpu().numpy()).mean()))  # trap: one per model
    return scores
