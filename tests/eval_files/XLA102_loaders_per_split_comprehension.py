"""Eval file for XLA102: loaders built per split in a comprehension (the PyTorch
transfer-learning tutorial's ``{x: DataLoader(image_datasets[x], ...) for x in ["train",
"val"]}``) with ``drop_last=(x == "train")``: the "val" loader keeps its short last
batch, so the line is reported. ``drop_last=(x in ("train", "val"))`` drops it for every
split, and one loader per split that all drop it is fine; a ``drop_last`` read from the
run's settings stays a setting."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def run(model, loaders, criterion, opt, device):
    for phase in ["train", "val"]:
        for inputs, labels in pl.MpDeviceLoader(loaders[phase], device):
            loss = criterion(model(inputs), labels)
            if phase == "train":
                loss.backward()
                xm.optimizer_step(opt)


def main(image_datasets, model, criterion, args):
    device = torch_xla.device()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    split = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=4,  # error: XLA102
                                            shuffle=(x == "train"), drop_last=(x == "train"))
             for x in ["train", "val"]}
    run(model, split, criterion, opt, device)
    every = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=4,
                                            drop_last=(x != "test"))
             for x in ["train", "val"]}
    run(model, every, criterion, opt, device)
    setting = {x: torch.utils.data.DataLoader(image_datasets[x], batch_size=4,  # error: XLA902
                                              drop_last=args.drop_last)
               for x in ["train", "val"]}
    run(model, setting, criterion, opt, device)
