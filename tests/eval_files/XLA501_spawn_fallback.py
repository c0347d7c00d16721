"""Eval file: the CPU/GPU fallback of a ``try: xmp.spawn(...)`` is off the XLA path.

On a TPU the launch succeeds; the ``except`` handler runs only where it failed, so the
function it calls (a CUDA-or-CPU trainer) holds no XLA tensors and no XLA device choice.
"""
import os

import torch
import torch_xla
import torch_xla.distributed.xla_multiprocessing as xmp


def _mp_fn(rank, path):
    device = torch_xla.device()
    model = torch.nn.Linear(4, 2).to(device)
    torch.save(model.state_dict(), path)  # error: XLA503


def run_cpu_gpu(path):
    # Traps: reached only when the TPU launch failed.
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(4, 2).to(device)
    torch.save(model.state_dict(), path)


if __name__ == "__main__":
    try:
        xmp.spawn(_mp_fn, args=("model.pt",), start_method="spawn")
    except Exception as e:
        print("TPU launch failed, training on CPU/GPU:", e)
        run_cpu_gpu("model.pt")


def launch_with_settings():
    # A few settings before the launch, and a retry with another start method.
    try:
        os.environ.setdefault("PJRT_DEVICE", "TPU")
        print("launching on TPU")
        try:
            xmp.spawn(_mp_fn, args=("model.pt",), start_method="spawn")
        except ValueError:
            xmp.spawn(_mp_fn, args=("model.pt",), start_method="fork")
    except Exception:
        cuda_device = torch.device("cuda")  # (trap: only where the TPU launch failed)
        torch.nn.Linear(4, 2).to(cuda_device)


def retry_on_one_core():
    try:
        xmp.spawn(_mp_fn, args=("model.pt",))
    except Exception:
        # Not a fallback off the TPU: the handler takes the XLA device itself.
        device = torch_xla.device()
        model = torch.nn.Linear(4, 2).to(device)
        torch.save(model.state_dict(), "model.pt")  # error: XLA503
        torch.device("cuda")  # error: XLA501
