"""Fine-tune a tiny BERT for sentence classification on synthetic data, on XLA.

A small Hugging Face fine-tuning script as people write it: a DataLoader whose
collate function tokenizes each batch with ``padding="longest"``, a
``BertForSequenceClassification`` built from a config (no hub download: the model
and its tokenizer are built in code), AdamW, and ``MpDeviceLoader`` to move the
batches and cut the step.  It runs on the CPU with ``PJRT_DEVICE=CPU``.

``python -m perf_validation explain examples/hf_bert_finetune.py --steps 8`` shows
what it costs: every batch has a new longest sentence, so XLA compiles a new step
graph per batch (the padding finding), and transformers reads a tensor value inside
BERT's forward (``padding_mask.all()`` in transformers/masking_utils.py), which
executes the pending graph and copies the result to the host on every step.

The step count comes from ``XLA_CHECK_STEPS`` (default 8).
"""
import os
import random

import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl
from tokenizers import Tokenizer, models, pre_tokenizers
from torch.utils.data import DataLoader
from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 8
WORDS = ["the", "a", "cat", "dog", "sat", "ran", "on", "under", "mat", "tree", "quickly", "slowly", "big", "small", "red", "blue", "happy", "sad", "house", "garden", "river", "stone", "bird", "fish", "sun", "moon"]


def build_tokenizer():
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    vocab.update({w: i + 5 for i, w in enumerate(WORDS)})
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="[PAD]",
                                   unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
                                   mask_token="[MASK]")


def make_dataset(n):
    rng = random.Random(0)
    rows = []
    for i in range(n):
        # The longest sentence of batch b has 6 + b words: a new padded length per batch.
        batch = i // BATCH_SIZE
        length = 6 + batch if i % BATCH_SIZE == 0 else rng.randint(3, 6 + batch)
        words = [rng.choice(WORDS) for _ in range(length)]
        rows.append({"text": " ".join(words), "label": int("cat" in words)})
    return rows


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    tokenizer = build_tokenizer()
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64,
                        max_position_embeddings=128, num_labels=2)
    model = BertForSequenceClassification(config).to(device)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def collate(rows):
        batch = tokenizer([r["text"] for r in rows], padding="longest", truncation=True,
                          max_length=64, return_tensors="pt")
        batch["labels"] = torch.tensor([r["label"] for r in rows])
        return dict(batch)

    loader = DataLoader(make_dataset(STEPS * BATCH_SIZE), batch_size=BATCH_SIZE,
                        collate_fn=collate, drop_last=True)
    for step, batch in enumerate(pl.MpDeviceLoader(loader, device)):
        outputs = model(**batch)
        outputs.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print(f"hf_bert_finetune: {STEPS} steps, final loss {outputs.loss.item():.4f}")


if __name__ == "__main__":
    main()
