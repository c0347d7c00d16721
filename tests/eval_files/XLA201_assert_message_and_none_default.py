"""Eval file for XLA201: the message of an ``assert`` is built only when the test fails,
so a lazy tensor formatted there is read only then; and a parameter's default filled
in by ``if max_length is None: max_length = lengths.max()`` is not read when every call
in the step passes a known length (VITS's ``sequence_mask``), but is where a call leaves
it out."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.parallel_loader as pl


def sequence_mask(length, max_length=None):
    if max_length is None:
        max_length = length.max()
    x = torch.arange(max_length, dtype=length.dtype, device=length.device)  # error: XLA201
    return x.unsqueeze(0) < length.unsqueeze(1)


def padded_mask(length, max_length=None):
    if max_length is None:
        max_length = length.max()
    x = torch.arange(max_length, dtype=length.dtype, device=length.device)  # trap: always given
    return x.unsqueeze(0) < length.unsqueeze(1)


def train(loader):
    device = torch_xla.device()
    model = torch.nn.Linear(8, 8).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, lengths in pl.MpDeviceLoader(loader, device):
        y = model(x)
        assert not torch.is_complex(y), f"y is complex! dtype: {y.dtype} : info {y}"  # trap
        mask = padded_mask(lengths, x.size(1))
        loose = sequence_mask(lengths)
        loss = (y * mask.unsqueeze(-1) * loose.unsqueeze(-1)).mean()
        loss.backward()
        xm.optimizer_step(opt)
