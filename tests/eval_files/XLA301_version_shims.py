"""Eval file for XLA301: barriers reached through version shims that pick an API function
with getattr (``torch_xla.sync`` where it exists, else ``xm.mark_step``)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader

sync = getattr(torch_xla, "sync", None) or xm.mark_step  # error: XLA508
log = getattr(xm, "master_print")


def _pick(*candidates):
    """The first (owner, name) pair that exists."""
    for owner, attr in candidates:
        if hasattr(owner, attr):
            return getattr(owner, attr)
    raise ImportError("no candidate")


barrier = _pick((torch_xla, "sync"), (xm, "mark_step"))


def fit(model, optimizer, data):
    device = torch_xla.device()
    loader = DataLoader(data, batch_size=32, drop_last=True)
    for x, y in loader:  # error: XLA302
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        sync()  # the shim is torch_xla.sync or xm.mark_step: a barrier either way
    for x, y in loader:  # error: XLA302
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        barrier()
    for x, y in loader:  # error: XLA301
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
        log("step done")  # prints on the master; it does not cut the graph
