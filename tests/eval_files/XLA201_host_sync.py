"""Eval file for XLA201 (host sync in the step loop)."""
import logging
import math

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch.nn.utils import clip_grad_norm_ as clip

logger = logging.getLogger(__name__)
device = torch_xla.device()
STRICT = False


def train(model, loader, optimizer, loss_fn):
    model.to(device)
    losses = []
    peak = 0.0
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 100)
    for x, y in pl.MpDeviceLoader(loader, device):
        out = model(x)
        loss = loss_fn(out, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)  # error: XLA201
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # trap: the norm stays lazy
        clip(model.parameters(), max_norm=1.0, error_if_nonfinite=True)  # error: XLA201
        clip(model.parameters(), 1.0, error_if_nonfinite=STRICT)  # trap: STRICT is False
        optimizer.step()
        plateau.step(loss)  # error: XLA201
        cosine.step()
        print(loss)  # error: XLA201
        value = loss.item()  # error: XLA201
        as_float = float(loss)  # error: XLA201
        logger.info("loss %s", loss)  # error: XLA201
        message = f"loss={loss}"  # error: XLA201
        other = "loss {}".format(loss)  # error: XLA201
        third = "loss %s" % loss  # error: XLA201
        arr = out.detach().cpu().numpy()  # error: XLA201
        on_host = out.to("cpu")  # error: XLA201
        losses.append(y.tolist())  # error: XLA201
        peak = max(peak, loss)  # error: XLA201
        lowest = min(losses or [loss], default=None)  # error: XLA201
        xm.mesh_reduce("loss", loss, sum)  # error: XLA201
        # Traps: max/min of host numbers and shapes compare on the host.
        print(max(len(losses), 4), min(x.shape[0], 8), max(losses, key=len))
        # Traps: the closure runs after the step's graph executed.
        xm.add_step_closure(lambda t: print(t.item()), args=(loss,))
        xm.add_step_closure(report, args=(loss,))
        # Traps: Python numbers, host metadata, CPU tensors.
        lr = 0.1
        print(lr, x.shape, out.dtype)
        cpu_t = torch.ones(3)
        print(cpu_t.item(), float(cpu_t.sum()))
        print(f"step done, lr={lr}")
        # Trap: the IR text of the pending graph is read without running it.
        print(f"IR: {torch_xla._XLAC._get_xla_tensors_text([loss])}")
        print(value, as_float, message, other, third, arr, on_host)
        extrema = (peak, lowest)
    # Traps: once, after the loop.
    print(loss.item())
    xm.mesh_reduce("final_loss", loss, sum)
    return losses, extrema


def report(loss):
    # Only reached through xm.add_step_closure.
    print(f"loss {loss.item():.3f}")


def log_every(msg, loss=None):
    if loss is not None:
        print(loss.item())  # error: XLA201
    return msg


def evaluate(model, loader):
    model.eval()
    correct = 0
    for data, target in pl.MpDeviceLoader(loader, device):
        pred = model(data).argmax(1)
        correct += pred.eq(target).sum().item()  # error: XLA201
    total = 0
    for data, target in pl.MpDeviceLoader(loader, device):
        total += model(data).argmax(1).eq(target).sum()
    return correct, total.item()  # once, after the loop


def train_with_helper(model, loader, optimizer):
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = model(x, y)
        loss.backward()
        optimizer.step()
        log_every("train", loss=loss)
        log_every("no tensor")
        logger.info("step %d", step)


def grad_norms(net):
    # A scalar read per parameter: N device-to-host transfers per call.
    return [p.grad.norm().item() for p in net.parameters()]  # error: XLA201


def count_params(net):
    return sum(p.numel() for p in net.parameters())


def plain_cpu_loop(data):
    # Not a step loop: no model, no backward, no loader.
    out = []
    for row in data:
        out.append(torch.tensor(row).sum().item())
    return out


@torch.no_grad()
def estimate_loss(model, get_batch, eval_iters):
    # The model runs once per iteration of a plain range: a scalar read each time.
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            x, y = get_batch(split)
            logits, loss = model(x, y)
            losses[k] = loss.item()  # error: XLA201
        out[split] = losses.mean()
    model.train()
    return out


def sample_images(model, z, n):
    # Trap: copying generated batches out is the point of an inference loop.
    images = []
    for _ in range(n):
        images.append(model(z).cpu())
    return images


