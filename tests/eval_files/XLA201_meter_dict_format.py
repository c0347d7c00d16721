"""XLA201: pytorch/examples' AverageMeter formats ``**self.__dict__`` in its ``__str__``:
every attribute by name, the lazy loss that ``update`` stored among them, so printing the
progress every N steps reads the device."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class AverageMeter:
    def __init__(self, name, fmt=":f"):
        self.name = name
        self.fmt = fmt
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def __str__(self):
        fmtstr = "{name} {val" + self.fmt + "} ({avg" + self.fmt + "})"
        return fmtstr.format(**self.__dict__)  # error: XLA201


class Counter:
    """Holds the last loss too, but its literal format string names only two fields:
    ``str.format`` formats the fields it names."""

    def __init__(self, name):
        self.name, self.count, self.last = name, 0, None

    def update(self, loss, n):
        self.count += n
        self.last = loss

    def __str__(self):
        return "{name}: {count} samples".format(**self.__dict__)


def train(loader, model, optimizer, device):
    losses = AverageMeter("Loss", ":.4e")
    seen = Counter("seen")
    for i, (images, target) in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = torch.nn.functional.cross_entropy(model(images), target)
        losses.update(loss.detach(), images.size(0))
        seen.update(loss.detach(), images.size(0))
        optimizer.zero_grad()
        loss.backward()
        xm.optimizer_step(optimizer)
        if i % 10 == 0:
            print(str(losses), str(seen), "{step}".format(step=i, last=loss.detach()))
