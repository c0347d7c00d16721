"""Eval file for XLA501: ``"xla" if CFG.device == "TPU" else "cuda"`` is a switch between
the TPU and GPU runs whose test the XLA path decides (the TPU branch imports torch_xla):
its CUDA arm never runs there. A CUDA availability probe (``"cuda" if
torch.cuda.is_available() else "cpu"``) silently picks the CPU on an XLA host and is
still reported."""
import torch


class CFG:
    device = "TPU"


if CFG.device == "TPU":
    import torch_xla

    DEVICE = torch_xla.device()
else:
    DEVICE = torch.device("cuda")

AMP_DEVICE = "xla" if CFG.device == "TPU" else "cuda"
probe_device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501


def step(model, batch):
    with torch.autocast(device_type=AMP_DEVICE, dtype=torch.bfloat16):
        return model(batch.to(DEVICE)).mean()


def place(t):
    return t.to(probe_device)
