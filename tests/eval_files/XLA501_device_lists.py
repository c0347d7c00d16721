"""Eval file for XLA501: CUDA calls guarded by a list of device kinds."""
import torch
import torch_xla


def act(net, state, device):
    state = torch.tensor([state], device=torch_xla.device())
    if device not in ["cpu", "tpu"]:
        state = state.cuda(device)  # off the XLA path: the device is "tpu" there
    if device in ("cuda", "gpu"):
        state = state.to("cuda")  # off the XLA path too
    if device in ("cuda", "tpu"):
        state = state.cuda()  # error: XLA501
    return net(state).argmax().item()
