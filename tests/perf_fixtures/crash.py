"""Fixture: runs one step, then raises."""
import torch
import torch_xla


def load_batch() -> None:
    raise RuntimeError("fixture crash: batch file not found")


def main() -> None:
    x = torch.ones(4, device=torch_xla.device())
    (x + 1).sum()
    torch_xla.sync()
    load_batch()


if __name__ == "__main__":
    main()
