"""XLA4xx: mixed precision and optimizers."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import Kind, const_str, keyword
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.context import Finding
from flake8_xla.facts import xla_api
from flake8_xla.filefacts import FileFacts
from flake8_xla.rules.base import Rule

CUDA_AMP = frozenset({"torch.cuda.amp.autocast", "torch.cuda.amp.GradScaler",
                      "torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd"})
DEVICE_AMP = frozenset({"torch.autocast", "torch.amp.GradScaler", "torch.cpu.amp.autocast"})
APEX_ENABLE = "apex.amp.initialize"
APEX_USE = frozenset({"apex.amp.scale_loss"})
AMP_WORDS = frozenset({"autocast", "GradScaler", "custom_fwd", "custom_bwd", "amp"})
NON_SYNCFREE_PREFIXES = ("torch.optim.", "transformers.AdamW", "transformers.Adafactor",
                         "apex.optimizers.", "bitsandbytes.optim.")
SYNCFREE = "torch_xla.amp.syncfree."


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
A switch that is a setting of the run (`autocast(enabled=args.amp)`,
`GradScaler(enabled=cfg.fp16)`, `if args.fp16: amp.initialize(...)`) is reported:
the run that turns AMP on with XLA gets float32, or a CUDA scaler, without a word.
Not reported: code off the XLA path (under `if torch.cuda.is_available():`, the
`else` of `if use_tpu:`, a flag the script refuses on XLA), and `enabled=` switches
that are false on XLA (`enabled=False`, a constant, a flag the script sets to False
for XLA). `enabled` passed by position counts the same
(`torch.cuda.amp.autocast(self.use_amp)`, `torch.autocast("cuda", torch.float16,
False)`). apex is reported where it is switched on (`amp.initialize`). A context made
once with `functools.partial(torch.autocast, "cuda", ...)` is reported where it is made.
"""
    source = (
        "https://docs.pytorch.org/xla/master/perf/amp.html",
        "https://docs.pytorch.org/docs/stable/amp.html",
    )
    versions = "all"

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return (facts.any_ident(AMP_WORDS) and "torch" in facts.idents) or "apex" in facts.idents

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None:
            return
        enables_apex = any((an.qualname(c.func) or "") == APEX_ENABLE
                           for c in an.calls_named("initialize"))
        for node in an.rule_nodes((nodes.Call, nodes.Attribute, nodes.Name)):
            what = self._kind(node, enables_apex)
            if not what or an.off_xla_path(node):
                continue
            if isinstance(node, nodes.Call) and an.switched_off(node):
                continue
            why = self.WHY_SCALER if "GradScaler" in what else self.WHY_AUTOCAST
            yield self.finding(node, what=what, why=why)

    def _kind(self, node: nodes.NodeNG, enables_apex: bool) -> str | None:
        an = self.an
        if isinstance(node, nodes.Call):
            q = an.qualname(node.func) or ""
            args = list(node.args)
            if q == "functools.partial" and args:
                # ``functools.partial(torch.autocast, "cuda", dtype=torch.float16)``: the
                # context every ``with autocast_ctx():`` enters
                q, args = an.qualname(args[0]) or "", args[1:]
                if q not in CUDA_AMP and q not in DEVICE_AMP:
                    return None
            if q in CUDA_AMP:
                return q
            if q in DEVICE_AMP:
                dev = args[0] if args else keyword(node, "device_type")
                if dev is None and q == "torch.amp.GradScaler":
                    dev = keyword(node, "device")
                text = const_str(dev)
                if text is None and dev is not None:
                    texts = {v.text for v in an.value(dev) if v.kind is Kind.HOST}
                    devs = {v.device for v in an.value(dev) if v.kind is Kind.DEVICE}
                    if texts == {"cuda"} or devs == {"cuda"}:
                        text = "cuda"
                if text == "cuda" or (q == "torch.amp.GradScaler" and dev is None):
                    return f"{q}('cuda')"
            if q == APEX_ENABLE or (q in APEX_USE and not enables_apex):
                return q
            return None
        # Decorators such as @torch.cuda.amp.autocast() are Calls; bare ones are names.
        if isinstance(node.parent, nodes.Decorators):
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

