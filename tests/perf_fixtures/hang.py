"""Fixture: runs one step, then never returns (sleeps)."""
import time

import torch
import torch_xla


def main() -> None:
    x = torch.ones(4, device=torch_xla.device())
    (x + 1).sum()
    torch_xla.sync()
    print("hang: step done, now waiting forever", flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main()
