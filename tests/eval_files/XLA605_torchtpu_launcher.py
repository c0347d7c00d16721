"""Eval file for XLA605 (xmp.spawn / torch_xla.launch)."""
# flake8-xla: --xla-migrate=torchtpu
import torch.multiprocessing as mp
import torch_xla  # error: XLA600
import torch_xla.distributed.xla_multiprocessing as xmp  # error: XLA600


def _mp_fn(index, cfg):
    return index, cfg


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=({},))  # error: XLA605
    torch_xla.launch(_mp_fn, args=({},))  # error: XLA605
    # Trap: torch.multiprocessing.spawn is the counterpart.
    mp.spawn(_mp_fn, args=({},), nprocs=2)
