"""XLA104 fixed: the padding is masked out, not indexed out.

The loss is computed for every position (a fixed ``BATCH_SIZE x SEQ_LEN`` shape)
and the padded positions are zeroed by multiplying with the float mask before
averaging over the real tokens.  Same loss value as selecting the real tokens,
but no op has a data-dependent output shape: one graph, compiled once.
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
    loss_fn = nn.CrossEntropyLoss(reduction="none")

    for input_ids, tags in make_batches(STEPS):
        input_ids, tags = input_ids.to(device), tags.to(device)
        optimizer.zero_grad()
        logits = model(input_ids)
        active = (tags != IGNORE).float()
        per_token = loss_fn(logits.view(-1, NUM_TAGS), tags.clamp(min=0).view(-1)).view_as(active)
        loss = (per_token * active).sum() / active.sum()
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA104 fixed: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
