"""Eval file for XLA104 (dynamic-shape ops)."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl

device = torch_xla.device()


def train(model, loader, optimizer, k):
    for x, y in pl.MpDeviceLoader(loader, device):
        logits = model(x)
        positives = logits[y > 0]  # error: XLA104
        idx = torch.nonzero(y)  # error: XLA104
        picked = torch.masked_select(logits, y > 0)  # error: XLA104
        uniq = y.unique()  # error: XLA104
        n = (y > 0).sum()
        head = logits[:n]  # error: XLA104
        mask = y != 0
        kept = logits[mask]  # error: XLA104
        spread = torch.repeat_interleave(logits, y, dim=0)  # error: XLA104
        counts = torch.bincount(y.view(-1), minlength=2)  # error: XLA104
        weights = counts.float()
        # Traps: a Python count, and output_size= (no read of the counts).
        twice = logits.repeat_interleave(2, dim=0)
        sized = torch.repeat_interleave(logits, y, dim=0, output_size=4 * k)
        # Traps: static-shape alternatives.
        masked = logits * (y > 0).float()
        chosen = torch.where(y > 0, logits, torch.zeros_like(logits))
        first = logits[:k]
        cols = logits[:, 0]
        gathered = logits[y]
        loss = (masked.sum() + chosen.sum() + first.sum() + cols.sum() + gathered.sum()
                + positives.sum() + idx.sum() + picked.sum() + uniq.sum() + head.sum()
                + kept.sum() + spread.sum() + twice.sum() + sized.sum() + weights.sum())
        loss.backward()
        optimizer.step()


def match(loader, optimizer):
    for cost, ious in pl.MpDeviceLoader(loader, device):
        anchor = ious.sum(0) > 0
        cols = cost[:, anchor]  # error: XLA104
        rows = cost[anchor, :]  # error: XLA104
        inline = cost[:, ious.sum(0) > 0]  # error: XLA104
        copied = anchor.clone()
        again = ious[copied]  # error: XLA104
        flat = cost.view(-1)[anchor.view(-1)]  # error: XLA104
        per_row = [ious[i] > 0 for i in range(2)]
        joined = torch.cat(per_row, 0)
        fg = cost.view(-1)[joined]  # error: XLA104
        counted = torch.stack([ious.argmax(0), ious.argmin(0)])
        rows_kept = cost[counted]  # trap: joined integer indices gather rows
        mask_idx = torch.randperm(4, device=device)[:2]
        sampled = cost[:, mask_idx]  # trap: integer indices named like a mask
        # Traps: integer and constant indices in a tuple keep the shape static.
        best = ious.argmax(0)
        picked = cost[:, best]
        corner = cost[0, 1]
        counts = anchor.long()
        summed = cost[:, counts]
        loss = (cols.sum() + rows.sum() + inline.sum() + again.sum() + flat.sum()
                + picked.sum() + corner + summed.sum() + fg.sum() + rows_kept.sum()
                + sampled.sum())
        loss.backward()
        optimizer.step()


class Dataset:
    def __getitem__(self, i):
        # Trap: CPU tensors in a dataset.
        t = torch.arange(10)
        return t[t > i]
