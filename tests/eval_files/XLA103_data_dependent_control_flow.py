"""Eval file for XLA103 (data-dependent control flow)."""
import torch
import torch_xla
import torch_xla.distributed.parallel_loader as pl

device = torch_xla.device()


def train(model, loader, optimizer, threshold):
    best = None
    for x, y in pl.MpDeviceLoader(loader, device):
        loss = model(x, y)
        if torch.isnan(loss).any():  # error: XLA103
            continue
        if loss > threshold:  # error: XLA103
            loss = loss * 0.5
        done = loss < 0.01
        if done:  # error: XLA103
            break
        assert (loss >= 0).all()  # error: XLA103
        scale = 2.0 if loss.sum() > 1 else 1.0  # error: XLA103
        (loss * scale).backward()
        # Python's any()/all() take the truth of each lazy item: one read per parameter
        if any(torch.isnan(p.grad).any() for p in model.parameters()):  # error: XLA103
            continue
        if all([loss > 0, loss < 10]):  # error: XLA103
            pass
        if any(k > 2 for k in (threshold, 1)):
            pass
        optimizer.step()
        # Traps: identity tests, Python numbers, shapes, host values.
        if best is None:
            best = threshold
        if x.shape[0] > 1 and threshold > 0:
            pass
        if len(y) == 0:
            continue
    # Trap: once, after the loop.
    if loss > threshold:
        print("done")


def generate(model, idx, steps, eos_id):
    for _ in range(steps):
        logits = model(idx)
        nxt = torch.argmax(logits, dim=-1)
        idx = torch.cat([idx, nxt], dim=-1)
        torch_xla.sync()
        if nxt == eos_id:  # error: XLA103
            break
    return idx


def collate(samples):
    # Trap: CPU tensors in a collate function.
    batch = torch.stack(samples)
    if batch.sum() > 0:
        return batch
    return batch


def guards(model, loader, optimizer):
    for x in pl.MpDeviceLoader(loader, device):
        loss = model(x)
        if torch.isnan(loss):  # error: XLA103
            continue
        assert torch.isfinite(loss)  # error: XLA103
        if loss.isnan().any():  # error: XLA103
            continue
        loss.backward()
        optimizer.step()


@torch_xla.compile(full_graph=True)
def compiled_step(model, x, y, optimizer):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    if loss > 10:  # error: XLA103
        loss = loss * 0.5
    loss.backward()
    optimizer.step()
    return loss



def guarded_nan_filter(model, loader, opt, filter_nan):
    """``and`` stops at a term that is False on XLA: the tensor test never runs there."""
    from transformers.utils import is_torch_xla_available
    for x in pl.MpDeviceLoader(loader, torch_xla.device()):
        loss = model(x).sum()
        loss.backward()
        opt.step()
        if filter_nan and not is_torch_xla_available() and torch.isnan(loss):
            continue
        if filter_nan or torch.isinf(loss):  # error: XLA103
            continue


class Pooling(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    @staticmethod
    def _pool(x, target_h, target_w):
        # Trap: shapes and Python ints (a static method binds no receiver).
        _, _, h, w = x.shape
        if h == target_h and w == target_w:
            return x
        return x.reshape(x.shape[0], x.shape[1], target_h, h // target_h, target_w,
                         w // target_w).mean(dim=(3, 5))

    def forward(self, x):
        pooled = self._pool(self.proj(x), 4, 4)
        if pooled.sum() > 0:  # error: XLA103
            pooled = pooled * 2
        return pooled