def train_with_image_logging(model, loader, optimizer, writer):
    for it, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        if it % 100 == 0:
            print(loss.item())  # error: XLA201
        # Traps: a fixed number of times per epoch whatever the dataset's size.
        if it % (len(loader) // 2) == 0:
            writer.add_image("recon", model(x).detach().cpu())
        if it % len(loader) == 0:
            print(loss.item())


def train_with_epoch_summary(model, loader, optimizer):
    steps_per_epoch = len(loader)
    running = torch.zeros((), device=device)
    for i, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        running += loss.detach()
        # Trap: the last step of each pass (the counter shifted by one, modulo a name
        # bound to the loader's length), as a read after the loop.
        if (i + 1) % steps_per_epoch == 0:
            print((running / steps_per_epoch).item())
        if (i + 1) % 50 == 0:
            print(running.item())  # error: XLA201


class EpochTrainer:
    def __init__(self, model, loader, optimizer):
        self.model, self.loader, self.optimizer = model, loader, optimizer
        self.steps_per_epoch = len(loader)

    def train_epoch(self):
        for i, (x, y) in enumerate(pl.MpDeviceLoader(self.loader, device)):
            loss = torch.nn.functional.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            # Trap: the class's own steps_per_epoch = len(loader): once per pass.
            if (i + 1) % self.steps_per_epoch == 0:
                print(loss.item())


def train_with_batches_per_epoch(model, train_ds, optimizer, args):
    loader = torch.utils.data.DataLoader(train_ds, batch_size=args.batch_size, drop_last=True)
    steps_per_epoch = len(train_ds) // args.batch_size
    every = len(train_ds) // args.log_every
    for i, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        # Trap: the number of whole batches of the loop's loader (the dataset and the
        # batch size of its DataLoader): the last step of each pass.
        if (i + 1) % steps_per_epoch == 0:
            print(loss.item())
        if (i + 1) % every == 0:
            print(loss.item())  # error: XLA201


def train_with_global_step(model, train_ds, optimizer, batch_size, epochs):
    loader = torch.utils.data.DataLoader(train_ds, batch_size=batch_size, drop_last=True)
    steps_per_epoch = math.ceil(len(train_ds) / batch_size)
    five_times = steps_per_epoch // 5
    global_step = 0
    for _ in range(epochs):
        for x, y in pl.MpDeviceLoader(loader, device):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            global_step += 1
            # Traps: a count of the steps, modulo the batches of an epoch (or a fifth of
            # them): once (five times) per pass.
            if global_step % steps_per_epoch == 0:
                print(loss.item())
            if global_step % five_times == 0:
                print(loss.item())
            if global_step % 50 == 0:
                print(loss.item())  # error: XLA201


def train_with_accumulation(model, loader, optimizer, accum_steps=4):
    micro = 0
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = torch.nn.functional.cross_entropy(model(x), y) / accum_steps
        loss.backward()
        micro += 1
        if micro == accum_steps:  # (a count the loop resets: every accum_steps batches)
            optimizer.step()
            optimizer.zero_grad()
            print(loss.item())  # error: XLA201
            micro = 0


def save_checkpoint(path, model, optimizer, step):
    state = {"model": {k: v.detach().cpu() for k, v in model.state_dict().items()},  # trap: the checkpoint's write
             "optim": optimizer.state_dict(), "step": step}
    torch.save(state, path)


def log_weights(model):
    return {k: v.detach().cpu() for k, v in model.state_dict().items()}  # error: XLA201


def train_with_checkpoints(model, loader, optimizer):
    model = model.to(device)
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        if step % 1000 == 0:
            save_checkpoint("ckpt.pt", model, optimizer, step)
            log_weights(model)


def train_and_save(model, loader, optimizer):
    model = model.to(device)
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        preds = model(x).argmax(-1).cpu()  # error: XLA201
        logger.info("%s", preds)
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, "final.pt")


def save_loop_copy(model, path):
    cpu_state = {}
    for k, v in model.state_dict().items():
        cpu_state[k] = v.cpu()  # trap: copied into the saved dict
    torch.save(cpu_state, path)


def _to_cpu(state):
    return {k: v.cpu() for k, v in state.items()}  # trap: every caller saves what it returns


def save_with_helper(model, path):
    torch.save({"model": _to_cpu(model.state_dict())}, path)


def save_config_and_metric(cfg, acc, path, metrics):
    torch.save(cfg, path)
    metrics.append(acc.cpu())  # error: XLA201


def train_with_helpers(model, loader, optimizer, cfg, metrics):
    model = model.to(device)
    for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        save_config_and_metric(cfg, loss, "cfg.pt", metrics)
        if step % 1000 == 0:
            save_loop_copy(model, "a.pt")
            save_with_helper(model, "b.pt")


class AucMeter:
    def __init__(self, smooth):
        self.smooth = smooth
        self.y = []

    def update(self, y_true):
        if self.smooth:
            y_true = y_true.cpu().numpy().argmax(axis=1)  # error: XLA201
        else:
            y_true = y_true.cpu().numpy()  # error: XLA201
        self.y.extend(y_true.tolist())  # trap: every branch rebound it to a host array


def train_with_meter(model, loader, optimizer, smooth):
    model = model.to(device)
    meter = AucMeter(smooth=smooth)
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        meter.update(y)


def eval_rebinds(model, loader, smooth):
    model = model.to(device)
    for x, y in pl.MpDeviceLoader(loader, device):
        out = model(x)
        if smooth:
            y, out = y.cpu().numpy(), out.cpu().numpy()  # error: XLA201
        else:
            y, out = y.argmax(1).cpu().numpy(), out.cpu().numpy()  # error: XLA201
        print(y, out)  # trap: both branches rebound them to host arrays
        try:
            z = out.sum()
        except ValueError:
            z = None
        print(z)  # trap: a host value on every path
        with torch.no_grad():
            w = model(x).argmax(1).cpu()  # error: XLA201
        print(w)  # trap: the with block always runs
        torch_xla.sync()


def smoke_forward(model):
    x = torch.randn(2, 4, device=device)
    out = model(x)
    print("forward ok", out.sum().item())  # trap: each smoke test runs once


def smoke_backward(model):
    x = torch.randn(2, 4, device=device)
    loss = model(x).sum()
    loss.backward()
    print("backward ok", loss.item())  # trap: each smoke test runs once


def run_smoke_tests(model):
    model = model.to(device)
    for name, test in [("forward", smoke_forward), ("backward", smoke_backward)]:
        test(model)
        torch_xla.sync()
        print(name, "passed")
