"""XLA104: slices whose bounds are values read back from the device in each step."""
import torch
import torch_xla

device = torch_xla.device()
model = torch.nn.Linear(16, 16).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
head = torch.randn(4, 16, device=device)
# read once, before the loop: every step slices to the same size
keep = int((head > 0).sum().item())


class Joiner(torch.nn.Module):
    def forward(self, prompt, answer, mask):
        lengths = mask.sum(dim=1).detach().cpu()  # error: XLA201
        rows = []
        for i in range(prompt.size(0)):
            n = lengths[i].item()
            rows.append(torch.cat([prompt[i][:n], answer[i], prompt[i][n:]]))  # error: XLA104
        return torch.stack(rows)


joiner = Joiner()
for step in range(100):
    x = torch.randn(8, 16, device=device)
    out = model(x)
    width = (out > 0).sum(dim=1).cpu()  # error: XLA201
    first = out[:, :width[0] + 1]  # error: XLA104
    kept = out[:keep]
    fixed = out[:, :8]
    host_len = len(range(step % 3 + 1))
    varying = out[:host_len]
    out[0, int(width[1]):] = 0  # error: XLA104
    joined = joiner(out, out, out > 0)
    (first.sum() + kept.sum() + fixed.sum() + varying.sum() + joined.sum()).backward()
    opt.step()
    torch_xla.sync()


def epochs(dataset, n_epochs):
    """A number read once per epoch gives each of its steps the same shape; ``int()`` of
    a read number is still one, and one per-step number in a bound is enough."""
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, drop_last=True)
    for epoch in range(n_epochs):
        probe = model(torch.randn(4, 16, device=device))
        per_epoch = (probe > 0).sum().item()
        for x in loader:  # error: XLA302
            out = model(x.to(device))
            lengths = (out > 0).sum(1).cpu()  # error: XLA201
            n = int(lengths[0].item())
            kept = out[:per_epoch]
            first = out[:n]  # error: XLA104
            both = out[:n + keep]  # error: XLA104
            (kept.sum() + first.sum() + both.sum()).backward()
            opt.step()
            torch_xla.sync()


def widths(dataset, n_epochs):
    """Items of a list read from the device: read in the step, each step slices to new
    widths; read once per epoch, every step slices to the same ones."""
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, drop_last=True)
    for epoch in range(n_epochs):
        probe = model(torch.randn(4, 16, device=device))
        per_epoch = (probe > 0).sum(1).cpu().tolist()
        for x in loader:  # error: XLA302
            out = model(x.to(device))
            per_step = (out > 0).sum(1).cpu().tolist()  # error: XLA201
            parts = [out[i, :w] for i, w in enumerate(per_step)]  # error: XLA104
            steady = [out[i, :w] for i, w in enumerate(per_epoch)]
            for w in per_epoch:
                parts.append(out[0, :w])
            loss = sum(p.sum() for p in parts + steady)
            loss.backward()
            opt.step()
            torch_xla.sync()


def top_rows(scores, k):
    """A helper the step calls with a k it read from the device in that step: each step
    gives topk another output shape; called with a k read once per epoch, the same."""
    return torch.topk(scores, k, dim=-1).values  # error: XLA104


def first_cols(out, n):
    return out[:, :n]


def helpers(dataset, n_epochs):
    loader = torch.utils.data.DataLoader(dataset, batch_size=8, drop_last=True)
    for epoch in range(n_epochs):
        probe = model(torch.randn(4, 16, device=device))
        per_epoch = int((probe > 0).sum().item())
        for x in loader:  # error: XLA302
            out = model(x.to(device))
            k = int((out > 0).sum().item())  # error: XLA201
            picked = top_rows(out, k)
            steady = first_cols(out, per_epoch)
            (picked.sum() + steady.sum()).backward()
            opt.step()
            torch_xla.sync()
