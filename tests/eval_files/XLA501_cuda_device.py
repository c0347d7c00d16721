"""Eval file for XLA501 (hard-coded CUDA device)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


def setup(model, batch):
    device = torch.device("cuda")  # error: XLA501
    model = model.cuda()  # error: XLA501
    batch = batch.to("cuda:0")  # error: XLA501
    noise = torch.randn(4, device="cuda")  # error: XLA501
    return device, model, batch, noise


def sample(n, device="cuda"):  # error: XLA501
    return torch.randn(n, device=device)


def guarded_but_not_overwritten():
    device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
    return device


def other_spellings(model):
    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
    dev = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
    return model.to(DEVICE), torch.zeros(2, device=dev)


# Traps.
# A guarded choice the module never reads: 'cpu' on an XLA host, used (if at all) by
# importers, for instance as a checkpoint's map_location.
default_device = "cuda" if torch.cuda.is_available() else "cpu"


def guarded_and_overwritten(args):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.tpu:
        device = xm.xla_device()  # error: XLA508
    return device


def pick_device(kind):
    if kind == "tpu":
        return torch_xla.device()
    return torch.device("cuda")  # the implicit else of the XLA branch


def only_on_gpu(model):
    if torch.cuda.is_available():
        model = model.cuda()
    return model


def xla_device(model):
    device = torch_xla.device()
    torch.cuda.empty_cache()
    return model.to(device), torch.cuda.is_available()


def timed_step(model, x):
    out = model(x.to(torch_xla.device()))
    torch.cuda.synchronize()  # error: XLA501
    # Traps: no-ops without CUDA, and a guarded call.
    torch.cuda.empty_cache()
    torch.cuda.manual_seed_all(0)
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    return out


def causal_mask(n):
    # the legacy typed constructors allocate on the GPU
    mask = torch.cuda.BoolTensor(n, n).fill_(False)  # error: XLA501
    keep = torch.BoolTensor(n, n).fill_(True)  # trap: a CPU tensor
    return mask | keep


Tensor = torch.cuda.FloatTensor  # error: XLA501
HostTensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor


def noise(n):
    return Tensor(n, 100).normal_(), HostTensor(n, 1).fill_(1.0)


def guarded_and_only_printed(model):
    # Trap: the choice is only shown; the model goes to the XLA device by another binding.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print("using device:", device)
    print(f"device {device}")

    def place():
        device = torch_xla.device()
        return model.to(device)

    return place()


def guarded_printed_and_used(model):
    device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
    print("using device:", device)
    return model.to(torch.device(f"{device}"))


def shown_other_ways(model, logger):
    # Trap: shown through concatenation, format, % and str(), and tested against a name.
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    print("Using device: " + str(device))
    logger.info("device {}".format(device))
    logger.info("device %s" % device)
    print_current_config(torch.cuda.is_available(), device)
    pin = device == "cuda"

    def place():
        device = torch_xla.device()
        return model.to(device)

    return place(), pin


class Settings:
    device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501


def from_settings():
    return torch.zeros(4, device=Settings.device)


class Shown:
    # Trap: a class attribute only printed.
    device = "cuda" if torch.cuda.is_available() else "cpu"


def show():
    print("device:", Shown.device)


def print_current_config(cuda, device):
    print(f"CUDA: {cuda}, device: {device}")
