"""Eval file for XLA301: a training loop that steps the optimizer every iteration but
runs its barrier only when it saves a checkpoint every N steps; against a gradient
accumulation loop whose barrier goes with the optimizer step every N micro-steps, and a
loop that also cuts every step."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.distributed.xla_multiprocessing as xmp


def get_batch(data, block, batch, device):
    ix = torch.randint(len(data) - block, (batch,))
    x = torch.stack([data[i:i + block] for i in ix]).to(device)
    y = torch.stack([data[i + 1:i + block + 1] for i in ix]).to(device)
    return x, y


def train(model, data, iters, save_every):
    device = torch_xla.device()
    optimizer = torch.optim.AdamW(model.parameters())
    for step in range(iters):  # error: XLA301
        x, y = get_batch(data, 64, 8, device)
        loss = model(x, y)
        optimizer.zero_grad()
        loss.backward()
        xm.optimizer_step(optimizer)
        if step % save_every == 0 and step > 0:
            xm.save(model.state_dict(), f"ckpt_{step}.pt")
            torch_xla.sync()


def train_accumulating(model, data, iters, accum):
    # Trap: the barrier goes with the optimizer step of each accumulation bucket.
    device = torch_xla.device()
    optimizer = torch.optim.AdamW(model.parameters())
    for step in range(iters):
        x, y = get_batch(data, 64, 8, device)
        (model(x, y) / accum).backward()
        if (step + 1) % accum == 0:
            xm.optimizer_step(optimizer)
            optimizer.zero_grad()
            torch_xla.sync()


def train_cut_every_step(model, data, iters, save_every):
    # Trap: the step's own barrier runs every iteration.
    device = torch_xla.device()
    optimizer = torch.optim.AdamW(model.parameters())
    for step in range(iters):
        x, y = get_batch(data, 64, 8, device)
        model(x, y).backward()
        xm.optimizer_step(optimizer)
        optimizer.zero_grad()
        torch_xla.sync()
        if step % save_every == 0:
            xm.save(model.state_dict(), f"ckpt_{step}.pt")
            torch_xla.sync()


def train_step_context(model, data, iters, save_every):
    # Trap: ``with torch_xla.step():`` cuts every step; the save's sync is extra.
    device = torch_xla.device()
    optimizer = torch.optim.AdamW(model.parameters())
    for step in range(iters):
        with torch_xla.step():
            x, y = get_batch(data, 64, 8, device)
            model(x, y).backward()
            xm.optimizer_step(optimizer)
            optimizer.zero_grad()
        if step % save_every == 0:
            xm.save(model.state_dict(), f"ckpt_{step}.pt")
            torch_xla.sync()


def train_sync_both_arms(model, data, iters, save_every):
    # Trap: both arms sync, so every step is cut; and a sync in the arm that runs
    # N - 1 steps out of N is no every-N barrier.
    device = torch_xla.device()
    optimizer = torch.optim.AdamW(model.parameters())
    for step in range(iters):
        x, y = get_batch(data, 64, 8, device)
        model(x, y).backward()
        xm.optimizer_step(optimizer)
        optimizer.zero_grad()
        if step % save_every != 0:
            torch_xla.sync()
        else:
            xm.save(model.state_dict(), f"ckpt_{step}.pt")
            torch_xla.sync()


def evaluate(model, batches, device):
    losses = []
    for x, y in batches:
        losses.append(model(x.to(device), y.to(device)))
        torch_xla.sync()
    return torch.stack(losses).mean()


def train_eval_every(model, data, val, iters, eval_every):
    # The only barrier runs inside the evaluation called every eval_every steps.
    device = torch_xla.device()
    optimizer = torch.optim.AdamW(model.parameters())
    step = 0
    while step < iters:  # error: XLA301
        x, y = get_batch(data, 64, 8, device)
        model(x, y).backward()
        xm.optimizer_step(optimizer)
        optimizer.zero_grad()
        step += 1
        if step % eval_every == 0:
            print(f"step {step}: {evaluate(model, val, device)}")


def _mp_fn(index, model, data):
    train(model, data, 1000, 100)
    train_accumulating(model, data, 1000, 4)
    train_cut_every_step(model, data, 1000, 100)
    train_eval_every(model, data, data, 1000, 100)
    train_step_context(model, data, 1000, 100)
    train_sync_both_arms(model, data, 1000, 100)


def launch(model, data):
    xmp.spawn(_mp_fn, args=(model, data))
