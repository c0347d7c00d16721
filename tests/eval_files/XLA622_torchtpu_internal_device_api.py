"""Eval file for XLA622 (torch.tpu device APIs that raise from user code)."""
# flake8-xla: --xla-migrate=torchtpu
import torch


def setup():
    if torch.tpu.is_available():  # error: XLA622
        n = torch.tpu.device_count()  # error: XLA622
        torch.tpu.synchronize()  # error: XLA622
        state = torch.tpu.get_rng_state()  # error: XLA622
        # Traps: the torch.accelerator APIs TorchTPU prefers, and public torch.tpu APIs.
        torch.accelerator.synchronize()
        torch.tpu.manual_seed(0)
        return n, state, torch.tpu.get_device_name()
    return None


@torch.compile
def compiled(x):
    # Trap: TorchTPU does not check the caller while torch.compile traces.
    torch.tpu.synchronize()
    return x + 1
