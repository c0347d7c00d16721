"""Eval file for XLA102: batches cut by hand from a tensor or a list of indices.

``for begin in range(0, len(ids), bs): batch = ids[begin:begin + bs]`` ends with a shorter
slice unless the length is a multiple of ``bs``: a new input shape for the step graph.
Not reported: a range that stops at the last whole slice, a known length that the step
divides, a literal stride, a step that splits the length into a count of minibatches
(PPO's ``mb = batch_size // num_minibatches``: ragged only when the count does not divide
it, which is not known), and slicing outside a step loop.
"""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


def train(model, opt, input_ids, labels, batch_size):
    device = torch_xla.device()
    indices = list(range(len(input_ids)))
    for begin in range(0, len(indices), batch_size):
        batch = indices[begin:begin + batch_size]  # error: XLA102
        loss = model(input_ids[batch].to(device), labels=labels[batch].to(device)).loss
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
    whole = len(indices) - len(indices) % batch_size
    for begin in range(0, whole, batch_size):
        batch = indices[begin:begin + batch_size]
        model(input_ids[batch].to(device)).loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()


def evaluate(model, input_ids, batch_size=4):
    device = torch_xla.device()
    outs = []
    for begin in range(0, len(input_ids), batch_size):
        end = begin + batch_size
        outs.append(model(input_ids[begin:end].to(device)))  # error: XLA102
        torch_xla.sync()
    fixed = torch.zeros(4096, 128, dtype=torch.long)
    for begin in range(0, 4096, batch_size):
        outs.append(model(fixed[begin:begin + batch_size].to(device)))
        torch_xla.sync()
    return outs


def ppo_update(model, opt, obs, returns, epochs=4, num_minibatches=8):
    device = torch_xla.device()
    batch_size = obs.shape[0]
    mb = batch_size // num_minibatches
    for _ in range(epochs):
        perm = torch.randperm(batch_size)
        for start in range(0, batch_size, mb):
            idx = perm[start:start + mb]  # trap: num_minibatches equal parts
            loss = (model(obs[idx].to(device)) - returns[idx].to(device)).pow(2).mean()
            loss.backward()
            xm.optimizer_step(opt)
            torch_xla.sync()


def shards(rows, batch_size):
    return [rows[i:i + batch_size] for i in range(0, len(rows), batch_size)]
