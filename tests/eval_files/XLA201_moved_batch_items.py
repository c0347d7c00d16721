"""Eval file for XLA201: a batch dict moved to the device in place, one entry at a time
(``for k, v in batch.items(): batch[k] = v.to(device)``), holds lazy tensors afterwards;
storing the moved entries back is not a copy into a CPU tensor."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 1)

    def forward(self, x, y):
        return torch.nn.functional.mse_loss(self.fc(x), y)


class Runner:
    def __init__(self, dataset):
        self.device = torch_xla.device()
        self.model = Net().to(self.device)
        self.loader = DataLoader(dataset, batch_size=32, drop_last=True)

    def model_fn(self, data):
        for key, value in data.items():
            data[key] = value.to(self.device)  # trap: an entry replaced, not a CPU store
        return self.model(**data)

    def train(self, optimizer):
        for data in self.loader:
            loss = self.model_fn(data)
            loss.backward()
            xm.optimizer_step(optimizer, barrier=True)
            print(loss.item())  # error: XLA201

    def evaluate(self):
        total = 0.0
        with torch.no_grad():
            for data in self.loader:
                loss = self.model_fn(data)
                total += loss.item()  # error: XLA201
        return total

    def check(self, rows):
        cpu = torch.zeros(len(rows))
        for i in range(len(rows)):
            cpu[i] = rows[i]  # trap: host rows into a CPU tensor
        return cpu


def relabel(model, optimizer, dataset):
    device = torch_xla.device()
    for batch in DataLoader(dataset, batch_size=32, drop_last=True):  # error: XLA302
        batch["input_ids"] = batch["input_ids"].to(device)  # trap: a dict entry rebound
        for key in list(batch):
            batch[key] = batch[key].to(device)  # trap: an entry stored back moved
        model(**batch).loss.backward()
        xm.optimizer_step(optimizer, barrier=True)


def accuracy(batch, device):
    for name in batch.keys():
        batch[name] = batch[name].to(device)
    return (batch["pred"] == batch["label"]).float().mean()


def score(model, optimizer, dataset):
    device = torch_xla.device()
    for batch, scored in DataLoader(dataset, batch_size=32, drop_last=True):
        model(batch).sum().backward()
        xm.optimizer_step(optimizer, barrier=True)
        print(accuracy(scored, device).item())  # error: XLA201
