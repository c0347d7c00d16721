"""Fixture: a new input length every step, so every step compiles a new graph."""
import os

import torch
import torch_xla

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "3"))


def main() -> None:
    device = torch_xla.device()
    weight = torch.ones(1).to(device)
    for step in range(STEPS):
        x = torch.arange(step + 2, dtype=torch.float32).to(device)  # shape changes per step
        weight = weight + (x * 2).sum()
        torch_xla.sync()
    print(f"recompile_flagged: {STEPS} steps, weight {weight.item():.1f}")


if __name__ == "__main__":
    main()
