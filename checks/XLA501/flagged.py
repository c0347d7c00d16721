"""XLA501 flagged: hard-coded CUDA device left in an XLA script.

The model was moved to ``torch_xla.device()`` but the batches are still sent to
``"cuda"``, a leftover from the GPU version of the script.  On a TPU/CPU host
without CUDA the script crashes at the first batch; on a host that does have a
GPU it crashes in the forward pass instead (CUDA inputs, XLA weights).
"""
import os

import torch
import torch.nn as nn
import torch_xla

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
BATCH_SIZE = 16
FEATURES = 32


def make_batches(n):
    gen = torch.Generator().manual_seed(0)
    return [{"features": torch.randn(BATCH_SIZE, FEATURES, generator=gen),
             "labels": torch.randint(0, 2, (BATCH_SIZE,), generator=gen)} for _ in range(n)]


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    for batch in make_batches(STEPS):
        batch = {k: v.to("cuda") for k, v in batch.items()}
        optimizer.zero_grad()
        loss = loss_fn(model(batch["features"]), batch["labels"])
        loss.backward()
        optimizer.step()
        torch_xla.sync()

    print(f"XLA501 flagged: {STEPS} steps, final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
