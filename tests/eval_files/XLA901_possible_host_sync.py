"""Eval file for XLA901 (opt-in): host reads of tensors whose device is not known."""
import torch
import torch_xla

device = torch_xla.device()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


def predict(batches):
    # The model is never moved, its inputs come from a parameter: CPU or XLA, the linter
    # cannot tell.
    model = Net()
    outputs = []
    for x in batches:
        y = model(x)
        outputs.append(y.sum().item())  # error: XLA901
    return outputs


def train(model, batches, optimizer):
    for x in batches:
        loss = model(x.to(device)).sum()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        print(loss.item())  # error: XLA201
    # Trap: once, after the loop.
    print(loss.item())
