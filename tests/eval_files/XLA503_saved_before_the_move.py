"""Eval file for XLA503: a model saved before the statement that moves it to the device.

``model.to(device)`` moves the module in place; the initial weights saved before that
statement are CPU tensors wherever the module was built. The checkpoint saved after it
holds XLA tensors. (A ``.to(dtype)`` is no move.)
"""
import torch
import torch_xla

from torchvision_like import build_model


def main(out_dir, epochs):
    device = torch_xla.device()
    model = build_model("resnet50", 101)
    torch.save(model.state_dict(), f"{out_dir}/init.pt")
    model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        opt.step()
        torch_xla.sync()
    torch.save(model.state_dict(), f"{out_dir}/last.pt")  # error: XLA503


def cast_then_save(out_dir, device):
    model = build_model("resnet18", 10)
    model.to(device)
    torch.save(model.state_dict(), f"{out_dir}/moved.pt")  # error: XLA503
    model.to(torch.bfloat16)
