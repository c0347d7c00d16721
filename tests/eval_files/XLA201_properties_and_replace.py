"""Eval file for XLA201: reading a ``@property`` runs its getter, so a getter that calls
``.item()`` on the lazy total it accumulates syncs every step the loop reads it (a getter
that returns a host count does not). ``dataclasses.replace``
keeps the instance's class: its host fields stay host numbers, and a field replaced by a
lazy loss holds one."""
import dataclasses
import logging
from typing import Any

import torch
import torch_xla

log = logging.getLogger(__name__)


class LossTracker:
    def __init__(self):
        self.total = None
        self.count = 0

    def add(self, loss):
        self.total = loss.detach() if self.total is None else self.total + loss.detach()
        self.count += 1

    @property
    def mean(self):
        return self.total.item() / self.count  # error: XLA201

    @property
    def steps(self):
        return self.count


@dataclasses.dataclass(frozen=True)
class StepState:
    step: int = 0
    loss: Any = None


def advance(state, **updates):
    return dataclasses.replace(state, step=state.step + 1, **updates)


def train(model, loader, opt):
    device = torch_xla.device()
    model.to(device)
    tracker = LossTracker()
    state = StepState()
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        loss.backward()
        opt.step()
        torch_xla.sync()
        tracker.add(loss)
        state = advance(state, loss=loss.detach())
        if state.step % 20 == 0:  # (a host int: replace keeps the class)
            log.info("step %d mean %.4f", tracker.steps, tracker.mean)
            print(f"loss {state.loss:.4f}")  # error: XLA201
