"""Eval file for XLA501: backend classes, and the default device set to CUDA.

A class written for CUDA (``class CudaBackend(Backend)``) beside a class of the same
base written for the XLA device is the GPU choice of a backend table: the XLA run
builds the XLA class. ``torch.set_default_device("cuda")`` (and a CUDA default tensor
type) sends every later factory call's tensor to a GPU the XLA host does not have.
"""
import os

import torch
import torch_xla


class Backend:
    name = "cpu"

    def device(self):
        return torch.device("cpu")

    def end_step(self):
        pass


class CudaBackend(Backend):
    def device(self):
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))

    def end_step(self):
        torch.cuda.synchronize()


class TPUBackend(Backend):
    def device(self):
        return torch_xla.device()

    def end_step(self):
        torch_xla.sync()


class Profiler:
    def __init__(self):
        self.device = torch.device("cuda")  # error: XLA501


BACKENDS = {"cpu": Backend, "gpu": CudaBackend, "tpu": TPUBackend}


def setup(seed):
    torch.manual_seed(seed)
    torch.set_default_device("cuda")  # error: XLA501
    torch.set_default_tensor_type(torch.cuda.FloatTensor)  # error: XLA501
    torch.set_default_dtype(torch.float32)
