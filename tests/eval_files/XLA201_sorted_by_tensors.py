"""Eval file for XLA201: sorting by lazy tensors in a step.

``sorted()`` compares its items (or the keys its ``key=`` gives): each comparison of two
lazy tensors is a truth test read on the host. Pairs keyed by distinct names compare the
names, and Python numbers are no tensors.
"""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl


def train(loader, model, optimizer):
    device = torch_xla.device()
    for x, y in pl.MpDeviceLoader(loader, device):
        losses = {"a": model(x).mean(), "b": model(y).mean()}
        names = sorted(losses.items())
        ranked = sorted([losses["a"], losses["b"]])  # error: XLA201
        top = sorted(losses.items(), key=lambda kv: kv[1])  # error: XLA201
        lens = sorted([3, 1, 2], key=lambda n: -n)
        loss = losses["a"] + losses["b"]
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        del names, ranked, top, lens


@torch.no_grad()
def beam_search(model, memory, bos_id, beam_size, steps):
    beams = [(torch.zeros((), device=memory.device), [bos_id])]
    for _ in range(steps):
        candidates = []
        for score, tokens in beams:
            ys = torch.tensor([tokens], device=memory.device)
            logp = model.decode(memory, ys)[:, -1].log_softmax(-1)
            top_lp, top_ix = logp.topk(beam_size, dim=-1)
            for lp, ix in zip(top_lp[0], top_ix[0]):
                candidates.append((score + lp, tokens + [ix]))
        beams = sorted(candidates, key=lambda c: c[0], reverse=True)[:beam_size]  # error: XLA201
    return beams[0][1]


def translate(loader, model):
    device = torch_xla.device()
    outputs = []
    for src in pl.MpDeviceLoader(loader, device):
        outputs.append(beam_search(model, model.encode(src), 1, 4, 32))
    return outputs
