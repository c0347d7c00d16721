"""XLA503 flagged: torch.save of an XLA model's state_dict.

The training loop writes a checkpoint every ``SAVE_EVERY`` steps with
``torch.save(model.state_dict(), path)``.  The state dict holds XLA tensors:
``torch.save`` pickles them with their XLA device and copies them to the host
one at a time, and under ``xmp.spawn``/``torch_xla.launch`` every replica would
write the file.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch_xla

STEPS = int(os.environ.get("XLA_CHECK_STEPS", "8"))
SAVE_EVERY = 2
BATCH_SIZE = 16
FEATURES = 32


def make_batches(n):
    gen = torch.Generator().manual_seed(0)
    return [(torch.randn(BATCH_SIZE, FEATURES, generator=gen), torch.randint(0, 2, (BATCH_SIZE,), generator=gen))
            for _ in range(n)]


def main():
    torch.manual_seed(0)
    device = torch_xla.device()
    model = nn.Sequential(nn.Linear(FEATURES, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_fn = nn.CrossEntropyLoss()

    with tempfile.TemporaryDirectory() as out_dir:
        path = os.path.join(out_dir, "checkpoint.pt")
        for step, (x, y) in enumerate(make_batches(STEPS), start=1):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            torch_xla.sync()
            if step % SAVE_EVERY == 0:
                torch.save(model.state_dict(), path)

        state = torch.load(path)
        devices = sorted({str(t.device) for t in state.values()})
    print(f"XLA503 flagged: {STEPS} steps, final loss {loss.item():.4f}, checkpoint tensors on {devices}")


if __name__ == "__main__":
    main()
