"""Eval file for XLA101: ``pad_sequence`` in a helper that the collate function calls
(``collate_fn=collate`` whose body is ``return pad_batch(items, vocab)``), against a
helper that pads again to a fixed length and one that no collate function calls."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch import nn
from torch.utils.data import DataLoader

MAX_FRAMES = 1600
VOCAB = {"a": 1, "b": 2}


def pad_batch(items, vocab):
    feats = [x for x, _ in items]
    labels = [torch.tensor([vocab[c] for c in text]) for _, text in items]
    feats = nn.utils.rnn.pad_sequence(feats, batch_first=True)  # error: XLA101
    labels = nn.utils.rnn.pad_sequence(labels, batch_first=True)  # error: XLA101
    return feats, labels


def stack_fixed(items):
    # Trap: padded again to a fixed number of frames.
    feats = nn.utils.rnn.pad_sequence([x for x, _ in items], batch_first=True)
    feats = F.pad(feats, (0, 0, 0, MAX_FRAMES - feats.shape[1]))
    return feats


def embed_all(seqs):
    # Trap: no collate function calls it; it runs once on the host.
    return nn.utils.rnn.pad_sequence(seqs, batch_first=True)


def collate(items):
    return pad_batch(items, VOCAB)


def collate_fixed(items):
    return stack_fixed(items)


def fit(model, optimizer, train_set, lengths):
    device = torch_xla.device()
    table = embed_all(lengths)
    for fn in (collate, collate_fixed):
        loader = pl.MpDeviceLoader(DataLoader(train_set, batch_size=8, collate_fn=fn,
                                              drop_last=True), device)
        for feats, labels in loader:
            optimizer.zero_grad()
            loss = model(feats, labels, table)
            loss.backward()
            optimizer.step()


def pad_to_length(ids, length):
    return F.pad(ids, (0, length - ids.shape[1]))


def collate_then_fixed(items):
    # Trap: the helper's longest padding is padded again to MAX_FRAMES by another helper.
    feats, labels = pad_batch(items, VOCAB)
    return pad_to_length(feats, MAX_FRAMES), labels


def collate_into_buffer(items):
    # Trap: copied into a buffer of fixed size.
    feats, labels = pad_batch(items, VOCAB)
    out = feats.new_full((feats.shape[0], MAX_FRAMES, feats.shape[2]), 0.0)
    out[:, :feats.shape[1]] = feats
    return out, labels


def pad_predictions(outputs):
    # Trap: only a host-side gather of evaluation outputs calls it.
    return nn.utils.rnn.pad_sequence(outputs, batch_first=True)


def collate_eval_outputs(outputs):
    return pad_predictions(outputs).numpy()
