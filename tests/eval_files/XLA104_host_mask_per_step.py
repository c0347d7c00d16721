"""Eval file for XLA104: a tensor on the XLA device indexed or assigned through a
boolean mask made on the host in every step (a masked-LM collator written by hand, as
in older transformers examples) compiles a new graph for each count of True values.
Traps: a host mask made once before the loop, a host tensor indexed by a host mask, the
device-side torch.where."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def mask_tokens(inputs, mask_id, probability=0.15):
    labels = inputs.clone()
    masked = torch.bernoulli(torch.full(labels.shape, probability)).bool()
    labels[~masked] = -100  # error: XLA104
    replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked
    inputs[replaced] = mask_id  # error: XLA104
    return inputs, labels


def train(model, loader, optimizer, mask_id, vocab):
    device = torch_xla.device()
    keep = torch.ones(vocab, dtype=torch.bool)
    keep[:5] = False  # trap: a host tensor and a host mask
    for batch in pl.MpDeviceLoader(loader, device):
        inputs, labels = mask_tokens(batch, mask_id)
        logits = model(inputs)
        fixed = logits[:, :, keep]  # trap: made once before the loop, one shape
        dropout = torch.rand(labels.shape, device=device) < 0.1
        labels = torch.where(dropout, -100, labels)  # trap: on the device, static shape
        loss = torch.nn.functional.cross_entropy(fixed.flatten(0, 1), labels.flatten())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
