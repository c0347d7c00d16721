"""Eval file for XLA104: entries taken out of a dict batch from an XLA loader.

``labels = batch.pop("labels")`` (or ``batch.get``) of a batch that MpDeviceLoader put
on the device is a lazy tensor: ``torch.where(labels != -100)`` with one argument (a
``nonzero``) has a data-dependent shape. Its three-argument form does not.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def active_tokens(labels, ignore_index=-100):
    return torch.where(labels != ignore_index)[0].numel()  # error: XLA104


def train(model, loader, optimizer):
    device = torch_xla.device()
    for batch in pl.MpDeviceLoader(loader, device):
        labels = batch.pop("labels")
        mask = batch.get("attention_mask")
        logits = model(**batch).logits
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), labels)
        loss = loss * active_tokens(labels)
        kept = torch.where(mask > 0, logits.argmax(-1), torch.zeros_like(labels))
        loss.backward()
        xm.optimizer_step(optimizer)
        del kept
