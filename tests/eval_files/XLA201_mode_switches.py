"""Eval file for XLA201: a mode switch the script never turns, and a tensor's type name."""
import torch
import torch_xla


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.use_l1 = False  # a default: the trainer turns it on from outside

    def forward(self, x, labels):
        out = self.lin(x)
        total = 0.0
        for i in range(out.shape[0]):
            total = total + self.assign(out[i], labels[i])
        if self.use_l1:
            print(f"l1 {total}")  # error: XLA201
        return total

    def assign(self, pred, gt, mode="gpu"):
        # Traps: every call leaves mode="gpu", so the CPU fallback never runs; .type()
        # names the tensor's type as a string, without reading its data.
        if mode == "cpu":
            pred = pred.cpu().float()
        print(f"pred type {pred.type()}")
        half = pred.type(torch.bfloat16)
        print(f"half {half}")  # error: XLA201
        return (pred - gt).abs().sum()


def probe(head, pred, gt):
    return head.assign(pred, gt)


def train(loader):
    device = torch_xla.device()
    model = Head().to(device)
    model.use_l1 = True
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = model(x.to(device), y.to(device))
        loss.backward()
        opt.step()
        torch_xla.sync()
