"""XLA4xx: mixed precision and optimizers."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import const_str, guarded, keyword
from flake8_xla.context import Finding
from flake8_xla.rules.base import Rule

CUDA_AMP = frozenset({"torch.cuda.amp.autocast", "torch.cuda.amp.GradScaler",
                      "torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd"})
DEVICE_AMP = frozenset({"torch.autocast", "torch.amp.GradScaler", "torch.cpu.amp.autocast"})
SCALERS = frozenset({"torch.cuda.amp.GradScaler", "torch.amp.GradScaler",
                     "torch_xla.amp.GradScaler"})
SYNCFREE = "torch_xla.amp.syncfree."
NON_SYNCFREE_PREFIXES = ("torch.optim.", "transformers.AdamW", "transformers.Adafactor",
                         "apex.optimizers.")


def _disabled(node: nodes.NodeNG) -> bool:
    """``autocast(enabled=False)`` / ``GradScaler(enabled=False)``: switched off."""
    call = node if isinstance(node, nodes.Call) else None
    flag = keyword(call, "enabled") if call is not None else None
    return isinstance(flag, nodes.Const) and flag.value is False


class CudaAmpOnXla(Rule):
    """XLA401: CUDA automatic mixed precision in XLA code.

    Source: PyTorch/XLA "Automatic Mixed Precision" guide (``torch.autocast('xla',
    dtype=torch.bfloat16)``) and ``torch.cuda.amp`` docs (deprecated alias of
    ``torch.amp`` with ``device_type='cuda'``).
    """

    code = "XLA401"
    fix = "safe"
    name = "cuda-amp-on-xla"
    message = ("CUDA AMP on XLA: {what} {why}; use torch.autocast('xla', dtype=torch.bfloat16) "
               "(no GradScaler is needed with bfloat16)")
    WHY_AUTOCAST = ("only acts on CUDA tensors, so on the XLA device it does nothing and the "
                    "model runs in float32")
    WHY_SCALER = ("is the CUDA float16 loss scaler: on XLA it reads found_inf back to the host "
                  "on every step and is only needed for float16, which XLA devices do not use")
    explanation = """\
`torch.cuda.amp.autocast`, `torch.autocast('cuda')`, `torch.amp.GradScaler('cuda')`
and `apex.amp` only affect CUDA tensors. On an XLA device they silently do nothing
(or warn that CUDA is unavailable), so the model trains in float32 and a ported
script loses the speed and memory it had on the GPU. Note that TorchFix's advice
(`torch.amp.autocast("cuda")`) is also wrong on XLA.

A CUDA `GradScaler` is worse than useless: with torch_xla installed it stays
enabled, scales XLA tensors and reads `found_inf` back to the host every step,
for a float16 problem that bfloat16 does not have.

Measured (checks/XLA401, PJRT_DEVICE=CPU, 8 steps): 22 `xla::_to_copy` casts in
the flagged script (no bfloat16 casts), 142 in the fixed one.

**Example**
```python
with torch.cuda.amp.autocast():
    loss = model(x)
```
**Use instead**
```python
with torch.autocast("xla", dtype=torch.bfloat16):
    loss = model(x)
```
Not reported: code under an `if` that tests for CUDA, GPU, fp16 or apex.
"""
    source = (
        "https://docs.pytorch.org/xla/master/perf/amp.html",
        "https://docs.pytorch.org/docs/stable/amp.html",
    )
    versions = "all"

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for node in an.module_nodes((nodes.Call, nodes.Attribute, nodes.Name)):
            what = self._kind(node)
            if what and not guarded(node) and not _disabled(node):
                why = self.WHY_SCALER if "GradScaler" in what else self.WHY_AUTOCAST
                yield self.finding(node, what=what, why=why)

    def _kind(self, node: nodes.NodeNG) -> str | None:
        an = self.ctx.analyzer
        if isinstance(node, nodes.Call):
            q = an.qualname(node.func) or ""
            if q in CUDA_AMP:
                return q
            if q in DEVICE_AMP:
                dev = node.args[0] if node.args else keyword(node, "device_type")
                if dev is None and q == "torch.amp.GradScaler":
                    dev = keyword(node, "device")
                if const_str(dev) in ("cuda",) or (
                        q == "torch.amp.GradScaler" and dev is None):
                    return f"{q}('cuda')"
            if q.startswith("apex.amp.") and q.rsplit(".", 1)[-1] in ("initialize", "scale_loss"):
                return q
            return None
        # Decorators such as @torch.cuda.amp.autocast() are Calls; bare ones are names.
        parent = node.parent
        if isinstance(parent, nodes.Decorators):
            q = an.qualname(node) or ""
            if q in CUDA_AMP:
                return q
        return None


class NonSyncfreeOptimizerWithScaler(Rule):
    """XLA402: a torch.optim optimizer stepped through a GradScaler on XLA.

    Source: PyTorch/XLA "Automatic Mixed Precision" guide (use the syncfree
    optimizers of ``torch_xla.amp.syncfree`` with a GradScaler) and
    ``torch.amp.GradScaler._maybe_opt_step`` (reads ``found_inf`` with ``.item()``).
    """

    code = "XLA402"
    fix = "none"
    name = "non-syncfree-optimizer-with-grad-scaler"
    message = ("non-syncfree optimizer under a GradScaler: {what} makes every scaler.step() read "
               "found_inf back to the host (one device-to-host sync per step); {fix}")
    FIX_OLD = "use torch_xla.amp.syncfree.SGD, Adam or AdamW with torch_xla.amp.GradScaler"
    FIX_29 = ("use torch_xla.amp.syncfree.SGD, Adam or AdamW and pass "
              "found_inf to optimizer.step(found_inf=...), or drop the scaler: bfloat16 "
              "autocast needs no loss scaling")
    explanation = """\
