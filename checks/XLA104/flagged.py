"""XLA104 flagged: boolean-mask indexing in the training step.

A token tagger computes its loss on the real tokens only, selecting them with a
boolean mask: ``logits[active]``.  The number of selected tokens depends on the
data (the sentences have different lengths), so the output shape is unknown
until the mask has been computed: torch_xla executes the pending graph to learn
it, and every new count of real tokens is a new graph shape to compile.
"""
import os

import torch
import torch.nn as nn
import torch_xla

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 8
SEQ_LEN = 16
VOCAB = 100
NUM_TAGS = 5
IGNORE = -100


def make_batches(n):
    gen = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        input_ids = torch.randint(1, VOCAB, (BATCH_SIZE, SEQ_LEN), generator=gen)
        tags = torch.randint(0, NUM_TAGS, (BATCH_SIZE, SEQ_LEN), generator=gen)
        lengths = torch.randint(4, SEQ_LEN + 1, (BATCH_SIZE, 1), generator=gen)
        padding = torch.arange(SEQ_LEN).unsqueeze(0) >= lengths
        input_ids[padding] = 0
        tags[padding] = IGNORE
        batches.append((input_ids, tags))
    return batches


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 32, padding_idx=0)
        self.head = nn.Linear(32, NUM_TAGS)

    def forward(self, input_ids):
        return self.head(torch.relu(self.embed(input_ids)))


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = Tagger().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for input_ids, tags in make_batches(STEPS):
        input_ids, tags = input_ids.to(device), tags.to(device)
        optimizer.zero_grad()
        logits = model(input_ids)
        active = tags != IGNORE
        active_logits = logits[active]
        active_tags = tags[active]
        loss = loss_fn(active_logits, active_tags)
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA104 flagged: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
