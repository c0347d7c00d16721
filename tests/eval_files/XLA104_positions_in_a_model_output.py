"""Eval file for XLA104: a model of the project returns a dict that also holds Python ints.

Its forward packs the loss and the logits (tensors) with the positions it sliced at (a
pair of ints from a shape): slicing the gradients by those positions has a static shape.
The tensors of the dict stay tensors on the device.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


class Reasoner(torch.nn.Module):
    def __init__(self, dim, steps):
        super().__init__()
        self.embed = torch.nn.Linear(dim, dim)
        self.head = torch.nn.Linear(dim, 2)
        self.steps = steps

    def forward(self, x, labels):
        h = self.embed(x)
        start = h.shape[1]
        thoughts = h[:, -1:, :].expand(-1, self.steps, -1)
        h = torch.cat([h, thoughts], dim=1)
        logits = self.head(h[:, -1])
        result = {"loss": torch.nn.functional.cross_entropy(logits, labels),
                  "logits": logits}
        result["thought_positions"] = (start, start + self.steps)
        result["hidden"] = h
        return result


def train(loader, dim):
    device = torch_xla.device()
    model = Reasoner(dim, 4).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, labels in pl.MpDeviceLoader(loader, device):
        outputs = model(x, labels)
        t_start, t_end = outputs["thought_positions"]
        hidden = outputs["hidden"]
        thought = hidden[:, t_start:t_end, :]
        loss = outputs["loss"] + 0.01 * thought.pow(2).mean()
        loss.backward()
        xm.optimizer_step(optimizer)
        optimizer.zero_grad()
        print(outputs["loss"].item())  # error: XLA201
        top = outputs["logits"].argmax(-1)
        first = hidden[:, :top.sum()]  # error: XLA104
        del first
