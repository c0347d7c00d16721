"""XLA3xx: step boundaries and graph size."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import Analyzer, Kind, keyword
from flake8_xla.analysis import values as V
from flake8_xla.analysis.flows import enclosing_class, enclosing_function
from flake8_xla.analysis.hooks import callback_sites
from flake8_xla.analysis.names import chain_root, words_of_text
from flake8_xla.analysis.specs import device_value
from flake8_xla.analysis.steps import runs_every_n, single_pass
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.context import Finding
from flake8_xla.filefacts import FileFacts, may_forward, may_update, tensor_world
from flake8_xla.rules.base import Rule

LOOPS = (nodes.For, nodes.While)
ACCUMULATORS = frozenset({"append", "extend", "add", "insert"})
# In-place tensor arithmetic that adds a value into its receiver (``total.add_(correct)``):
# on a tensor made before the loop it carries the device state from one pass to the next.
INPLACE_ACCUMULATORS = frozenset({"add_", "sub_", "mul_", "div_", "addcmul_", "addcdiv_",
                                  "lerp_", "index_add_", "scatter_add_"})


def _read_name(node: nodes.NodeNG) -> str | None:
    """The name a read or a collected value stands for: ``out`` of ``out``,
    ``out.detach()``, ``out.cpu()``, ``out.detach().cpu().numpy()`` (None for a new
    value: ``out.argmax(-1)``, ``vals.squeeze()``)."""
    while isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
            node.func.attrname in ("detach", "cpu", "numpy", "item", "tolist") and \
            not node.args:
        node = node.func.expr
    return node.name if isinstance(node, nodes.Name) else None


_SCOPES = (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)
#: Words of an attribute that holds the data a loop iterates (not the indices of a
#: denoising or decoding loop).
_DATA_WORDS = frozenset({"loader", "dataloader", "data", "dataset", "batch", "batches",
                         "stream", "iterator", "queue", "samples", "examples"})
#: The update kinds (:meth:`~flake8_xla.analysis.steps.Steps.update_kind`) that step an
#: optimizer (not a backward pass).
_OPTIMIZER_STEPS = ("optimizer_step", "scaler_step")
#: Classes whose ``target=`` function runs in a thread or process of its own.
THREAD_TARGETS = frozenset({"threading.Thread", "multiprocessing.Process",
                            "torch.multiprocessing.Process"})


def _periodic_if(node: nodes.NodeNG, loop: nodes.NodeNG) -> nodes.If | None:
    """The ``if`` inside ``loop`` whose body holds ``node`` and runs once every N
    iterations (``if step % save_every == 0:``, see :func:`runs_every_n`); None when
    there is none, or when ``node`` is not written in the loop's own body (a function the
    loop calls)."""
    child, cur = node, node.parent
    while cur is not None and cur is not loop:
        if isinstance(cur, _SCOPES):
            return None
        if isinstance(cur, nodes.If) and any(s is child for s in cur.body) and \
                runs_every_n(cur.test):
            return cur
        child, cur = cur, cur.parent
    return None


def _in_step_loop(an: Analyzer, node: nodes.NodeNG) -> bool:
    """``node`` lies, within its function, in a loop of ``an``'s module that has a barrier
    or is a step loop."""
    cur = node.parent
    while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
        if isinstance(cur, LOOPS) and (an.steps.has_barrier(cur) or an.steps.is_step_loop(cur)):
            return True
        cur = cur.parent
    return False


class MissingStepBarrier(Rule):
    """XLA301: a training or evaluation loop that never cuts the lazy graph.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (the step ends at
    ``torch_xla.sync()`` / ``xm.mark_step()``; ``MpDeviceLoader`` inserts it)
    and the torch_xla 2.8 release notes (``torch_xla.sync`` replaces ``xm.mark_step``).
    """

    code = "XLA301"
    fix = "unsafe"
    name = "missing-step-barrier"
    message = ("missing step barrier: this {kind} loop has no {sync} and no MpDeviceLoader, "
               "so the lazy graph grows step after step and nothing runs until a value is read; "
               "call {sync} at the end of each step or iterate pl.MpDeviceLoader(loader, device)")
    explanation = """\
