"""XLA201: after the barrier, an entry of a batch's dict of tensors (``targets["id"]``)
is looked up on the host and copied as a result, with no graph to run; an integer index
of a tensor (``boxes[0]``) is a new op after the barrier, executed by the copy, and so
is an entry of a dict stored into after the barrier."""
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
        # (an entry stored after the barrier is computed since: its read runs a graph)
        targets["area"] = boxes.sum(-1)
        area = targets["area"].cpu()  # error: XLA201
        results.append((ids, first, area, boxes.cpu()))
    return results
