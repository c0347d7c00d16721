"""Eval file for XLA501: a guarded choice (``"cuda" if torch.cuda.is_available() else
"cpu"``) in a separate entry point of a script whose training picks the XLA device.

``demo()`` names nothing of torch_xla and only the script's top level calls it, while
``train()`` picks ``torch_xla.device()`` itself: the demo is kept off the XLA device on
purpose (one image on the host), so it is not reported. The same choice in a helper that
the XLA training function calls, in an entry point that uses torch_xla itself or that
is handed the trained model or hands its device to a function that runs torch_xla, or in
a function handed over as a value, is still reported.
"""
import argparse

import torch
import torch_xla
import torch_xla.core.xla_model as xm


def train(model, loader, args):
    device = torch_xla.device() if args.tpu else torch.device(
        "cuda" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        loss.backward()
        xm.optimizer_step(opt)
        torch_xla.sync()
    evaluate(model, loader)


def evaluate(model, loader):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # error: XLA501
    for x, _ in loader:
        model(x.to(device))


def demo(path):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(8, 1).to(device)
    model.load_state_dict(torch.load(path, map_location=device))
    print(model(torch.zeros(1, 8, device=device)))


def show(model):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # error: XLA501
    print(model(torch.zeros(1, 8).to(device)))


def finetune(path):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # error: XLA501
    model = torch.nn.Linear(8, 1).to(device)
    train_on(model, device)


def train_on(model, device):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(10):
        model(torch.zeros(4, 8, device=device)).sum().backward()
        xm.optimizer_step(opt)
        torch_xla.sync()


def export(model):
    device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
    model = model.to(device)
    xm.master_print("exporting")
    return model


def profile(model):
    device = "cuda" if torch.cuda.is_available() else "cpu"  # error: XLA501
    return model.to(device)


def run_all(fns, model):
    for fn in fns:
        fn(model)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="train")
    parser.add_argument("--tpu", action="store_true")
    args = parser.parse_args()
    net = torch.nn.Linear(8, 1)
    if args.mode == "demo":
        demo("model.pt")
    elif args.mode == "finetune":
        finetune("model.pt")
    elif args.mode == "export":
        export(net)
    else:
        train(net, [], args)
    run_all([profile], net)
    show(net.to(torch_xla.device()))
