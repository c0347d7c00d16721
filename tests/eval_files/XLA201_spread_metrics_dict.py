"""XLA201: ``{**loss_stats, "lr": lr}`` holds the entries of the dict it spreads: the
lazy metrics a loss module returns, formatted on the host every step by tqdm's
``set_postfix``; a dict that spreads only host numbers, or whose later key replaces the
spread lazy entry, is not read."""
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
from torch import nn
from tqdm import tqdm


class DistillationLoss(nn.Module):
    def __init__(self, teacher):
        super().__init__()
        self.teacher = teacher

    def forward(self, images, outputs, labels):
        return self.combine(self.teacher(images), outputs, labels)


def train_one_epoch(model, teacher, loader, optimizer, scheduler, epoch):
    device = torch_xla.device()
    criterion = DistillationLoss(teacher.to(device))
    model.train()
    pbar = tqdm(pl.MpDeviceLoader(loader, device), desc=f"epoch {epoch}")
    for images, labels in pbar:
        loss, loss_stats = criterion(images, model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        xm.optimizer_step(optimizer)
        scheduler.step()
        stats = {**loss_stats, "lr": scheduler.get_last_lr()[0]}
        pbar.set_postfix(stats)  # error: XLA201
        timing = {**{"epoch": epoch, "lr": scheduler.get_last_lr()[0]}}
        pbar.set_postfix(timing)
        # (a later key replaces the spread entry: the lazy loss is not shown)
        shown = {**{"loss": loss.detach(), "epoch": epoch}, "loss": None}
        print(shown)
