"""Eval file: which code runs per step (drivers, one-off steps, switches) for XLA201."""
import argparse

import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl

USE_TPU = True
if USE_TPU == True:
    device = torch_xla.device()
else:
    device = torch.device("cuda")


class Runner:
    def __init__(self, model, optimizer, loaders):
        self.model, self.optimizer, self.loaders = model, optimizer, loaders

    def run(self, args):
        if args.smoke_test:
            self.one_debug_step()
            return
        for epoch in range(args.epochs):
            self.train_epoch(epoch)
            torch_xla.sync()
            self.save(epoch)

    def one_debug_step(self):
        batch = next(iter(pl.MpDeviceLoader(self.loaders["train"], device)))
        loss = self.model(batch).sum()
        loss.backward()
        xm.optimizer_step(self.optimizer)
        torch_xla.sync()
        print(f"debug loss {loss}")

    def train_epoch(self, epoch):
        for batch in pl.MpDeviceLoader(self.loaders["train"], device):
            loss = self.model(batch).sum()
            loss.backward()
            xm.optimizer_step(self.optimizer)
            self.optimizer.zero_grad()
            if USE_TPU == False:
                print(loss.item())
            if USE_TPU is True:
                print(loss.item())  # error: XLA201

    def save(self, epoch):
        state = {k: v.cpu() for k, v in self.model.state_dict().items()}
        torch.save(state, f"epoch{epoch}.pt")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--smoke_test", action="store_true")
    parser.add_argument("--fp16", action="store_true")
    args = parser.parse_args()
    if args.fp16:
        raise ValueError("--fp16 is not supported on TPU; use bf16 autocast")
    scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
    model = torch.nn.Linear(8, 8).to(device)
    Runner(model, torch.optim.SGD(model.parameters(), lr=0.1), {"train": []}).run(args)
    return scaler