torch_xla records operations into a lazy graph and runs it at a step barrier. A loop
that runs `backward()` and an optimizer step without `torch_xla.sync()`
(`xm.mark_step()` before 2.8), without `xm.optimizer_step(opt, barrier=True)` and
without iterating a `pl.MpDeviceLoader` keeps extending one graph (`xm.wait_device_ops()`
waits for what already runs and starts nothing, so it is no barrier): tracing slows
down every step, the graph is compiled only when something reads a value, and
memory grows. An evaluation loop that collects its lazy outputs (`preds.append(out)`)
without a barrier does the same: all its forward passes end up in one graph, even when
each iteration reads some other value on the host (a read runs the graph of what it reads
and nothing else: `env.step(acts.cpu().numpy())` leaves the log-probabilities and values
of the same forward pending in `logp_buf.append(lp)`, measured: 3 reads then one graph of
all 3 iterations at the final `torch.stack`); only a read of the collected tensor itself
(`out.cpu()` of the `out` appended) turns it into device data. An environment rollout
that uploads each observation and runs the policy on it counts as a loop over the data
(a "rollout" loop in the message). A loop over
the data whose forward outputs are all dropped (`_ = model(x)`, a warm-up or throughput
loop) runs no graph at all without a barrier: the device does no work, and its timings
measure tracing alone. A training loop that steps the optimizer every iteration but
runs its only barrier in a branch taken every N iterations that steps no optimizer (`if
step % save_every == 0: xm.save(...); xm.mark_step()`) traces N steps into one graph;
a barrier beside the optimizer step of a gradient-accumulation bucket (`if (i + 1) %
accum == 0: optimizer.step(); torch_xla.sync()`) is where that step ends, and is not
reported. A function that a launcher, a thread or a process runs
(`threading.Thread(target=batch_and_learn)`) drives its loops, as a script's `main()` does,
also a `main()` of another module of the project (`train.train(agent, n_episodes)`: the
episode loop of train.py is the training loop). A denoising or decoding loop over
`range(...)` or a scheduler's `timesteps` that carries a lazy tensor from one iteration to the
next (`sample = scheduler.step(unet(sample, t).sample, t, sample).prev_sample`, `h =
decoder(x, h)`) with no barrier and no host read is traced as one graph of every step (a
"generation" loop in the message). An epoch loop whose iterations run a training loop over
the data (`single_epoch(model, loader, opt)`) is not a step loop itself, even when each
epoch ends with one more optimizer step (a last partial accumulation bucket): the loop
over the data is judged.

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
Not reported: loops over `MpDeviceLoader`/`ParallelLoader` (or over a project's own
loader class whose `__iter__`, or a generator function, yields a batch and runs
`torch_xla.sync()` in the same iteration, or hands on an MpDeviceLoader's batches with
`yield from`), loops in functions
compiled with `torch_xla.compile`, micro-batch loops inside a step that has a
barrier, loops whose batches may come from an XLA loader the linter cannot see, loops
that step an optimizer on gradients computed elsewhere (copied in from other processes'
replicas: no batch drawn, no forward or backward pass, so no step graph traced there), and
scripts driven by accelerate, Lightning or ignite, whose XLA loaders place the barrier.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
        "https://github.com/pytorch/xla/releases/tag/v2.8.0",
    )
    versions = "all"

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return facts.has_loop and tensor_world(facts) and (may_update(facts) or
                                                           may_forward(facts))

    @staticmethod
    def _eager(an: Analyzer) -> bool:
        """``torch_xla.experimental.eager_mode(True)``: every op runs as it is traced, so
        there is no graph to grow (torch_xla ``experimental/eager.py``)."""
        for name in ("eager_mode", "eager_mode_context"):
            for call in an.calls_named(name):
                q = an.qualname(call.func) or ""
                flag = call.args[0] if call.args else keyword(call, "enable")
                if q.startswith("torch_xla.experimental") and isinstance(flag, nodes.Const) \
                        and flag.value is True:
                    return True
        return False

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None or an.managed:
            return
        steps = an.steps
        if self._eager(an):
            return
        for loop in an.rule_nodes(LOOPS):
            if single_pass(loop):
                continue  # (one pass, a warm-up or smoke test: one graph, cut after it)
            training = steps.is_training_loop(loop)
            if not training and not self._collects_lazy_outputs(loop):
                continue
            if training and self._steps_received_gradients(loop):
                continue
            if training and steps._drives_data_loops(loop, training=True) and (
                    self._drives_stepping_loops(loop) or
                    not self._steps_every_iteration(loop)):
                # an epoch loop: its steps are the loops over the data that it runs (an
                # optimizer step after one, a last partial accumulation bucket, is part
                # of that epoch's last step); those loops are judged on their own
                continue
            periodic = training and steps.has_barrier(loop) and \
                self._barrier_only_periodic(loop)
            if steps.has_barrier(loop) and not periodic or an.off_xla_path(loop) or \
                    steps.cpu_training(loop):
                continue
            if steps.in_compiled_function(loop) or self._runs_inside_a_step(loop):
                continue
            if not self._data_is_plain(loop) and not (
                    not training and self._over_indices(loop) and
                    self._carries_lazy_state(loop)):
                continue  # the batches may come from an XLA loader we cannot see
            if periodic:
                yield self.finding_text(loop, f"{self.code} {self.PERIODIC}")
                continue
            over_data = isinstance(loop, nodes.For) and any(
                steps.is_data(v) for v in an.value(loop.iter))
            kind = "training" if training else "rollout" if not over_data and \
                steps._feeds_uploads(loop) else "generation" if not over_data and \
                self._carries_lazy_state(loop) else "evaluation"
            yield self.finding(loop, kind=kind)

    def _steps_received_gradients(self, loop: nodes.NodeNG) -> bool:
        """The loop steps an optimizer but draws no batch and runs no forward or backward
        pass (its calls followed into the project's functions as the step analysis follows
        them): the gradients come from elsewhere (other processes' replicas copied in,
        ``p.grad[...] = g``, a parameter server), and no step graph is traced in it. A step
        handed a closure (``opt.step(closure)``, ``optimizer_args={"closure": ...}``) runs
        the passes itself."""
        an = self.an
        steps = an.steps
        if isinstance(loop, nodes.For) and any(steps.is_data(v) for v in an.value(loop.iter)):
            return False
        for call, cx in steps.calls_in(loop, into_loops=True):
            kind = steps.update_kind(call, cx)
            if kind is not None and kind != "optimizer_step":
                return False
            if kind == "optimizer_step" and (
                    isinstance(call.func, nodes.Attribute) and call.func.attrname == "step" and
                    (call.args or call.keywords) or keyword(call, "optimizer_args")):
                return False  # ``opt.step(closure)`` (LBFGS): the closure runs both passes
            if isinstance(call.func, nodes.Name) and call.func.name == "next" or \
                    steps.is_forward_call(call, cx, loop=loop):
                return False
        return True

    PERIODIC = ("missing step barrier: this training loop steps the optimizer every "
                "iteration but runs its barrier only in a branch taken every N iterations "
                "(a save, log or evaluation interval), so the lazy graph grows over N steps, and is "
                "compiled as one graph; call torch_xla.sync() at the end of each step or "
                "iterate pl.MpDeviceLoader(loader, device)")

    def _runs_barrier(self, call: nodes.Call) -> bool:
        """``call`` runs a project function whose calls (followed as the step analysis
        follows them) include a barrier."""
        steps = self.an.steps
        for func, fctx in steps.ev.functions_called(call, None):
            owner = steps.steps_for(func)
            if owner is not None and any(owner.is_barrier_call(c, cx) for c, cx in
                                         owner.calls_in(func, fctx, into_loops=True)):
                return True
        return False

    def _barrier_only_periodic(self, loop: nodes.NodeNG) -> bool:
        """The loop steps the optimizer on every iteration (outside any ``if i % N``
        branch), and every barrier it runs is written in its own body under such a branch
        that steps no optimizer (``if step % save_every == 0: xm.save(...);
        xm.mark_step()``, or an ``evaluate()`` run every N steps whose loop has the
        barrier): the steps between two barriers trace into one graph. A barrier in the
        branch that steps the optimizer is a gradient-accumulation boundary (the graph of
        the micro-steps is meant to be one); an XLA loader is not judged."""
        steps = self.an.steps
        if isinstance(loop, nodes.For) and steps.loader_kind(self.an.value(loop.iter)) in (
                "xla", "managed"):
            return False
        # (each barrier by the call of the loop's own body that runs it: the barrier, or a
        # call of a function that runs one, such as an ``evaluate()`` every N steps)
        if steps.compiles_steps(loop):
            return False  # (``with torch_xla.step():`` cuts each step)
        barriers = [c for c in nodes_of(loop, nodes.Call, skip_klass=_SCOPES)
                    if steps.is_barrier_call(c) or self._runs_barrier(c)]
        if not barriers:
            return False  # (a barrier found another way)
        for call in barriers:
            branch = _periodic_if(call, loop)
            if branch is None or any(
                    steps.update_kind(c) in _OPTIMIZER_STEPS
                    for c in nodes_of(branch, nodes.Call, skip_klass=_SCOPES)):
                return False
        return any(steps.update_kind(c) in _OPTIMIZER_STEPS and
                   _periodic_if(c, loop) is None
                   for c in nodes_of(loop, nodes.Call, skip_klass=_SCOPES))

    # ------------------------------------------------------------------ eval loops
    def _collects_lazy_outputs(self, loop: nodes.NodeNG) -> bool:
        """A forward-pass loop that keeps lazy outputs it never reads per step.

        A host read runs the graph of what it reads and nothing else: ``a.cpu()`` leaves
        ``b`` pending even when both come from the same forward pass, so a list of ``b``s
        (``lp_buf.append(lp)`` beside ``env.step(acts.cpu().numpy())``) still holds one
        pending graph per iteration, all run as one graph where it is finally read. Only
        a read of the collected name itself (``preds.append(out)`` and ``out.cpu()``)
        turns the collected tensor into device data."""
        an = self.an
        steps = an.steps
        if not isinstance(loop, nodes.For) or not steps.is_forward_loop(loop):
            return False
        if steps._inside_forward(loop):
            return False
        reads, read_names = self._host_reads(loop)
        collected: list[nodes.NodeNG] = []
        assigned: set[str] | None = None  # (the names the loop binds, when first asked)
        for node in steps.body_nodes(loop, into_loops=False):
            if isinstance(node, nodes.Call):
                f = node.func
                if isinstance(f, nodes.Attribute) and f.attrname in ACCUMULATORS and \
                        node.args and an.holds_lazy(node.args[-1]):
                    collected.append(node.args[-1])
                if isinstance(f, nodes.Attribute) and f.attrname in INPLACE_ACCUMULATORS and \
                        isinstance(f.expr, nodes.Name) and node.args:
                    if assigned is None:
                        assigned = {n.name for n in steps.body_nodes(loop, into_loops=True)
                                    if isinstance(n, nodes.AssignName)} | {
                            n.name for n in nodes_of(loop.target, nodes.AssignName)}
                    if f.expr.name not in assigned and an.is_lazy(f.expr) and \
                            an.is_lazy(node.args[0]):
                        return True  # ``total_correct.add_(correct)``: made before the loop
            elif isinstance(node, nodes.AugAssign) and an.is_lazy(node.value):
                return True  # ``correct += (pred == y).sum()``: state carried on the device
        if self._accumulates_in_objects(loop):
            return True  # ``meter.update(acc)`` that does ``self.sum += val``
        if not reads and self._carries_lazy_state(loop):
            return True  # ``x = scheduler.step(model(x, t), t, x).prev_sample``
        if not collected and not reads and self._discards_outputs(loop):
            return True  # ``_ = model(x)`` per batch: nothing ever runs on the device
        return any(_read_name(c) not in read_names and not self._uploaded(c)
                   for c in collected)

    def _carries_lazy_state(self, loop: nodes.NodeNG) -> bool:
        """The loop's own body rebinds a name to a lazy tensor that depends on the name's
        value from the iteration before: the name is read in the body before any binding
        of it there (``sample = scheduler.step(model(sample, t), t, sample).prev_sample``,
        ``mean = (x - c * eps) / s`` then ``x = mean + sigma * z``, ``h, c = cell(x, (h,
        c))``). With no barrier and no host read, each iteration's graph is appended to
        the last one's: a denoising or decoding loop of N steps is traced and compiled as
        one graph of N forward passes. The loop's own targets are bound afresh by each
        iteration, so they carry nothing."""
        an = self.an
        memo = self.__dict__.setdefault("_carried_memo", {})
        if id(loop) in memo:
            return memo[id(loop)]
        if any(isinstance(node, (nodes.If, nodes.While)) and an.is_lazy(node.test)
               for node in an.steps.body_nodes(loop, into_loops=False)):
            memo[id(loop)] = False  # (``if (z_next - z).norm() < tol: break``: a branch on
            return False  # a lazy value runs the graph each iteration, see XLA103)
        fresh = {t.name for t in nodes_of(loop.target, nodes.AssignName)} \
            if isinstance(loop, nodes.For) else set()
        stores: dict[str, list[nodes.Assign]] = {}
        events: dict[str, list[tuple[int, int]]] = {}
        for node in an.steps.body_nodes(loop, into_loops=False):
            if isinstance(node, nodes.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                names = [target] if isinstance(target, nodes.AssignName) else [
                    e for e in target.elts if isinstance(e, nodes.AssignName)] \
                    if isinstance(target, nodes.Tuple) else []
                for n in names:
                    stores.setdefault(n.name, []).append(node)
                    events.setdefault(n.name, []).append((node.tolineno, 1))
            elif isinstance(node, nodes.Name):
                events.setdefault(node.name, []).append((node.lineno, 0))
        found = False
        for name, assigns in stores.items():
            if name in fresh or min(events[name])[1] != 0:
                continue  # (bound in this iteration before any read of it)
            if any(an.is_lazy(a.value) or an.holds_lazy(a.value) for a in assigns):
                found = True
                break
        memo[id(loop)] = found
        return found

    def _host_reads(self, loop: nodes.NodeNG) -> tuple[bool, set[str]]:
        """Whether the loop's own body reads a lazy value on the host (each iteration runs
        the graph of what it reads), and the names it reads directly (memoised)."""
        memo = self.__dict__.setdefault("_reads_memo", {})
        if id(loop) in memo:
            return memo[id(loop)]
        an = self.an
        reads = False
        names: set[str] = set()
        for node in an.steps.body_nodes(loop, into_loops=False):
            if not isinstance(node, nodes.Call) or an.off_xla_path(node):
                continue
            f = node.func
            if any(e.sync for e in an.entries(node)) and any(
                    an.holds_lazy(a) for a in node.args):
                reads = True
                names.update(n for a in node.args if (n := _read_name(a)))
            elif isinstance(f, nodes.Attribute) and any(
                    e.sync in ("scalar", "transfer") for e in an.entries(node)) and \
                    an.is_lazy(f.expr):
                reads = True
                if (n := _read_name(f.expr)) is not None:
                    names.add(n)
        memo[id(loop)] = (reads, names)
        return reads, names

    def _uploaded(self, expr: nodes.NodeNG) -> bool:
        """``expr`` names host data copied to the device (``obs = torch.from_numpy(o)
        .float().to(device)``): device data, not a pending graph, wherever it is kept."""
        if not isinstance(expr, nodes.Name):
            return False
        binds = self.an.ev.bindings(expr)
        for b in binds:
            stmt = b.parent
            if not (isinstance(b, nodes.AssignName) and isinstance(stmt, nodes.Assign) and
                    isinstance(stmt.value, nodes.Call) and
                    isinstance(stmt.value.func, nodes.Attribute) and
                    stmt.value.func.attrname == "to" and
                    not self.an.is_lazy(stmt.value.func.expr)):
                return False
        return bool(binds)

    def _discards_outputs(self, loop: nodes.For) -> bool:
        """A loop over the data whose forward passes' outputs are all dropped: ``_ =
        model(x)``, ``model(x)`` as a statement, or a name nothing reads (a warm-up or
        throughput loop). With no barrier, no graph is ever executed: the device does no
        work and the timings measure tracing alone."""
        an = self.an
        steps = an.steps
        forwards = [n for n in steps.body_nodes(loop, into_loops=False)
                    if isinstance(n, nodes.Call) and steps.is_forward_call(n, None, loop=loop)]
        if not forwards or not self._over_data(loop):
            return False
        frame = loop.frame()
        for call in forwards:
            parent = call.parent
            if isinstance(parent, nodes.Expr):
                continue
            if not (isinstance(parent, nodes.Assign) and len(parent.targets) == 1 and
                    isinstance(parent.targets[0], nodes.AssignName)):
                return False
            name = parent.targets[0].name
            if name != "_" and any(frame.parent_of(n) for n in an.ev.name_uses(name)):
                return False  # (read somewhere in the function)
        return True

    def _accumulates_in_objects(self, loop: nodes.NodeNG) -> bool:
        """A method the loop calls adds a lazy value to an attribute of its object."""
        an = self.an
        for call, ctx in an.steps.calls_in(loop, into_loops=False):
            for func, fctx in an.ev.functions_called(call, ctx):
                if not isinstance(func, nodes.FunctionDef) or enclosing_class(func) is None:
                    continue
                for aug in an.ev.own_nodes(func, nodes.AugAssign):
                    target = aug.target
                    if isinstance(target, nodes.AssignAttr) and isinstance(
                            target.expr, nodes.Name) and target.expr.name == "self" and \
                            an.is_lazy(aug.value, fctx):
                        return True
        return False

    # ------------------------------------------------------------------ drivers
    def _runs_inside_a_step(self, loop: nodes.NodeNG) -> bool:
        """A micro-batch loop inside a step, or a loop whose function may run per step.

        That is an inner loop of a loop with a barrier or an XLA loader, a loop in a
        function called from such a loop, or a loop over something other than a data
        loader in a function that is not known to drive training (no call site in the
        module, not a launcher's entry point).
        """
        an = self.an
        steps = an.steps
        cur = loop.parent
        while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
            if isinstance(cur, LOOPS) and steps.is_training_loop(cur) and (
                    steps.has_barrier(cur) or steps.is_step_loop(cur)):
                # micro-batches accumulated inside a step whose own optimizer step (and
                # barrier) follow them (``for micro in range(4): x, y = next(it)``); with
                # no barrier there, the step loop around them is the one reported (a
                # barrier in the micro-batch loop would cut the accumulation)
                return True
            cur = cur.parent
        if self._over_data(loop, uploads=False) and not self._micro_batches(loop):
            return False  # a loop over the data is the step loop itself
        if steps._feeds_uploads(loop) and self._host_reads(loop)[0]:
            # an environment rollout: each iteration uploads an observation and reads an
            # action back, so it is a step loop of its own even where its caller's loop
            # has a barrier (that barrier runs after the whole rollout)
            return False
        cur = loop.parent
        while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
            if isinstance(cur, LOOPS) and steps.has_barrier(cur):
                return True
            cur = cur.parent
        func = enclosing_function(loop)
        if func is None:
            return False
        found = self._callers_run(an, [func], across=True)
        # (a rollout that uploads fresh inputs each iteration is a step loop of its own,
        # unless a step loop or a loop with a barrier calls its function)
        return found is True or found is None and not steps._feeds_uploads(loop)

    def _callers_run(self, an: Analyzer, funcs: list[nodes.NodeNG], *, across: bool = False
                     ) -> bool | None:
        """Where functions ``funcs`` of ``an``'s module run, by their callers followed up
        within that module (and, ``across``, by each one's callers in other modules, see
        :meth:`_runs_from_elsewhere`): True when a call sits inside a step (a loop with a
        barrier, or a step loop), else False when one is driven from the top (the module
        level, a launcher's entry point), else None (at most 20 functions are followed)."""
        seen: set[int] = set()
        todo = list(funcs)
        driver = False
        while todo and len(seen) < 20:
            f = todo.pop()
            if id(f) in seen:
                continue
            seen.add(id(f))
            if self._launched(f, an):
                driver = True
                continue
            for call, _ in an.ev.call_sites(f):
                if _in_step_loop(an, call):
                    return True
                outer = enclosing_function(call)
                if outer is None:
                    driver = True
                else:
                    todo.append(outer)
            if across:
                remote = self._runs_from_elsewhere(f)
                if remote:
                    return True
                driver = driver or remote is False
        return False if driver else None

    def _drives_stepping_loops(self, loop: nodes.NodeNG) -> bool:
        """An inner ``for`` loop over the data of ``loop``, or of a function its iterations
        call, steps an optimizer itself (``single_epoch(model, loader, opt)``): ``loop``
        runs whole epochs. A loop over micro-batches that only back-propagates, whose
        optimizer step follows it in ``loop``'s body, is a part of ``loop``'s step
        instead."""
        steps = self.an.steps
        for holder, hctx in steps.loop_holders_in(loop, calls_only=False):
            owner = steps if holder is loop else steps.steps_for(holder)
            if owner is None:
                continue
            for inner in nodes_of(holder, nodes.For, skip_klass=_SCOPES):
                if inner is not loop and any(
                        owner.is_data(v) for v in owner.ev.value(inner.iter, hctx)) and any(
                        owner.update_kind(c, cx) in _OPTIMIZER_STEPS
                        for c, cx in owner.calls_in(inner, hctx, into_loops=True)):
                    return True
        return False

    def _micro_batches(self, loop: nodes.NodeNG) -> bool:
        """``for _ in range(accum): x, y = next(it); loss.backward()`` followed, in the
        same function, by an optimizer step: the loop draws the micro-batches of one step
        (gradient accumulation), it is not the step loop; whoever calls the function
        runs the steps."""
        steps = self.an.steps
        func = enclosing_function(loop)
        if not (isinstance(loop, nodes.For) and isinstance(loop.iter, nodes.Call) and
                self.an.is_builtin(loop.iter.func, "range")) or func is None:
            return False
        if any(steps.update_kind(c, cx) in _OPTIMIZER_STEPS
               for c, cx in steps.calls_in(loop, into_loops=True)):
            return False
        return any(steps.update_kind(c) in _OPTIMIZER_STEPS
                   for c in nodes_of(func, nodes.Call, skip_klass=_SCOPES)
                   if c.fromlineno > loop.tolineno)

    def _steps_every_iteration(self, loop: nodes.NodeNG) -> bool:
        """An optimizer step runs on every iteration of ``loop``: in its body, or in the
        body of a function its iterations call, under no ``if`` (the step after a loop of
        micro-batches, not the step of a last partial accumulation bucket)."""
        steps = self.an.steps
        for call, ctx in steps.calls_in(loop, into_loops=False):
            if steps.update_kind(call, ctx) not in _OPTIMIZER_STEPS:
                continue
            cur = call.parent
            while cur is not None and not isinstance(cur, (*LOOPS, nodes.FunctionDef,
                                                             nodes.Module)):
                if isinstance(cur, (nodes.If, nodes.IfExp, nodes.ExceptHandler)):
                    break  # (a conditional step)
                cur = cur.parent
            if isinstance(cur, (*LOOPS, nodes.FunctionDef)):
                return True
        return False

    def _runs_from_elsewhere(self, func: nodes.NodeNG) -> bool | None:
        """Whether another module of the project runs ``func`` (a top-level function)
        inside a step: a call of it in a loop with a barrier or in a step loop, or in a
        function whose callers there (followed up to the module level) are. False when
        every such call is driven from the top instead (``train.train(agent, ...)`` from a
        script's ``main()``); None when that is not known (no call in another module, not
        all calls known, see :meth:`~flake8_xla.project.link.Session.calls_elsewhere`, or
        a chain of callers that ends nowhere)."""
        link = self.an.link
        found = link.calls_elsewhere(self.an.ev, func) if link is not None else None
        if not found:
            return None
        driver = False
        for an, call in found:
            if _in_step_loop(an, call):
                return True
            outer = enclosing_function(call)
            chain = False if outer is None else self._callers_run(an, [outer])
            if chain:
                return True
            driver = driver or chain is False
        return False if driver else None

    def _launched(self, func: nodes.NodeNG, an: Analyzer | None = None) -> bool:
        """``func`` is a launcher's entry point (``xmp.spawn(fn)``), or the target of a
        thread or process (``threading.Thread(target=batch_and_learn)``): it drives what
        its loops run (asked of ``an``'s module, by default this rule's)."""
        an = an if an is not None else self.an
        for kw, call, pos in callback_sites(an.ev).get(id(func), []):
            if pos == 0 and an.does(call, "launch"):
                return True
            if kw == "target" and (an.qualname(call.func) or "") in THREAD_TARGETS:
                return True
        return False

    def _over_data(self, loop: nodes.NodeNG, uploads: bool = True) -> bool:
        """A ``for`` over a loader or dataset, a loop that takes ``next()`` of one, or (with
        ``uploads``) an environment rollout that uploads each new observation and runs the
        model on it (:meth:`Steps._feeds_uploads`: every iteration is a step over fresh
        inputs)."""
        an = self.an
        if isinstance(loop, nodes.For) and any(an.steps.is_data(v) for v in an.value(loop.iter)):
            return True
        if uploads and an.steps._feeds_uploads(loop):
            return True
        # ``for step in range(n): x, y = next(it)``: the batches come from next()
        sources = [c.args[0] for c, _ in an.steps.calls_in(loop, into_loops=False)
                   if isinstance(c.func, nodes.Name) and c.func.name == "next" and c.args]
        return any(an.steps.is_data(v) for src in sources for v in an.value(src))

    # ------------------------------------------------------------------ data
    def _data_is_plain(self, loop: nodes.NodeNG) -> bool:
        """The loop's batches come from a source known not to place a barrier.

        A ``for`` over a DataLoader, a host iterable or a custom loader of them; a loop
        that moves its batches to the device itself; a ``while`` loop whose ``next()``
        calls read such a source (or that makes its batches itself).
        """
        an = self.an
        steps = an.steps
        if isinstance(loop, nodes.For):
            kind = steps.loader_kind(an.value(loop.iter))
            if kind == "plain":
                return True
            if kind is not None:
                return False
            return self._moves_its_batches(loop)
        sources = [c.args[0] for c, _ in steps.calls_in(loop, into_loops=False)
                   if isinstance(c.func, nodes.Name) and c.func.name == "next" and c.args]
        return all(steps.loader_kind(an.value(src)) == "plain" for src in sources)

    def _over_indices(self, loop: nodes.NodeNG) -> bool:
        """A ``for`` over ``range(...)``, or over an attribute that holds no loader
        (``scheduler.timesteps``, ``self.scheduler.timesteps``, also a local name bound
        once to one or to a slice of one), through ``enumerate``/``reversed``/``tqdm``:
        the indices of a denoising or decoding loop, not batches that an XLA loader could
        deliver. A name whose words say data (``self.val_loader``, ``batches``) is not."""
        if not isinstance(loop, nodes.For):
            return False
        an = self.an
        it = loop.iter
        for _ in range(4):
            while isinstance(it, nodes.Call) and isinstance(it.func, nodes.Name) and \
                    it.func.name in ("enumerate", "reversed", "tqdm", "list") and it.args:
                it = it.args[0]
            if isinstance(it, nodes.Subscript):
                it = it.value
            if not isinstance(it, nodes.Name):
                break
            binds = an.ev.bindings(it)
            if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName) or \
                    not isinstance(binds[0].parent, nodes.Assign):
                return False  # (a parameter, a loop target: anything may be handed in)
            it = binds[0].parent.value
        if isinstance(it, nodes.Call):
            return an.is_builtin(it.func, "range")
        if not isinstance(it, nodes.Attribute) or words_of_text(it.attrname) & _DATA_WORDS:
            return False
        return not any(v.kind in (Kind.LOADER, Kind.DATASET, Kind.ITERATOR, Kind.PROGRESS)
                       for v in an.value(it))

    def _moves_its_batches(self, loop: nodes.For) -> bool:
        """The body copies the loop's own batches to a device (``x.to(device)``) on the
        XLA path."""
        an = self.an
        targets = {t.name for t in nodes_of(loop.target, nodes.AssignName)}
        for node in an.steps.body_nodes(loop, into_loops=False):
            if not (isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute)
                    and node.func.attrname == "to"):
                continue
            root = chain_root(node.func.expr)
            if not (isinstance(root, nodes.Name) and root.name in targets):
                continue
            dev = keyword(node, "device") or (node.args[0] if node.args else None)
            is_dev, which = device_value(an.ev, dev, None, 0)
            if is_dev and which != "cpu" and not an.off_xla_path(node):
                # (``if device.type != "xla": x = x.to(device)``: on XLA the batches
                # arrive on the device, from a loader that may mark the step)
                return True
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
an optimizer step, have a barrier and call `.to()` with the XLA device. A loop
without any barrier is reported as XLA301 instead.

