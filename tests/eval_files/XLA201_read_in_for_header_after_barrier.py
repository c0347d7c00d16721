"""XLA201: a ``for`` statement's iterable runs once, before the loop's first iteration,
after the statements before the ``for``: a copy in the header of an inner loop written
after the barrier copies a result and runs no graph; without the barrier before it, or in
a ``while`` test (evaluated again on every iteration), it executes the pending graph."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


@torch.no_grad()
def evaluate(model, loader, device):
    results = []
    for images, targets in pl.MpDeviceLoader(loader, device):
        boxes = model(images)
        torch_xla.sync()
        for box, image_id in zip(boxes.cpu(), targets["image_id"].cpu().tolist()):
            results.append((box, image_id))
    return results


@torch.no_grad()
def evaluate_unsynced(model, loader, device):
    results = []
    for images, targets in pl.MpDeviceLoader(loader, device):
        boxes = model(images)
        for box in boxes.cpu():  # error: XLA201
            results.append(box)
    return results
