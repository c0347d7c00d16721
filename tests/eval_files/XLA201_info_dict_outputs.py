"""Eval file for XLA201: a step helper that stores a forward pass's outputs into the dict
it was handed (``info["loss_dict"] = model(batch)``) and returns it; the loop reads the
entries of that dict of outputs, lazy tensors on the device. A key stored before the use
with host floats replaces them, and a non-constant key drawn from a list of names reads
only those names' entries (not the gradient norm, a tensor), and so does ``.get`` of a
constant key."""
import torch
import torch_xla


def batch_forward(model, batch, info):
    info["loss_dict"] = model(batch)
    return info


def log_step(writer, info, step):
    for k in ["epoch", "lr"]:
        writer.add_scalar(k, info[k], step)  # (host values: the names read are known)
    for k, v in info["loss_dict"].items():
        writer.add_scalar(k, v, step)  # error: XLA201


def train(model, loader, optimizer, writer):
    device = torch_xla.device()
    model.to(device)
    info = {"epoch": 0, "lr": 0.1, "grad_norm": None}
    totals = {}
    for step, batch in enumerate(loader):
        batch = batch.to(device)
        info = batch_forward(model, batch, info)
        info["loss_dict"]["loss"].backward()
        info["grad_norm"] = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        log_step(writer, info, step)
        torch_xla.sync()
        for k, v in info["loss_dict"].items():
            totals.setdefault(k, []).append(v.item())  # error: XLA201
        loss = info["loss_dict"].get("loss")
        print(f"{loss:.4f}")  # error: XLA201
    info["loss_dict"] = {k: sum(v) / len(v) for k, v in totals.items()}
    log_step(writer, info, 0)


def evaluate(model, loader, writer):
    device = torch_xla.device()
    model.to(device)
    info = {"epoch": 1, "lr": 0.0}
    for step, batch in enumerate(loader):
        info = batch_forward(model, batch.to(device), info)
        info["loss_dict"] = {"loss": 0.0}  # (host values from here on)
        for k, v in info["loss_dict"].items():
            writer.add_scalar(k, v, step)
        torch_xla.sync()


def report(model, loader):
    device = torch_xla.device()
    model.to(device)
    info = {"epoch": 2}
    for batch in loader:
        info["loss"] = model(batch.to(device)).sum()
        epoch = info.get("epoch", 0)
        print(f"epoch {epoch}")  # (a host entry of a dict that also holds a tensor)
        last = info.get("loss")
        print(f"loss {last}")  # error: XLA201
        torch_xla.sync()


def step_with_closure(model, loader, snap, state):
    device = torch_xla.device()
    model.to(device)
    for step, batch in enumerate(loader):
        state = batch_forward(model, batch.to(device), state)
        state["total"] = model(batch.to(device)).sum()
        state.update(total=snap["total"])  # (the host copy a step closure wrote)
        state["loss_dict"] = {"n": 1}
        if step % 20 == 0:
            print(f"{state['total']:.4f} {state['loss_dict']}")
            host = {k: v for k, v in state.items() if not torch.is_tensor(v)}
            print(host)
        torch_xla.sync()


def accumulate(model, x, info):
    info.setdefault("losses", []).append(model(x).sum())
    info.setdefault("sizes", []).append(x.size(0))
    return info


def windowed(model, loader):
    device = torch_xla.device()
    model.to(device)
    info = {}
    for step, x in enumerate(loader):
        info = accumulate(model, x.to(device), info)
        torch_xla.sync()
        if step % 25 == 0:
            window = info["losses"][-25:]
            print(f"window loss {sum(window) / len(window):.4f}")  # error: XLA201
            print(f"samples {sum(info['sizes'])}")  # (host ints)


def progress(model, loader, logger):
    device = torch_xla.device()
    model.to(device)
    info = {"epoch": 0}
    for step, x in enumerate(loader):
        info = batch_forward(model, x.to(device), info)
        info["step"] = step
        losses = info.pop("loss_dict")
        torch_xla.sync()
        logger.info("progress %s", info)  # (the tensors left with the popped entry)
        logger.info("losses %s", losses)  # error: XLA201
