"""Eval file for XLA501: ``self.cuda(*items)`` that runs the project's own ``cuda``
method (which moves the items to the configured device) is not torch's ``.cuda()``;
torch's, on a tensor or on a module, still is, and so is a torch wrapper's around a
model whose class defines ``cuda`` (``DataParallel`` never calls it)."""
import torch
import torch_xla


class Tester:
    def __init__(self, model, config):
        self.model = model
        self.config = config

    def cuda(self, *items):
        return (item.to(self.config.device) for item in items)

    def test(self, loader):
        for batch in loader:
            images, masks = self.cuda(*batch)
            self.model(images, masks)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)

    def run(self, x):
        self.cuda()  # error: XLA501
        return self.fc(x.cuda())  # error: XLA501


class Student(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)

    def cuda(self, device=None):
        return self.to(torch_xla.device())

    def forward(self, x):
        return self.fc(x)


def build():
    own = Student().cuda()
    wrapped = torch.nn.DataParallel(Student()).cuda()  # error: XLA501
    return own, wrapped
