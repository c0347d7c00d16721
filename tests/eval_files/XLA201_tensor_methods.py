"""Eval file for XLA201: values that only tensor methods show to be tensors.

``loss_fn``, ``model`` and ``loader`` come from the caller and are not known; what the
outputs' tensor-only methods (``topk``, ``float``, ``softmax`` ...) return is a tensor,
and in a training step (backward, xm.optimizer_step) every tensor is on the XLA device.
"""
import torch_xla.core.xla_model as xm


def accuracy(output, k):
    return output.topk(k)[1].float().mean()


def token_count(batch):
    return batch["attention_mask"].long().sum()


def train(loss_fn, model, loader, optimizer):
    for batch in loader:
        loss, output = loss_fn(model, batch)
        loss.backward()
        xm.optimizer_step(optimizer)
        top1 = accuracy(output, 1)
        print(top1.item())  # error: XLA201
        confidence = output.softmax(-1).max()
        if confidence.item() > 0.9:  # error: XLA201
            print("confident")
        # Traps: casts of the batch the loader gave, read before it goes to the device
        # (a CPU batch of an unknown loader; an nn.Module has .half() too).
        print(token_count(batch).item())
        teacher = model.half()
        print("teacher:", teacher)


def summarise(loss_fn, batches):
    # Trap: no barrier, no optimizer step, no XLA loader: nothing says this runs on XLA.
    for x, y in batches:
        _, output = loss_fn(x, y)
        print(accuracy(output, 5).item())
        # Trap: numpy arrays have reshape and sum too, so they prove nothing.
        print(output.reshape(-1).sum().item())
