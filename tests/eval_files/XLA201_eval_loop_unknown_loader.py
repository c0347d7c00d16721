"""Eval file for XLA201: an evaluation loop over a loader passed in from code the analysis
cannot read, whose outputs are copied to the host every batch."""
import torch
import torch.nn.functional as F
import torch_xla


def valid_epoch(model, data_loader):
    device = torch_xla.device()
    model.eval()
    preds, labels = [], []
    with torch.no_grad():
        for batch_idx, data in enumerate(data_loader):
            image = data["image"].to(device)
            target = data["target"].to(device)
            output = model(image)
            preds.extend(F.softmax(output, dim=-1).cpu().numpy().tolist())  # error: XLA201
            labels.extend(target.cpu().numpy().tolist())  # error: XLA201
    return preds, labels


def compare_models(models, image):
    # Trap: a loop over models (each one called once on the same input): the outputs
    # copied out of it are the loop's purpose, not a per-batch read.
    device = torch_xla.device()
    image = image.to(device)
    scores = []
    for name, net in models:
        scores.append(net(image).cpu().numpy())
    return scores


def average_losses(model, batches, device):
    losses = []
    for x in batches:
        losses.append(model(x.to(device)).mean().detach())
        stacked = torch.stack(losses)  # (trap: stays on the device)
        table = torch.tensor(losses)  # error: XLA201
        torch_xla.sync()
    return stacked, table
