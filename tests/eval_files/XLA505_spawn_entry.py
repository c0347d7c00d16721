"""Eval file for XLA505 (launcher entry point without the index)."""
import functools

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


def worker(index, cfg, tokenizer, log_every=10):
    pass


class Runner:
    def run(self):
        pass

    def run_replica(self, index):
        pass

    @staticmethod
    def entry(index):
        pass


if __name__ == "__main__":
    xmp.spawn(main)  # error: XLA505
    torch_xla.launch(train, args=({},))  # error: XLA505
    xmp.spawn(_mp_fn, args=({},))
    torch_xla.launch(good)
    runner = Runner()
    xmp.spawn(runner.run, args=())  # error: XLA505
    xmp.spawn(runner.run_replica)
    xmp.spawn(Runner.entry)
    xmp.spawn(lambda: main(), args=())  # error: XLA505
    xmp.spawn(lambda index: train(index, {}))
    torch_xla.launch(worker, args=({},))  # error: XLA505
    torch_xla.launch(worker, args=({}, None))
    xmp.spawn(worker, args=({}, None, 5))
    xmp.spawn(worker, ({}, None), nprocs=8)
    bound = functools.partial(worker, cfg={}, tokenizer=None)
    torch_xla.launch(bound)
