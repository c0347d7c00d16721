"""Eval file for XLA501: a CUDA device constant that the script reads only where
torch_xla is missing (``except ModuleNotFoundError:``) or compares with a string places
nothing on the XLA path; one that a tensor goes to on the XLA path is reported."""
import torch
from transformers import AutoModel

# Ignored when torch_xla is installed.
DEVICE = "cuda"
MASK_DEVICE = "cuda"  # error: XLA501


def main(name):
    use_gpu = DEVICE == "cuda"
    model = AutoModel.from_pretrained(name)
    try:
        import torch_xla.core.xla_model as xm
        model = model.to(xm.xla_device())
    except ModuleNotFoundError:
        model = model.to(DEVICE)
    mask = torch.ones(4, 4).to(MASK_DEVICE)
    return use_gpu, model, mask