Not reported: bfloat16 autocast without a GradScaler, a scaler that is switched off
(`enabled=False`, or a flag that is false on XLA) or off the XLA path.
"""
    source = (
        "https://docs.pytorch.org/xla/master/perf/amp.html",
        "https://github.com/pytorch/xla/tree/master/torch_xla/amp/syncfree",
    )
    versions = "all"

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return "GradScaler" in facts.idents and "step" in facts.call_attrs

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None:
            return
        seen: set[tuple[int, int]] = set()
        new_api = self._no_xla_scaler()
        for call in an.rule_calls("step"):
            func = call.func
            if not isinstance(func, nodes.Attribute) or len(call.args) != 1:
                continue
            scalers = [v for v in an.value(func.expr) if v.kind is Kind.SCALER
                       and v.device != "cuda" and not v.has("disabled")
                       and v.node is not None and not an.off_xla_path(v.node)]
            if not scalers or an.off_xla_path(call):
                continue
            optimizers = [v for v in an.value(call.args[0]) if v.kind is Kind.OPTIMIZER]
            torch_scaler = any((v.qual or "").startswith(("torch.amp.", "torch.cuda.amp."))
                               for v in scalers)
            if new_api and torch_scaler and any(v.has("syncfree") for v in optimizers):
                key = (call.lineno, call.col_offset)
                if key not in seen:
                    seen.add(key)
                    yield self.finding(call, what="scaler.step() of torch.amp.GradScaler (it "
                                       "does not pass found_inf to syncfree optimizers)",
                                       fix=self.FIX_29)
            for opt in optimizers:
                q = opt.qual or ""
                if opt.has("syncfree") or not q.startswith(NON_SYNCFREE_PREFIXES):
                    continue
                # (an optimizer built in another module, by a factory the script calls: the
                # finding goes where its value enters this file, naming the constructor)
                where = (self._class_site(opt.node, q) if opt.node.root() is an.module
                         else opt.node) if isinstance(opt.node, nodes.Call) else call
                fix = self.FIX_29 if new_api else self.FIX_OLD
                if where.root() is not an.module and self._enters_badly(where):
                    # (an optimizer of another module that reaches this file through a
                    # parameter or an inherited attribute: reported at the scaler's step,
                    # naming where it is built)
                    built = self.ctx.project_session.where(where) \
                        if self.ctx.project_session is not None else None
                    what = f"{q} (built at {built})" if built else q
                    key = (call.lineno, call.col_offset)
                    if key not in seen and not an.off_xla_path(call):
                        seen.add(key)
                        yield self.finding(call, what=what, fix=fix)
                    continue
                key = (where.lineno, where.col_offset)
                if key not in seen and not an.off_xla_path(where):
                    seen.add(key)
                    yield self.finding(where, what=q, fix=fix)

    def _enters_badly(self, node: nodes.NodeNG) -> bool:
        """A finding at ``node`` (of another module) has no line of this file to go to, or
        only a parameter's (the ``def`` line of a helper handed the optimizer)."""
        placed = self._place(node)
        if placed is False:
            return True
        if not placed:
            return False
        anchor = placed[0]
        return isinstance(anchor, (nodes.Arguments, nodes.FunctionDef)) or isinstance(
            anchor, nodes.AssignName) and isinstance(anchor.parent, nodes.Arguments)

    def _no_xla_scaler(self) -> bool:
        """The targeted torch_xla has no ``torch_xla.amp.GradScaler`` (API facts: 2.9 on)."""
        return not xla_api().present("torch_xla.amp.GradScaler", self.ctx.options.version)

    def _class_site(self, call: nodes.Call, qual: str) -> nodes.NodeNG:
        """Where the optimizer class is named: the constructor, or the expression that
        chose the class (``optim_cls = syncfree.SGD if flag else optim.SGD``)."""
        an = self.an
        func = call.func
        if an.qualname(func) == qual or not isinstance(func, nodes.Name):
            return func
        for b in an.ev.bindings(func):
            stmt = b.parent
            if isinstance(stmt, nodes.Assign):
                for sub in nodes_of(stmt.value, (nodes.Name, nodes.Attribute)):
                    if an.qualname(sub) == qual:
                        return sub
        return func
