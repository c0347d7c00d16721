"""Eval file for XLA101: a collate function that pads to the longest of the lengths its
items carry (``motions, lengths, texts = zip(*batch)``), and a model whose forward
tokenizes with ``padding=True`` and prepends a fixed block of special tokens to the mask
(a constant width, not a re-padding to a fixed length)."""
import torch
import torch.nn.functional as F
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch.utils.data import DataLoader
from transformers import AutoModel, AutoTokenizer


def collate_motions(batch):
    motions, lengths, texts = zip(*batch)
    longest = max(lengths)  # error: XLA101
    padded = [F.pad(m, (0, 0, 0, longest - m.shape[0])) for m in motions]
    return torch.stack(padded), lengths, texts


def collate_clipped(batch):
    motions, lengths, texts = zip(*batch)
    lengths = [min(n, 196) for n in lengths]
    longest = max(lengths)  # error: XLA101
    padded = [F.pad(m[:n], (0, 0, 0, longest - n)) for m, n in zip(motions, lengths)]
    return torch.stack(padded), lengths, texts


def collate_labels(batch):
    # Trap: the largest label is no length.
    motions, labels = zip(*batch)
    classes = max(labels)
    return torch.stack(motions), torch.tensor(labels), classes


class TextEncoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tokenizer = AutoTokenizer.from_pretrained("distilbert-base-uncased")
        self.bert = AutoModel.from_pretrained("distilbert-base-uncased")
        self.token = torch.nn.Parameter(torch.randn(768))

    def forward(self, texts):
        enc = self.tokenizer(texts, padding=True, return_tensors="pt")  # error: XLA101
        ids = enc["input_ids"].to(self.token.device)
        mask = enc["attention_mask"].to(self.token.device)
        x = self.bert(ids, attention_mask=mask).last_hidden_state
        bs = x.shape[0]
        prefix = torch.ones((bs, 1), dtype=torch.bool, device=x.device)
        full_mask = torch.cat((prefix, mask.bool()), 1)
        return torch.cat((self.token.expand(bs, 1, -1), x), 1), full_mask


@torch.no_grad()
def embed_lines(lines, encoder, tokenizer, device, max_len=32):
    # Trap: each line is tokenized alone, then re-padded (sequence-first) to ``max_len``
    # rows by a block whose height is a pad width bound to a name.
    out = []
    for line in lines:
        ids = tokenizer(line, truncation=True, max_length=max_len, return_tensors="pt").input_ids.T
        pad_rows = max_len - ids.size(0)
        ids = torch.cat([ids, torch.full((pad_rows, 1), tokenizer.pad_token_id)], dim=0)
        out.append(encoder(ids.to(device)).mean(0))
        torch_xla.sync()
    return out


def fit(data, model, optimizer):
    device = torch_xla.device()
    encoder = TextEncoder().to(device)
    for fn in (collate_motions, collate_clipped, collate_labels):
        loader = DataLoader(data, batch_size=16, collate_fn=fn, drop_last=True)
        for motions, lengths, texts in pl.MpDeviceLoader(loader, device):
            h, m = encoder(texts)
            model(motions, h, m).sum().backward()
            optimizer.step()
    embed_lines(data.lines, model.embedder, encoder.tokenizer, device)
