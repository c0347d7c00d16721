"""Eval file for XLA104: an output size (topk's k) given as a tensor on the device."""
import torch
import torch_xla
import torch_xla.core.xla_model as xm


def match(cost, ious, num_gt):
    top, _ = torch.topk(ious, 10, dim=1)
    dynamic_ks = torch.clamp(top.sum(1).int(), min=1)
    picked = torch.zeros_like(cost)
    for i in range(num_gt):
        _, idx = torch.topk(  # error: XLA104
            cost[i], k=dynamic_ks[i], largest=False
        )
        picked[i][idx] = 1
        best = cost[i].topk(dynamic_ks[i])  # error: XLA104
        picked[i] += best.values.sum()
    # Traps: a Python int k, and k read once before the step on a CPU copy.
    _, fixed = torch.topk(cost, 5, dim=1)
    return picked, fixed


def train(model, loader, optimizer, num_gt):
    device = torch_xla.device()
    for x, y in loader:
        cost = model(x.to(device))
        picked, _ = match(cost, y.to(device), num_gt)
        loss = (cost * picked).sum()
        loss.backward()
        xm.optimizer_step(optimizer)
        torch_xla.sync()


def keep_top(x, mask):
    # k comes from counts copied to the host (``.cpu().tolist()``) inside the step: the
    # items of that list are values read from the device, so each step's data gives topk
    # another output shape.
    counts = (mask > 0).sum(-1).cpu().tolist()  # error: XLA201
    out = []
    for n_keep in counts:
        vals, _ = torch.topk(mask, k=n_keep, dim=1)  # error: XLA104
        out.append(vals.sum())
        # clamped, still one of the values read: max()/min() return an argument
        k = max(1, min(n_keep, 5))
        top, _ = x.topk(k)  # error: XLA104
        out.append(top.sum())
    return out


def train_kept(model, loader, optimizer, fixed_counts):
    device = torch_xla.device()
    # Trap: counts read once before the loop give every step the same k.
    steady = torch.ones(4, device=device).cpu().tolist()
    for x, mask in loader:
        scores = model(x.to(device))
        sums = keep_top(scores, mask.to(device))
        for k in steady:
            top, _ = torch.topk(scores, k=k, dim=1)
            sums.append(top.sum())
        # Trap: a Python list of sizes that nothing read from the device.
        for k in fixed_counts:
            top, _ = scores.topk(k)
            sums.append(top.sum())
        loss = torch.stack(sums).sum()
        loss.backward()
        xm.optimizer_step(optimizer)
        torch_xla.sync()