**Opt-in.** The loop is correct and its cost is an overlap that the CPU device cannot
show, so this rule is off by default; turn it on with `--extend-select=XLA302`
(`--select=XLA` alone does not).
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)
    opt_in = True

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return may_update(facts) and "DataLoader" in facts.idents

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None or an.managed:
            return
        steps = an.steps
        for loop in an.rule_nodes(nodes.For):
            if not self._is_torch_loader(an.value(loop.iter), 0):
                continue
            if not steps.is_training_loop(loop) or not steps.has_barrier(loop):
                continue
            if an.off_xla_path(loop):
                continue
            for call, _ in steps.calls_in(loop, into_loops=False):
                f = call.func
                if isinstance(f, nodes.Attribute) and f.attrname == "to" and call.args:
                    is_dev, which = device_value(an.ev, call.args[0], None, 0)
                    if is_dev and which in ("xla", None) and V.any_kind(
                            an.value(f.expr), Kind.TENSOR):
                        yield self.finding(loop)
                        break

    def _is_torch_loader(self, vs: frozenset[V.Value], depth: int) -> bool:
        if depth > 4 or not vs:
            return False
        for v in vs:
            if v.kind is Kind.LOADER and v.has("plain") and not v.has("custom") and \
                    v.qual == "torch.utils.data.DataLoader":
                continue
            if v.kind in (Kind.PROGRESS, Kind.ITERATOR) and v.bound and self._is_torch_loader(
                    v.bound, depth + 1):
                continue
            return False
        return True
