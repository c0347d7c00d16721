"""Eval file for XLA201: an RNN's packed output, padded back, is still a lazy tensor on
the device; storing it into a tensor built on the CPU copies it to the host."""
import torch
import torch_xla
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 16, batch_first=True)

    def forward(self, x):
        lengths = [x.shape[1]] * x.shape[0]
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True,
                                                   enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, out_lengths = nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        padded = torch.zeros([out.shape[0], 64, out.shape[2]])
        padded[:, : out.shape[1]] = out  # error: XLA201
        # Trap: the lengths pad_packed_sequence returns are a CPU tensor.
        longest = int(out_lengths.max())
        same = torch.zeros([out.shape[0], 64, out.shape[2]], device=out.device)
        same[:, : out.shape[1]] = out
        return padded.to(out.device) + same, longest


def train(model, optimizer, batches):
    device = torch_xla.device()
    model = model.to(device)
    for x in batches:
        out, _ = model(x.to(device))
        out.sum().backward()
        optimizer.step()
        torch_xla.sync()
