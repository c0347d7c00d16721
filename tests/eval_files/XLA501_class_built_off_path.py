"""Eval file for XLA501: a profiler class whose only construction sits under a flag that
the XLA branch of the parser refuses is never built on the XLA path, so its CUDA calls
are not reported; a class also built on the XLA path is."""
import argparse
import time

import torch
import torch_xla


class CudaStepTimer:
    """Per-stage timing, synchronising CUDA before each reading."""

    def __init__(self, device):
        self.device = device
        self.t = time.perf_counter()

    def tick(self):
        # Trap: built only with --profile, which the XLA branch refuses.
        torch.cuda.synchronize(self.device)
        self.t = time.perf_counter()


class NullTimer:
    def tick(self):
        pass


class MemoryProbe:
    def read(self):
        return torch.cuda.max_memory_allocated()  # error: XLA501


def train(args, model, loader, optimizer):
    device = torch_xla.device()
    timer = CudaStepTimer(device) if args.profile else NullTimer()
    probe = MemoryProbe()
    for x, y in loader:
        timer.tick()
        loss = model(x.to(device)).sum()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        timer.tick()
    return probe.read()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="xla")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if args.device == "xla":
        if args.profile:
            parser.error("--profile is CUDA-only")
    train(args, None, [], None)
