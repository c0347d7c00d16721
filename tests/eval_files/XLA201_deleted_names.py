"""Eval file for XLA201: names deleted on some paths keep their values on the others."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm

device = torch_xla.device()


def train_skipping_empty_batches(model, loader, criterion, optimizer):
    model.train()
    for inputs, labels in loader:
        inputs = inputs.to(device)
        labels = labels.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        if inputs.size(0) == 0:
            # the batch is skipped: the names are deleted only on this path
            del outputs, loss
            continue
        preds = outputs.argmax(dim=1).cpu()  # error: XLA201
        loss.backward()
        xm.optimizer_step(optimizer, barrier=True)
        running = loss.item()  # error: XLA201
        print(preds, running)
        del outputs, loss  # frees the iteration's tensors before the next batch


def train_then_host_copy(model, loader, criterion, optimizer):
    model.train()
    for inputs, labels in loader:
        inputs, labels = inputs.to(device), labels.to(device)
        loss = criterion(model(inputs), labels)
        loss.backward()
        xm.optimizer_step(optimizer, barrier=True)
        del loss
        loss = torch.zeros(1)  # a CPU tensor replaces the deleted lazy one
        print(loss.item())  # trap: a CPU tensor bound after the del


def train_through_errors(model, loader, criterion, optimizer):
    model.train()
    for step, (inputs, labels) in enumerate(loader):
        inputs, labels = inputs.to(device), labels.to(device)
        try:
            outputs = model(inputs)
            loss = criterion(outputs, labels)
        except RuntimeError:
            del outputs, loss  # an out-of-memory batch is skipped
            continue
        loss.backward()
        xm.optimizer_step(optimizer, barrier=True)
        print(loss.item())  # error: XLA201
        try:
            summary = outputs.detach()
        finally:
            del outputs  # always runs: the lazy outputs are gone
        if step % 10:
            outputs = torch.zeros(4)
        else:
            outputs = torch.ones(4)
        print(outputs.tolist(), summary.shape)  # trap: CPU tensors bound after the del
