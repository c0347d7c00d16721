"""XLA3xx: step boundaries and graph size."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import LOOP_WRAPPERS, keyword, source_key
from flake8_xla.context import Finding
from flake8_xla.rules.base import Rule


class MissingStepBarrier(Rule):
    """XLA301: a training loop that never cuts the lazy graph.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (the step ends at
    ``torch_xla.sync()`` / ``xm.mark_step()``; ``MpDeviceLoader`` inserts it)
    and the torch_xla 2.8 release notes (``torch_xla.sync`` replaces ``xm.mark_step``).
    """

    code = "XLA301"
    fix = "unsafe"
    name = "missing-step-barrier"
    message = ("missing step barrier: this training loop has no {sync} and no MpDeviceLoader, "
               "so the lazy graph grows step after step and nothing runs until a value is read; "
               "call {sync} at the end of each step or iterate pl.MpDeviceLoader(loader, device)")
    explanation = """\
torch_xla records operations into a lazy graph and runs it at a step barrier. A loop
that runs `backward()` and an optimizer step without `torch_xla.sync()`
(`xm.mark_step()` before 2.8), without `xm.optimizer_step(opt, barrier=True)` and
without iterating a `pl.MpDeviceLoader` keeps extending one graph: tracing slows
down every step, the graph is compiled only when something reads a value, and
memory grows.

Measured (checks/XLA301, PJRT_DEVICE=CPU): the largest graph of the flagged script
grows linearly with the number of steps; the fixed script's stays constant.

**Example**
```python
for x, y in loader:
    loss = loss_fn(model(x.to(device)), y.to(device))
    loss.backward(); optimizer.step(); optimizer.zero_grad()
```
**Use instead**
```python
for x, y in pl.MpDeviceLoader(loader, device):
    ...
# or call torch_xla.sync() at the end of the loop body
```
Not reported: loops over `MpDeviceLoader`/`ParallelLoader`, loops in functions
compiled with `torch_xla.compile`, and scripts driven by accelerate or Lightning,
whose XLA loaders place the barrier.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
        "https://github.com/pytorch/xla/releases/tag/v2.8.0",
    )
    versions = "all"

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or an.managed:
            return
        for loop in an.module_nodes((nodes.For, nodes.While)):
            if not an.is_training_loop(loop) or an.has_barrier(loop):
                continue
            if isinstance(loop, nodes.For) and an.is_xla_loader(loop.iter):
                continue
            if an.in_compiled_function(loop) or self._runs_inside_a_step(loop):
                continue
            if not self._data_is_plain(loop):
                continue  # the batches may come from an XLA loader we cannot see
            yield self.finding(loop)

    def _runs_inside_a_step(self, loop: nodes.NodeNG) -> bool:
        """A micro-batch loop (not over a data loader) inside a step that has a barrier.

        That is an inner loop of a loop with a barrier or an XLA loader, or a loop in
        a function called from such a loop: gradient accumulation, not a step loop.
        """
        an = self.ctx.analyzer
        if isinstance(loop, nodes.For) and an.is_plainly_loader(loop.iter):
            return False  # a loop over the data is the step loop itself
        if isinstance(loop, nodes.While) and not loop.test.as_string().startswith("True") \
                and any(self._next_arg(c) is not None for c in an.calls_in(loop,
                                                                           into_loops=False)):
            return False
        seen: set[int] = set()
        todo = [loop]
        while todo:
            node = todo.pop()
            cur = node.parent
            while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
                if isinstance(cur, (nodes.For, nodes.While)) and (an.has_barrier(cur) or (
                        isinstance(cur, nodes.For) and an.is_xla_loader(cur.iter))):
                    return True
                cur = cur.parent
            if isinstance(cur, nodes.FunctionDef) and id(cur) not in seen and len(seen) < 20:
                seen.add(id(cur))
                todo.extend(an.call_sites(cur))
        return False

    @staticmethod
    def _next_arg(call: nodes.Call) -> nodes.NodeNG | None:
        if isinstance(call.func, nodes.Name) and call.func.name == "next" and call.args:
            return call.args[0]
        return None

    def _data_is_plain(self, loop: nodes.NodeNG) -> bool:
        """The loop's batches come from a source known not to place a barrier.

        A ``for`` over a DataLoader, a list, ``range`` or a same-module function
        that returns one of those; a ``while`` loop whose ``next()`` calls read such
        a source (or that makes its batches itself). Parameters with no visible
        call site, subscripts and foreign calls are unknown: no finding.
        """
        an = self.ctx.analyzer
        if isinstance(loop, nodes.For):
            return self._plain(loop.iter, 0)
        sources = [self._next_arg(c) for c in an.calls_in(loop, into_loops=False)]
        return all(self._plain(src, 0) for src in sources if src is not None)

    def _plain(self, node: nodes.NodeNG | None, depth: int) -> bool:
        an = self.ctx.analyzer
        if node is None or depth > 8:
            return False
        if isinstance(node, (nodes.List, nodes.Tuple, nodes.ListComp, nodes.GeneratorExp,
                             nodes.Const)):
            return True
        if isinstance(node, nodes.Call):
            q = an.qualname(node.func) or source_key(node.func) or ""
            if q.endswith("DataLoader") or q in ("range", "list", "sorted", "reversed"):
                return True
            if q in LOOP_WRAPPERS:
                return bool(node.args) and all(self._plain(a, depth + 1) for a in node.args)
            if isinstance(node.func, nodes.Attribute) and node.func.attrname in (
                    "chunk", "split", "items", "values", "keys"):
                return True
            target = an.resolve_function(node.func)
            if target is None or any(True for _ in target.nodes_of_class(
                    (nodes.Yield, nodes.YieldFrom), skip_klass=(nodes.FunctionDef,
                                                                nodes.Lambda))):
                return False
            returns = [r.value for r in target.nodes_of_class(nodes.Return, skip_klass=(
                nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)) if r.value is not None]
            return bool(returns) and all(self._plain(r, depth + 1) for r in returns)
        if isinstance(node, (nodes.Name, nodes.Attribute)):
            values = an.values_of(node)
            if values:
                return all(self._plain(v, depth + 1) for v in values)
            return self._param_plain(node, depth)
        return False

    def _param_plain(self, node: nodes.NodeNG, depth: int) -> bool:
        """A parameter whose every call site passes a plain source."""
        an = self.ctx.analyzer
        if not isinstance(node, nodes.Name):
            return False
        for b in an.bindings(node):
            if isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Arguments) and \
                    isinstance(b.parent.parent, nodes.FunctionDef):
                func = b.parent.parent
                names = [a.name for a in b.parent.args]
                offset = 1 if names and names[0] in ("self", "cls") else 0
                idx = names.index(b.name) - offset if b.name in names else -1
                sites = an.call_sites(func)
                args = [c.args[idx] if 0 <= idx < len(c.args) else keyword(c, b.name)
                        for c in sites]
                return bool(sites) and all(a is not None and self._plain(a, depth + 1)
                                           for a in args)
        return False


