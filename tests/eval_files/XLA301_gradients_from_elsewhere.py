"""Eval file for XLA301: a loop that steps an optimizer on gradients another process
computed (copied in from the replicas, ``p.grad[...] = g``) draws no batch and runs no
forward or backward pass, so it traces no step graph; a loop that runs them, itself or
through a function of the module, or that draws a batch with ``next()``, still needs a
barrier."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


def apply_remote_gradients(manager, model):
    model = model.to(torch_xla.device())
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    while True:
        loss, count = manager.step()
        with torch.no_grad():
            for param, grad in zip(model.parameters(), manager.aggregated_gradients()):
                param.grad[...] = grad
            optimizer.step()
        manager.log(loss, count)


def forward_backward(model, x, y):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    return loss


def train(model, dataset):
    device = torch_xla.device()
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, drop_last=True)
    for x, y in loader:  # error: XLA301
        forward_backward(model, x.to(device), y.to(device))
        optimizer.step()
        optimizer.zero_grad()


def train_from_iterator(model, dataset, compute_loss):
    device = torch_xla.device()
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    it = iter(torch.utils.data.DataLoader(dataset, batch_size=8, drop_last=True))
    while True:  # error: XLA301
        x, y = next(it)
        compute_loss(x.to(device), y.to(device))
        optimizer.step()


def fit_full_batch(model, inputs, targets):
    device = torch_xla.device()
    model = model.to(device)
    x, y = inputs.to(device), targets.to(device)
    optimizer = torch.optim.LBFGS(model.parameters())

    def closure():
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    for _ in range(50):  # error: XLA301
        optimizer.step(closure)


if __name__ == "__main__":
    from replicas import Manager, Net

    net = Net()
    apply_remote_gradients(Manager(net), net)
    fit_full_batch(net, *Manager.sample())
