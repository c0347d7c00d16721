"""XLA101 fixed: static padding.

Every batch is tokenized with ``padding="max_length", max_length=MAX_LEN``, so
all batches have the same ``input_ids`` shape however long their sentences
are; XLA compiles the training step once and reuses it for every step.
"""
import os

import torch
import torch.nn as nn
import torch_xla
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 4
MAX_LEN = 64
WORDS = "the quick brown fox jumps over a lazy dog while seven tiny cats watch".split()


def build_tokenizer():
    vocab = {"[PAD]": 0, "[UNK]": 1, **{w: i + 2 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]")


def make_batch(step):
    # The longest sentence of batch `step` has step + 3 words: a new length every step.
    lengths = [max(1, step + 3 - k) for k in range(BATCH_SIZE)]
    texts = [" ".join(WORDS[(step + k + j) % len(WORDS)] for j in range(n)) for k, n in enumerate(lengths)]
    labels = [n % 2 for n in lengths]
    return texts, labels


class BagOfWords(nn.Module):
    def __init__(self, vocab_size, dim=32, num_classes=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(pooled)


def main():
    device = torch_xla.device()
    tokenizer = build_tokenizer()
    model = BagOfWords(len(tokenizer)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for step in range(STEPS):
        texts, labels = make_batch(step)
        batch = tokenizer(texts, padding="max_length", max_length=MAX_LEN, truncation=True, return_tensors="pt")
        input_ids = batch["input_ids"].to(device)
        attention_mask = batch["attention_mask"].to(device)
        targets = torch.tensor(labels).to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(input_ids, attention_mask), targets)
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA101 fixed: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
