"""XLA3xx: step boundaries and graph size."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import LOOP_WRAPPERS, source_key
from flake8_xla.context import Finding
from flake8_xla.rules.base import Rule


class MissingStepBarrier(Rule):
    """XLA301: a training loop that never cuts the lazy graph.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (the step ends at
    ``torch_xla.sync()`` / ``xm.mark_step()``; ``MpDeviceLoader`` inserts it)
    and the torch_xla 2.8 release notes (``torch_xla.sync`` replaces ``xm.mark_step``).
    """

    code = "XLA301"
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
        for loop in an.module.nodes_of_class((nodes.For, nodes.While)):
            if not an.is_training_loop(loop) or an.has_barrier(loop):
                continue
            if isinstance(loop, nodes.For) and an.is_xla_loader(loop.iter):
                continue
            if an.in_compiled_function(loop) or self._outer_loop_has_barrier(loop):
                continue
            if self._loader_unknown(loop):
                continue
            yield self.finding(loop)

    def _outer_loop_has_barrier(self, loop: nodes.NodeNG) -> bool:
        """An inner (e.g. gradient-accumulation) loop of a loop that has a barrier."""
        an = self.ctx.analyzer
        cur = loop.parent
        while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
            if isinstance(cur, (nodes.For, nodes.While)) and (
                    an.has_barrier(cur) or (isinstance(cur, nodes.For) and an.is_xla_loader(
                        cur.iter))):
                return True
            cur = cur.parent
        return False

    def _loader_unknown(self, loop: nodes.NodeNG) -> bool:
        """The loop iterates a parameter whose loader may be an XLA one built elsewhere."""
        an = self.ctx.analyzer
        if not an.builds_xla_loader or not isinstance(loop, nodes.For):
            return False
        it = loop.iter
        while isinstance(it, nodes.Call) and it.args and (
                an.qualname(it.func) in LOOP_WRAPPERS or source_key(it.func) in LOOP_WRAPPERS):
            it = it.args[0]
        if isinstance(it, nodes.Name):
            return any(isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Arguments)
                       for b in an.bindings(it))
        return isinstance(it, nodes.Attribute)


class PlainDataLoaderInStep(Rule):
    """XLA302: a training loop that moves each batch of a plain DataLoader itself.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (``pl.MpDeviceLoader`` loads
    batches onto the device in the background and marks the step).
    """

    code = "XLA302"
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
Reported only for loops over a `torch.utils.data.DataLoader` that run backward or
an optimizer step and call `.to()` with the XLA device. A loop without any
barrier is reported as XLA301 instead.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or an.managed:
            return
        for loop in an.module.nodes_of_class(nodes.For):
            if not self._is_torch_loader(loop.iter) or not an.is_training_loop(loop):
                continue
            if not an.has_barrier(loop):
                continue  # XLA301's finding
            moves = any(isinstance(c.func, nodes.Attribute) and c.func.attrname == "to"
                        and c.args and an.is_xla_device(c.args[0])
                        for c in an.calls_in(loop, into_loops=False))
            if moves:
                yield self.finding(loop)

    def _is_torch_loader(self, it: nodes.NodeNG) -> bool:
        an = self.ctx.analyzer
        if isinstance(it, nodes.Call):
            q = an.qualname(it.func) or source_key(it.func) or ""
            if q in LOOP_WRAPPERS and it.args:
                return self._is_torch_loader(it.args[0])
            return q == "torch.utils.data.DataLoader"
        if isinstance(it, (nodes.Name, nodes.Attribute)):
            return any(self._is_torch_loader(v) for v in an.values_of(it))
        return False
