"""Eval file for XLA505: a launcher given a function that a decorator of the module
replaces (``@with_config`` returning its nested ``wrapper``) calls that wrapper with the
process index: a wrapper without a parameter fails in every process. Trap: a decorator
whose wrapper passes ``*args`` on."""
import functools

import torch_xla
import torch_xla.distributed.xla_multiprocessing as xmp


def with_config(fn):
    @functools.wraps(fn)
    def wrapper():
        return fn({"lr": 0.1})

    return wrapper


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print("start")
        return fn(*args, **kwargs)

    return wrapper


@with_config
def main(cfg):
    return torch_xla.device(), cfg


@logged
def _mp_fn(index):
    return torch_xla.device(), index


if __name__ == "__main__":
    xmp.spawn(main)  # error: XLA505
    xmp.spawn(_mp_fn)  # trap: the wrapper takes *args
