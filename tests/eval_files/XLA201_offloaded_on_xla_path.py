"""Eval file for XLA201/XLA104/XLA103: a helper that moves its inputs to the CPU in a
branch the XLA path always takes (``if xm:`` where ``xm`` is torch_xla's module imported
under ``try:``, or returned by a helper, with None when the import fails) works on CPU
tensors after it: the reads and dynamic shapes there are host work, not lazy ones (a
detector's label assignment offloaded after a barrier: the offloading copies themselves
copy results the barrier computed, a blocking transfer but no graph execution, and are
not reported either). The same code with an offload that only some runs take still
reads lazy tensors."""
import torch
import torch_xla

try:
    from torch_xla.core import xla_model as xm
except ImportError:
    xm = None


def get_xla_model():
    return xm


def assign(outputs, labels):
    if xm:
        torch_xla.sync()
        outputs = outputs.cpu()  # trap: after the barrier
        labels = labels.cpu()  # trap: after the barrier
    nlabel = (labels.sum(dim=2) > 0).sum(dim=1)
    total = 0
    for b in range(outputs.shape[0]):
        n = int(nlabel[b])  # trap: a CPU tensor on the XLA path
        if n == 0:
            continue
        sel = outputs[b][outputs[b, :, 4] > 0.5]  # trap: CPU
        total += sel.sum().item()  # trap: CPU
    return total


def assign_helper(outputs):
    model = get_xla_model()
    if model:
        model.wait_device_ops()
        outputs = outputs.cpu()  # error: XLA201
    return outputs[outputs[:, 4] > 0.5].sum().item()  # trap: CPU on the XLA path


def assign_not_none(outputs):
    if xm is not None:
        outputs = outputs.cpu()  # error: XLA201
    return outputs[outputs[:, 4] > 0.5].sum().item()  # trap: CPU on the XLA path


def assign_on_device(outputs, verbose):
    if verbose:
        outputs = outputs.cpu()  # error: XLA201
    return outputs[outputs[:, 4] > 0.5].sum().item()  # error: XLA104, XLA201


def train(model, loader, opt):
    device = torch_xla.device()
    model.to(device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = out.mean() + assign(out, y) + assign_helper(out) + assign_not_none(out) + \
            assign_on_device(out, False)
        loss.backward()
        opt.step()
        torch_xla.sync()
