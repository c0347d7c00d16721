"""Eval file for XLA201: a branch of the training loop that always calls an evaluate()
looping over its own loader runs once per evaluation pass, so the reads after the call
(the predictions copied to the host for a metric) are not per-step syncs; a logging
branch that only sometimes evaluates still reads the training loss every N steps."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


@torch.no_grad()
def evaluate(model, loader, device):
    outs = []
    for x, _ in pl.MpDeviceLoader(loader, device):
        outs.append(model(x))
    return torch.cat(outs)


def train(model, opt, train_loader, val_loader, args):
    device = torch_xla.device()
    for step, (x, y) in enumerate(pl.MpDeviceLoader(train_loader, device)):
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        xm.optimizer_step(opt)
        if step % args.eval_steps == 0:
            preds = evaluate(model, val_loader, device)
            print("val mean", preds.mean().cpu().numpy())
        if step % args.log_steps == 0:
            if args.evaluate_during_training:
                evaluate(model, val_loader, device)
            print("loss", loss.item())  # error: XLA201
