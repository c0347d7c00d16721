"""Eval file for XLA301: the learner loop of an actor-learner agent runs in a thread
(``threading.Thread(target=batch_and_learn)``) and steps the optimizer on batches it
moves to the XLA device, with no barrier; against a learner thread that cuts each step."""
import threading

import torch
import torch_xla


def get_batch(queue, device):
    frames, rewards = queue.get()
    return frames.to(device), rewards.to(device)


def train(model, optimizer, queue, total_steps):
    device = torch_xla.device()
    model = model.to(device)
    step = 0

    def batch_and_learn():
        nonlocal step
        while step < total_steps:  # error: XLA301
            frames, rewards = get_batch(queue, device)
            loss = (model(frames) - rewards).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1

    def batch_and_learn_synced():
        nonlocal step
        while step < total_steps:
            frames, rewards = get_batch(queue, device)
            loss = (model(frames) - rewards).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            torch_xla.sync()
            step += 1

    threads = [threading.Thread(target=fn) for fn in (batch_and_learn,)]
    threads.append(threading.Thread(target=batch_and_learn_synced))
    threading.Thread(target=batch_and_learn).start()
    for t in threads:
        t.start()
