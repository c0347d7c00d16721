"""Eval file for XLA505 (launcher entry point without the index)."""
import torch_xla
import torch_xla.distributed.xla_multiprocessing as xmp


def main():
    pass


def train(flags):
    pass


def _mp_fn(index, flags):
    pass


def good(index):
    pass


if __name__ == "__main__":
    xmp.spawn(main)  # error: XLA505
    torch_xla.launch(train, args=({},))  # error: XLA505
    xmp.spawn(_mp_fn, args=({},))
    torch_xla.launch(good)
