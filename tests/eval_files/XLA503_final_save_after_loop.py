"""Eval file for XLA503: a worker function that runs the whole training (its own step
loop over a loader, then one last optimizer step for the leftover micro-batches and a
final save) is not a step function: ``model.cpu()`` before the final ``torch.save`` runs
once, after training. (A step function with a micro-batch loop over one batch's chunks
is still one step.)"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_multiprocessing as xmp


def _worker_impl(index, loader, accumulation, total_steps, is_master):
    device = torch_xla.device()
    model = torch.nn.Linear(8, 8).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = 0
    pending = 0
    while step < total_steps:
        for batch in pl.MpDeviceLoader(loader, device):
            loss = model(batch).pow(2).mean() / accumulation
            loss.backward()
            xm.master_print(loss.item())  # error: XLA201
            pending += 1
            if pending == accumulation:
                xm.optimizer_step(optimizer)
                optimizer.zero_grad()
                pending = 0
                step += 1
    if pending:
        xm.optimizer_step(optimizer)  # the leftover micro-batches
    if is_master:
        # Trap: once, after training.
        model_cpu = model.cpu().float()
        torch.save(model_cpu.state_dict(), "final.pt")


def run(index, loader):
    _worker_impl(index, loader, 4, 1000, index == 0)


if __name__ == "__main__":
    xmp.spawn(run, args=(None,))
