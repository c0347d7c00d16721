"""Eval file for XLA201: a loss copied to the host and read as a number in a loop that
runs the model over one fixed input.

Copying outputs out of an inference loop is the loop's point and stays unreported, but
``loss.cpu().item()`` reads a scalar per iteration: a host sync like ``loss.item()``.
"""
import torch
import torch_xla


@torch.no_grad()
def probe(model):
    device = torch_xla.device()
    ids = torch.randint(0, 100, (2, 16)).to(device)
    outputs = []
    for _ in range(10):
        out = model(ids)
        print("loss", out.cpu().item())  # error: XLA201
        outputs.append(out.cpu())
    return outputs


def main():
    model = torch.nn.Embedding(100, 8).to(torch_xla.device())
    probe(model)
