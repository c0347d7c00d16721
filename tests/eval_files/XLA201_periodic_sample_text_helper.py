"""Eval file for XLA201: a branch taken every N steps whose ``try`` block calls a helper
that generates a sample (``model.generate()`` of a model built by another package and
moved to the device, or a model's own sampling method looping over ``self.forward``; also
once per prompt of a fixed list)
reads the sample once per generation, not per step; a helper that does the same on every
step still reads per step."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from torch import nn

from models import build_model


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.head = nn.Linear(16, 100)

    def forward(self, ids):
        return self.head(self.embed(ids))

    @torch.no_grad()
    def sample(self, ids, steps):
        for _ in range(steps):
            logits = self.forward(ids)[:, -1]
            ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=-1)
        return ids


def sample_text(model, tokenizer, prompt, device):
    ids = torch.tensor([tokenizer.encode(prompt)], device=device)
    generated = model.generate(ids, max_new_tokens=32)  # error: XLA103
    torch_xla.sync()
    return tokenizer.decode(generated[0].cpu())


def sample_prompt(model, tokenizer, prompt, device):
    ids = torch.tensor([tokenizer.encode(prompt)], device=device)
    generated = model.generate(ids, max_new_tokens=16)  # error: XLA103
    torch_xla.sync()
    return tokenizer.decode(generated[0].cpu())


def sample_tiny(lm, device):
    out = lm.sample(torch.zeros(1, 1, dtype=torch.long, device=device), 16)
    return out[0].tolist()


def debug_text(model, tokenizer, ids):
    generated = model.generate(ids, max_new_tokens=4)  # error: XLA103
    torch_xla.sync()
    return tokenizer.decode(generated[0].cpu())  # error: XLA201


def train(args, data, tokenizer):
    device = torch_xla.device()
    model = build_model(args).to(device)
    lm = TinyLM().to(device)
    optimizer = torch.optim.AdamW(model.parameters())
    loader = torch.utils.data.DataLoader(data, batch_size=8, drop_last=True)
    for step, batch in enumerate(pl.MpDeviceLoader(loader, device)):
        loss = model(batch).loss + lm(batch).mean()
        loss.backward()
        optimizer.step()
        if step % args.sample_every == 0:
            try:
                print(sample_text(model, tokenizer, "Once", device))
                print(sample_tiny(lm, device))
            except UnicodeEncodeError:
                pass
        if step % (10 * args.sample_every) == 0:
            for prompt in ("Once upon", "The TPU"):
                print(sample_prompt(model, tokenizer, prompt, device))
        if args.debug:
            print(debug_text(model, tokenizer, batch[:1]))
