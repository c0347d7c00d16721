"""XLA503 fixed: checkpoints are written with xm.save.

``xm.save(model.state_dict(), path)`` moves the state dict to the CPU in one
transfer and writes it from the master ordinal only (rank 0 under
``xmp.spawn``/``torch_xla.launch``), so the file holds plain CPU tensors that
load anywhere.
"""
import os
import tempfile

import torch
import torch.nn as nn
import torch_xla
import torch_xla.core.xla_model as xm

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
                xm.save(model.state_dict(), path)

        state = torch.load(path)
        devices = sorted({str(t.device) for t in state.values()})
    print(f"XLA503 fixed: {STEPS} steps, final loss {loss.item():.4f}, checkpoint tensors on {devices}")


if __name__ == "__main__":
    main()
