"""Eval file for XLA201 and XLA103: a script's own predicate (``is_xla(device)``, one
``return device.type == "xla"``) decides its branches as the test it returns would: the
CPU fallback loop in its ``else`` arm is off the XLA path, the XLA arm is checked."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
from tqdm import tqdm


def is_xla(device):
    """Whether ``device`` is an XLA device."""
    return device.type == "xla"


def get_device(name):
    return torch_xla.device() if name == "tpu" else torch.device("cpu")


def train(model, loader, optimizer, name):
    device = get_device(name)
    if is_xla(device):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            xm.optimizer_step(optimizer)
            torch_xla.sync()
            print(loss.item())  # error: XLA201
    else:
        pbar = tqdm(loader)
        for x, y in pbar:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            pbar.set_postfix(loss=loss.item())
            if torch.isnan(loss):
                break
