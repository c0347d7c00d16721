"""Eval file for XLA201: a loss helper's ``mode="gpu"`` default that every call keeps
makes its ``if mode == "cpu":`` fallback (copies to the host) unreachable, also when the
helper is a method that the model's loss calls per step."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 4)

    def get_losses(self, outputs, labels):
        losses = []
        for i in range(outputs.shape[0]):
            matched = self.get_assignments(outputs[i], labels[i])
            losses.append((matched * outputs[i]).sum())
        return torch.stack(losses).sum()

    def get_assignments(self, preds, gt, mode="gpu"):
        if mode == "cpu":
            preds = preds.cpu().float()  # trap: the fallback no call takes
            gt = gt.cpu()
        cost = (preds - gt.float()).abs()
        print(cost.sum().item())  # error: XLA201
        return cost

    def forward(self, x, labels):
        return self.get_losses(self.proj(x), labels)


def train(loader):
    device = torch_xla.device()
    model = Head().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, labels in pl.MpDeviceLoader(loader, device):
        loss = model(x, labels)
        loss.backward()
        xm.optimizer_step(optimizer)
