"""Eval file for XLA501: a benchmark documented to run PyTorch/XLA on GPUs

    PJRT_DEVICE=CUDA torchrun --nproc_per_node 8 bench.py --using_xla

has the CUDA devices its timer's torch.cuda.synchronize() and memory counters ask for:
those CUDA-only calls are not reported. A tensor still sent to a 'cuda' device
instead of the XLA device is."""
import time

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


class Timer:
    def start(self):
        torch.cuda.synchronize()
        self.t0 = time.time()

    def stop(self):
        torch.cuda.synchronize()
        used = torch.cuda.max_memory_allocated() / 1024 ** 3
        return time.time() - self.t0, used


def train(model, loader, optimizer):
    device = torch_xla.device()
    timer = Timer()
    scale = torch.ones(1).to("cuda")  # error: XLA501
    for x, y in pl.MpDeviceLoader(loader, device):
        timer.start()
        loss = torch.nn.functional.mse_loss(model(x) * scale.item(), y)
        loss.backward()
        optimizer.step()
        timer.stop()
