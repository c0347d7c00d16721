"""Eval file for XLA101 and XLA201: a loop over prompts whose iterations run a decode loop
(forward passes, no data loader, training or barrier of its own) is a generation loop,
one step per prompt: each prompt tokenized without padding keeps its own length (a new
graph per length), and reading its output back per prompt is a host sync. An epoch loop
that also trains over data is not such a loop."""
import torch
import torch_xla


@torch.no_grad()
def greedy(model, ids, steps):
    for _ in range(steps):
        nxt = model(ids).logits[:, -1].argmax(-1, keepdim=True)
        ids = torch.cat([ids, nxt], dim=-1)
    return ids


def answer(tok, model, prompts):
    device = torch_xla.device()
    texts = []
    for prompt in prompts:
        enc = tok(prompt, return_tensors="pt")  # error: XLA101
        out = greedy(model, enc["input_ids"].to(device), 32)
        texts.append(tok.decode(out[0].cpu().tolist()))  # error: XLA201
    return texts


def fit(tok, model, loader, opt, prompts):
    device = torch_xla.device()
    for epoch in range(3):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            opt.step()
            torch_xla.sync()
        # Trap: once per epoch, a sample after the epoch's training.
        enc = tok(prompts[0], return_tensors="pt")
        sample = greedy(model, enc["input_ids"].to(device), 16)
        print(epoch, tok.decode(sample[0].cpu()))
