"""Eval file for XLA104: dynamic-shape ops in a module's forward and in step helpers."""
import torch
import torch.nn as nn
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.nn.utils.rnn import pack_padded_sequence

device = torch_xla.device()


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 8, batch_first=True)
        self.proj = nn.Linear(8, 2)

    def forward(self, x, lengths, mask):
        packed = pack_padded_sequence(x, lengths, batch_first=True)  # error: XLA104
        out, _ = self.rnn(packed)
        kept = x[x > 0]  # error: XLA104
        picked = torch.masked_select(x, mask)  # error: XLA104
        idx = mask.nonzero()  # error: XLA104
        # Traps: shape-preserving masking, three-argument where, integer indexing.
        y = x.masked_fill(mask, 0.0)
        z = torch.where(mask, x, torch.zeros_like(x))
        first = x[lengths]
        return self.proj(y + z), kept, picked, idx, out, first


def pack_on_host(rnn, x, sizes):
    # The lengths stay a CPU tensor (no read of the device), but the packed data on the
    # device has sum(lengths) rows: another shape for every total length.
    lengths = torch.tensor(sizes)
    return rnn(pack_padded_sequence(x.to(device), lengths, batch_first=True))  # error: XLA104


def pack_full_rows(rnn, x):
    # Trap: every row at the padded length packs nothing away (the shape's own sizes).
    lengths = [x.shape[1]] * x.shape[0]
    return rnn(pack_padded_sequence(x.to(device), lengths, batch_first=True))


def drop_padding(logits, labels):
    logits[labels < 0] = 0.0  # error: XLA104
    return logits


def masked_loss(logits: torch.Tensor, target: torch.Tensor, target_mask: torch.Tensor,
                order: torch.Tensor):
    # A mask handed in: its boolean dtype is not visible here, its name says it.
    picked = logits[target_mask]  # error: XLA104
    # Traps: an integer index tensor, and a mask built on the host.
    ranked = logits[order]
    host_mask = torch.tensor([True, False])
    kept = torch.arange(2)[host_mask]
    return picked.sum() + ranked.sum() + kept.sum()


def train(loader, optimizer):
    model = Encoder().to(device)
    for x, lengths, mask, labels in pl.MpDeviceLoader(loader, device):
        out = model(x, lengths, mask)[0]
        loss = drop_padding(out, labels).sum() + masked_loss(out, labels, mask, lengths)
        loss.backward()
        optimizer.step()


class Samples(torch.utils.data.Dataset):
    def __init__(self, data):
        self.data = data

    def __getitem__(self, index):
        # Trap: CPU tensors in the dataset.
        item = torch.tensor(self.data[index])
        return item[item > 0]

    def __len__(self):
        return len(self.data)
