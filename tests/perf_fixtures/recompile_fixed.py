"""Fixture: the same input shape every step; the graph compiles once.

Ends with ``sys.exit(0)``, which is a successful run.
"""
import os
import sys

import torch
import torch_xla.core.xla_model as xm

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "3"))


def main() -> None:
    device = xm.xla_device()
    weight = torch.ones(1).to(device)
    for step in range(STEPS):
        x = torch.full((8,), float(step)).to(device)  # fixed shape
        weight = weight + (x * 2).sum()
        xm.mark_step()
    print(f"recompile_fixed: {STEPS} steps, weight {weight.item():.1f}")


if __name__ == "__main__":
    main()
    sys.exit(0)