A GradScaler skips the optimizer step when gradients overflowed. With a regular
`torch.optim` optimizer it decides on the host: `scaler.step()` reads `found_inf`
with `.item()`, which executes the graph and copies the flag back on every step.
The syncfree optimizers of `torch_xla.amp.syncfree` take `found_inf` as a device
tensor and skip the update inside the graph.

Measured (checks/XLA402, PJRT_DEVICE=CPU): one `aten::_local_scalar_dense`
device-to-host read per step for the flagged script, none for the fixed one.

**Example**
```python
optimizer = torch.optim.AdamW(model.parameters())
scaler.step(optimizer)
```
**Use instead** (torch_xla before 2.9, whose `torch_xla.amp.GradScaler` feeds
`found_inf` to syncfree optimizers)
```python
from torch_xla.amp import syncfree
optimizer = syncfree.AdamW(model.parameters())
```
From torch_xla 2.9 on, `torch_xla.amp.GradScaler` is removed and
`torch.amp.GradScaler("xla").step()` does not pass `found_inf` to a syncfree
optimizer, so hand it over yourself (see `checks/XLA402/fixed.py`):
```python
scaler.unscale_(optimizer)
found_inf = sum(scaler._found_inf_per_device(optimizer).values())
optimizer.step(found_inf=found_inf)
scaler.update()
```
or drop the scaler: `torch.autocast("xla", dtype=torch.bfloat16)` needs no loss scaling.
For the same reason, from 2.9 on `scaler.step(syncfree_optimizer)` through
`torch.amp.GradScaler` is reported too: it still reads `found_inf` every step.

Not reported: bfloat16 autocast without a GradScaler.
"""
    source = (
        "https://docs.pytorch.org/xla/master/perf/amp.html",
        "https://github.com/pytorch/xla/tree/master/torch_xla/amp/syncfree",
    )
    versions = "all"

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        seen: set[tuple[int, int]] = set()
        for call in an.calls_named("step"):
            func = call.func
            if not isinstance(func, nodes.Attribute) or len(call.args) != 1:
                continue
            if not self._is_scaler(func.expr):
                continue
            classes = self._optimizer_classes(call.args[0], 0)
            if self.ctx.options.version >= (2, 9) and self._is_torch_scaler(func.expr) and any(
                    (an.qualname(c) or "").startswith(SYNCFREE) for c in classes):
                key = (call.lineno, call.col_offset)
                if key not in seen:
                    seen.add(key)
                    yield self.finding(call, what="scaler.step() of torch.amp.GradScaler (it "
                                       "does not pass found_inf to syncfree optimizers)",
                                       fix=self.FIX_29)
            for cls in classes:
                q = an.qualname(cls) or ""
                if q.startswith(NON_SYNCFREE_PREFIXES) and not q.startswith(SYNCFREE):
                    key = (cls.lineno, cls.col_offset)
                    if key not in seen:
                        seen.add(key)
                        fix = self.FIX_29 if self.ctx.options.version >= (2, 9) else self.FIX_OLD
                        yield self.finding(cls, what=q, fix=fix)

    def _is_scaler(self, node: nodes.NodeNG) -> bool:
        """An enabled GradScaler that the XLA path reaches."""
        an = self.ctx.analyzer
        for value in an.values_of(node):
            if isinstance(value, nodes.Call) and (an.qualname(value.func) or "") in SCALERS \
                    and not _disabled(value) and not guarded(value):
                return True
        return False

    def _is_torch_scaler(self, node: nodes.NodeNG) -> bool:
        """A torch (not torch_xla) GradScaler: its step() reads found_inf on the host."""
        an = self.ctx.analyzer
        return any(isinstance(v, nodes.Call) and (an.qualname(v.func) or "").startswith(
            ("torch.amp.", "torch.cuda.amp.")) for v in an.values_of(node))

    def _optimizer_classes(self, node: nodes.NodeNG, depth: int) -> list[nodes.NodeNG]:
        """Class expressions an optimizer value may be constructed from."""
        an = self.ctx.analyzer
        if depth > 6:
            return []
        if isinstance(node, nodes.Call):
            if an.qualname(node.func):
                return [node.func]
            target = an.resolve_function(node.func)
            if target is not None:  # build_optimizer(model): follow its returns
                out: list[nodes.NodeNG] = []
                for ret in target.nodes_of_class(nodes.Return, skip_klass=(
                        nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
                    if ret.value is not None:
                        out += self._optimizer_classes(ret.value, depth + 1)
                return out
            return self._optimizer_classes(node.func, depth + 1)
        if isinstance(node, nodes.IfExp):
            return self._optimizer_classes(node.body, depth + 1) + self._optimizer_classes(
                node.orelse, depth + 1)
        if isinstance(node, (nodes.Name, nodes.Attribute)):
            if an.qualname(node):
                return [node]
            out: list[nodes.NodeNG] = []
            for v in an.values_of(node):
                out += self._optimizer_classes(v, depth + 1)
            return out
        return []
