"""Eval file for XLA201 per model parameter: a diagnosis that reads every parameter on the
host, called only in a branch that then raises, runs once as the run's last act; the
same reads in a helper called every epoch are one host sync per parameter."""
import torch
import torch_xla


def diagnose_nan(model):
    for name, value in model.state_dict().items():
        print(name, torch.max(torch.abs(value)).item())  # trap: only before the run fails


def log_norms(model):
    for name, p in model.named_parameters():
        print(name, p.norm().item())  # error: XLA201


def train(model, loader, optimizer, epochs):
    device = torch_xla.device()
    model.to(device)
    for _ in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            torch_xla.sync()
        log_norms(model)
        state = {"loss": loss.detach()}
        if torch.isnan(state["loss"]).any():
            diagnose_nan(model)
            raise ValueError("loss is NaN")
