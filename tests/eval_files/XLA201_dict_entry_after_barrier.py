"""XLA201: after the barrier, an entry of a batch's dict of tensors (``targets["id"]``)
is looked up on the host and copied as a result, with no graph to run; an integer index
of a tensor (``boxes[0]``) is a new op after the barrier, executed by the copy."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


@torch.no_grad()
def evaluate(model, loader, device):
    results = []
    for images, targets in pl.MpDeviceLoader(loader, device):
        boxes = model(images)
        torch_xla.sync()
        ids = targets["image_id"].cpu().tolist()
        first = boxes[0].cpu()  # error: XLA201
        results.append((ids, first, boxes.cpu()))
    return results
