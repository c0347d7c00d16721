"""Eval file for XLA501 and XLA401: a ``device="cuda"`` parameter that the function
compares with an XLA device name selects the mode (callers on the XLA path pass
``"tpu"``), and a flag that the XLA branch forces off stays off where a helper stores it
on ``self``."""
import torch
import torch_xla

try:
    import torch_xla.core.xla_model as xm  # noqa: F401
    XLA_AVAILABLE = True
except ImportError:
    XLA_AVAILABLE = False


class Half:
    def __init__(self, half):
        self.half = half
        if self.half:
            self.scaler = torch.cuda.amp.GradScaler()  # trap: off on the XLA path


class Full:
    def __init__(self, half):
        self.half = half
        if self.half:
            self.scaler = torch.cuda.amp.GradScaler()  # error: XLA401


class Model(torch.nn.Module):
    def fit(self, loader, device="cuda", fp16=False):  # trap: a mode switch
        if device == "tpu":
            if XLA_AVAILABLE is False:
                raise RuntimeError("XLA is not available")
            else:
                self.using_tpu = True
                fp16 = False
                device = torch_xla.device()
        self._setup(device, fp16, True)
        self.half = Half(fp16)
        self.full = Full(True)
        for batch in loader:
            self.step(batch)
            torch_xla.sync()

    def _setup(self, device, fp16, amp):
        self.device = device
        self.fp16 = fp16
        self.amp = amp
        if self.fp16:
            self.scaler = torch.cuda.amp.GradScaler()  # trap: fp16 is off on the XLA path
        if self.amp:
            self.amp_scaler = torch.cuda.amp.GradScaler()  # error: XLA401

    def step(self, batch):
        return self(batch.to(self.device))


def load(path, device="cuda"):  # error: XLA501
    return torch.load(path, map_location=device)


def restore(model, path, map_location="cuda"):  # error: XLA501
    model.load_state_dict(torch.load(path, map_location=map_location))


def pick(device="cuda"):  # trap: a mode switch by a method of the name
    if device.lower().startswith("xla"):
        return torch_xla.device()
    return torch.device(device)


def place(model, device="cuda"):  # trap: a mode switch by match
    match device:
        case "tpu":
            return model.to(torch_xla.device())
        case _:
            return model.to(device)


def run(model, loader):
    model.fit(loader, device="tpu")
    restore(model, "ckpt.pt")
    place(model, pick("tpu"))
    return load("ckpt.pt")