class PlainDataLoaderInStep(Rule):
    """XLA302: a training loop that moves each batch of a plain DataLoader itself.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (``pl.MpDeviceLoader`` loads
    batches onto the device in the background and marks the step).
    """

    code = "XLA302"
    fix = "none"
    name = "plain-dataloader-in-step"
    message = ("plain DataLoader in the training loop: each batch is copied to the XLA device "
               "inside the step, so the copy is not overlapped with compute; iterate "
               "pl.MpDeviceLoader(loader, device) instead (it also places the step barrier)")
    explanation = """`for batch in loader: batch = batch.to(device)` copies each batch to the device
synchronously at the start of the step. `torch_xla.distributed.parallel_loader.
MpDeviceLoader` prefetches batches onto the device in background threads and calls
`torch_xla.sync()` after each one, so input transfer overlaps the previous step.

**Example**
```python
for x, y in loader:
    x, y = x.to(device), y.to(device)
    ...
    torch_xla.sync()
```
**Use instead**
```python
for x, y in pl.MpDeviceLoader(loader, device):
    ...
```
Measured (checks/XLA302, PJRT_DEVICE=CPU, 8 steps): 21 host-to-device transfers
(two per step) for the flagged script against 6 batched ones through
`MpDeviceLoader`; the CPU device shows no speed difference.

Reported only for loops over a `torch.utils.data.DataLoader` that run backward or
an optimizer step and call `.to()` with the XLA device. A loop without any
barrier is reported as XLA301 instead.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or an.managed:
            return
        for loop in an.module_nodes(nodes.For):
            if not self._is_torch_loader(loop.iter) or not an.is_training_loop(loop):
                continue
            if not an.has_barrier(loop):
                continue  # XLA301's finding
            moves = any(isinstance(c.func, nodes.Attribute) and c.func.attrname == "to"
                        and c.args and an.is_xla_device(c.args[0])
                        for c in an.calls_in(loop, into_loops=False))
            if moves:
                yield self.finding(loop)

    def _is_torch_loader(self, it: nodes.NodeNG, depth: int = 0) -> bool:
        an = self.ctx.analyzer
        if depth > 8:
            return False
        if isinstance(it, nodes.Call):
            q = an.qualname(it.func) or source_key(it.func) or ""
            if q in LOOP_WRAPPERS and it.args:
                return self._is_torch_loader(it.args[0], depth + 1)
            return q == "torch.utils.data.DataLoader"
        if isinstance(it, (nodes.Name, nodes.Attribute)):
            return any(self._is_torch_loader(v, depth + 1) for v in an.values_of(it))
        return False
