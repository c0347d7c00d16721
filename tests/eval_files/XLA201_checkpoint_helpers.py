"""Eval file for XLA201/XLA503 around checkpoints and optional CUDA-only helpers: a copy
to the CPU that a checkpoint writes, also from a thread target nested in the save
function and through a helper object's ``state_dict()`` (built as ``Helper(...) if flag
else None``); an optimizer's ``state_dict()["param_groups"]`` holds no tensors; the other
arm of ``torch.is_tensor(x)`` holds none either; a branch on an object that only a CUDA
branch creates never runs on the XLA path."""
import argparse
import threading

import torch
import torch_xla


class ModelEMA:
    def __init__(self, model, decay):
        self.decay = decay
        self.shadow = {n: p.data.clone() for n, p in model.named_parameters()}

    def update(self, model):
        for n, p in model.named_parameters():
            self.shadow[n].lerp_(p.data, 1.0 - self.decay)

    def state_dict(self):
        return {n: t.cpu() for n, t in self.shadow.items()}  # trap


class Scaler:
    def get_scale(self):
        return 1.0


def main(args, model, loader):
    device = torch_xla.device() if args.device == "xla" else torch.device(args.device)
    model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ema = ModelEMA(model, args.ema) if args.ema > 0 else None
    scaler = None
    if device.type == "cuda":
        scaler = Scaler()

    def save_checkpoint():
        state = {"model": {k: v.cpu() for k, v in model.state_dict().items()}}  # trap
        sd = opt.state_dict()
        state["optimizer"] = {
            "state": {k: {n: t.cpu() if torch.is_tensor(t) else t for n, t in s.items()}
                      for k, s in sd["state"].items()},
            "param_groups": sd["param_groups"],
        }
        if ema is not None:
            state["ema"] = ema.state_dict()

        def _write():
            torch.save(state, "checkpoint.pt")  # trap

        threading.Thread(target=_write).start()

    step = last_save = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = model(x, y)
        loss.backward()
        found_inf = torch.zeros(1, device=device)
        if scaler is not None:
            skip = found_inf.item() > 0  # trap
            if skip:
                continue
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if torch.is_tensor(grad_norm):
            norm_t = grad_norm.detach()
        else:
            norm_t = torch.tensor(float(grad_norm), device=device)  # trap
        opt.step()
        if ema is not None:
            ema.update(model)
        torch_xla.sync()
        print(norm_t)  # error: XLA201
        step += 1
        if step - last_save >= args.save_every:
            save_checkpoint()
            last_save = step
    plain = torch.optim.SGD(model.parameters(), lr=0.1)
    torch.save(plain.state_dict(), "optimizer.pt")  # error: XLA503


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="xla")
    parser.add_argument("--ema", type=float, default=0.0)
    parser.add_argument("--save-every", type=int, default=1000)
    main(parser.parse_args(), None, None)
