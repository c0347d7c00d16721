"""Eval file for XLA609 (step closures)."""
# flake8-xla: --xla-migrate=torchtpu
import torch_xla.core.xla_model as xm  # error: XLA600


def log(loss):
    print(loss)


def step(model, x):
    loss = model(x).sum()
    xm.add_step_closure(log, args=(loss,))  # error: XLA609
    # Trap: calling the function directly is the counterpart.
    log(loss)
    return loss
