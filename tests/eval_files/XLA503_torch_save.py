"""Eval file for XLA503 (torch.save of XLA tensors)."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm

device = torch_xla.device()


def save(model, args, epoch, path):
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.save(model.state_dict(), path)  # error: XLA503
    torch.save(optimizer.state_dict(), path)  # error: XLA503
    torch.save({"model": model.state_dict(), "epoch": epoch}, path)  # error: XLA503
    weights = torch.ones(3, device=device)
    torch.save(weights, path)  # error: XLA503
    torch.save(model.parameters(), path)  # error: XLA503
    # Traps: xm.save, CPU copies, non-tensor objects.
    torch.save([p.detach().cpu() for p in model.parameters()], path)
    xm.save(model.state_dict(), path)
    torch.save(args, path)
    torch.save(xm._maybe_convert_to_cpu(model.state_dict()), path)
    torch.save(weights.cpu(), path)
    torch.save({"epoch": epoch, "features": [1, 2, 3]}, path)


def save_cpu(model, path):
    model.cpu()
    torch.save(model.state_dict(), path)


def save_converted(model, scheduler, scaler, path):
    model.to(device)
    cpu_state = xm._maybe_convert_to_cpu(model.state_dict())
    torch.save(cpu_state, path)
    torch.save(model.cpu().state_dict(), path)
    torch.save(scheduler.state_dict(), path)
    torch.save(scaler.state_dict(), path)


def save_module(path):
    net = torch.nn.Linear(4, 2).to(device)
    torch.save(net, path)  # error: XLA503


def save_unknown(obj, state, path):
    # Traps: objects of unknown value may hold host data only.
    torch.save(obj.state_dict(), path)
    torch.save(state, path)


def save_converted_dict(model, path):
    model.to(device)
    # Trap: every tensor is moved to the CPU first.
    state = {k: v.cpu() if isinstance(v, torch.Tensor) else v for k, v in model.state_dict().items()}
    torch.save(state, path)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


class Trainer:
    """``self.model.to(...)`` in one method moves the module that another method saves."""

    def __init__(self, model, loader, device):
        self.model = model
        self.loader = loader
        self.device = device

    def save(self, path):
        torch.save(self.model.state_dict(), path)  # error: XLA503

    def train(self):
        model = self.model.to(self.device)
        for x in self.loader:
            model(x).sum().backward()
            torch_xla.sync()
        self.save("last.pt")


class StatementMove:
    """An attribute of unknown value that the class uses as a module and moves in place
    by a statement holds a module."""

    def __init__(self, net):
        self.net = net

    def fit(self):
        self.net.to(device)
        self.net.train()

    def save(self, path):
        torch.save(self.net, path)  # error: XLA503


class TensorAttribute:
    # Trap: a tensor's .to() as a statement is a no-op (it returns a copy); the attribute
    # is not used as a module, so it is no module moved to the device.
    def __init__(self, class_weights):
        self.class_weights = class_weights

    def setup(self):
        self.class_weights.to(device)

    def save(self, path):
        torch.save(self.class_weights, path)


class FreshModel:
    def __init__(self, model, device):
        self.model = model
        self.device = device

    def train(self):
        self.model.to(self.device)

    def reset(self, path):
        # Trap: the module saved is the CPU one just built in this function.
        self.model = Net()
        torch.save(self.model.state_dict(), path)


class MovedBackForSaving:
    # Trap: moved to the XLA device in one method and to the CPU in another: the
    # device at the save is not known.
    def __init__(self, model):
        self.model = model

    def fit(self):
        self.model.to(device)

    def save(self, path):
        self.model.cpu()
        torch.save(self.model.state_dict(), path)


class CastOnly:
    # Trap: a dtype cast is not a move; the module stays where it was built.
    def __init__(self):
        self.model = Net()

    def fit(self):
        self.model.to(torch.bfloat16)

    def save(self, path):
        torch.save(self.model.state_dict(), path)


def run_trainer(loader):
    Trainer(Net(), loader, torch_xla.device()).train()


class EncoderNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.encoder(x))


def save_encoder(path):
    # A submodule moves with its module: its state holds XLA tensors too.
    model = EncoderNet().to(device)
    torch.save(model.encoder.state_dict(), path)  # error: XLA503
    # Trap: a module left on the CPU.
    cpu_model = EncoderNet()
    torch.save(cpu_model.encoder.state_dict(), path)


class BaseLoop:
    def __init__(self, loader):
        self.model = Net()
        self.loader = loader

    def fit(self):
        self.model.to(device)
        for x in self.loader:
            self.model(x).sum().backward()
            torch_xla.sync()


class CheckpointingLoop(BaseLoop):
    def save(self, path):
        # The base class's fit moved the module this subclass saves.
        torch.save(self.model.state_dict(), path)  # error: XLA503


class AliasMove:
    def __init__(self, loader):
        self.model = Net()
        self.loader = loader

    def fit(self):
        # A local alias of the attribute moves the same module.
        model = self.model
        model.to(device)
        for x in self.loader:
            model(x).sum().backward()
            torch_xla.sync()

    def save(self, path):
        torch.save(self.model.state_dict(), path)  # error: XLA503
