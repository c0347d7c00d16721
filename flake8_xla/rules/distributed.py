"""XLA5xx: distributed training, checkpoints, launchers and Trainer settings."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from astroid import nodes

from flake8_xla.analysis import (
    Analyzer,
    Kind,
    argument,
    const_str,
    has_star_kwargs,
    keyword,
    source_key,
)
from flake8_xla.analysis import values as V
from flake8_xla.analysis.flows import SCOPES, Ctx, enclosing_function, is_param_of, is_super_call
from flake8_xla.analysis.hooks import is_partial
from flake8_xla.analysis.names import JUMPS, callee_name, words_of, words_of_text
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.context import Finding
from flake8_xla.filefacts import FileFacts, launches, may_update
from flake8_xla.rules.base import Rule
from flake8_xla.rules.devices import SHOWN_BY

WRAPPERS = ("DistributedDataParallel", "FullyShardedDataParallel", "XlaFullyShardedDataParallel",
            "ZeroRedundancyOptimizer", "FSDP", "DDP", "SpmdFullyShardedDataParallel")
#: torch_xla collectives that move activations between replicas: a model split across
#: them (pipeline or tensor parallel, ``xm.collective_permute`` of the hidden states to
#: the next stage), whose replicas own different parameters, so a plain
#: ``optimizer.step()`` has nothing to all-reduce (data-parallel code never calls these)
MODEL_PARALLEL = ("collective_permute", "all_to_all")
MANAGED = ("accelerate", "lightning", "pytorch_lightning", "lightning_fabric", "deepspeed",
           "ignite")


def launcher_calls(an: Analyzer, *, multi_only: bool = False) -> list[nodes.Call]:
    """``xmp.spawn(fn, ...)`` and ``torch_xla.launch(fn, ...)`` calls of the module; with
    ``multi_only``, those that start more than one process (not ``nprocs=1`` or
    ``debug_single_process=True``)."""
    return [c for name in ("spawn", "launch") for c in an.calls_named(name)
            if an.does(c, "launch") and not (multi_only and _single_process(c))]


def _single_process(call: nodes.Call) -> bool:
    """``nprocs=1`` or ``debug_single_process=True`` (torch_xla ``xla_multiprocessing``)."""
    n = keyword(call, "nprocs")
    debug = keyword(call, "debug_single_process")
    return (isinstance(n, nodes.Const) and n.value == 1) or (
        isinstance(debug, nodes.Const) and debug.value is True)


#: Words of a count of replicas in a branch test (``world_size``, ``xr.world_size()``,
#: ``num_replicas``, ``nprocs``, ``len(devices)``, ``num_cores``).
_REPLICA_COUNT_WORDS = frozenset({"world", "replicas", "nprocs", "devices", "cores"})
#: ``count OP k`` tests (count on the left) that hold exactly when there is one replica or
#: none: the branch they guard (True) or the other one (False) runs with a single replica.
_ONE_REPLICA_TESTS = {("==", 1): True, ("<=", 1): True, ("<", 2): True,
                      ("!=", 1): False, (">", 1): False, (">=", 2): False}
_FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def single_replica_branch(node: nodes.NodeNG) -> bool:
    """``node`` runs only when the replica count is one: it lies in the branch of an
    ``if``/conditional expression of its function whose test compares a replica count with
    1 (``if world_size > 1: ... else: <node>``, ``if xr.world_size() == 1: <node>``).
    A boolean flag (``if args.distributed:``) is not read: its default need not match the
    launcher's process count."""
    child, cur = node, node.parent
    while cur is not None and not isinstance(cur, (*SCOPES, nodes.Module)):
        if isinstance(cur, (nodes.If, nodes.IfExp)) and child is not cur.test:
            in_body = child in cur.body if isinstance(cur, nodes.If) else child is cur.body
            single = _one_replica_test(cur.test)
            if single is not None and single == in_body:
                return True
        child, cur = cur, cur.parent
    return False


def _one_replica_test(test: nodes.NodeNG) -> bool | None:
    """For ``count OP k`` (either way round), whether the test holds (True) or fails
    (False) exactly when there is a single replica; None for any other test."""
    if not isinstance(test, nodes.Compare) or len(test.ops) != 1:
        return None
    op, right = test.ops[0]
    left = test.left
    if isinstance(left, nodes.Const) and not isinstance(right, nodes.Const):
        left, right, op = right, left, _FLIPPED.get(op, op)
    if not isinstance(right, nodes.Const) or type(right.value) is not int or \
            not words_of(left) & _REPLICA_COUNT_WORDS:
        return None
    return _ONE_REPLICA_TESTS.get((op, right.value))


#: importing modules asked whether they launch the replicas that run a module's code
MAX_LAUNCHING_CALLERS = 8


def is_multi_replica(an: Analyzer, hops: int = 0) -> bool:
    """The module's code runs in one process per device: it starts them itself
    (``xmp.spawn``/``torch_xla.launch``), it sets up the XLA process group that
    ``torchrun`` starts it in (``dist.init_process_group("xla")``), or a project module
    that imports it does and calls into it from a function (the function the replicas
    run, or one it calls).

    A single-process SPMD script (``xr.use_spmd()``) is not.
    """
    launches = launcher_calls(an, multi_only=True)
    group = _xla_process_group(an)
    if launches or group:
        if launches and not group and getattr(an, "_replica_excluded", None) is None:
            # (the replicas run the functions the module starts, and what those name: a
            # single-device ``train()`` beside ``_mp_fn`` does not run in them)
            an._replica_excluded = _single_device_functions(  # type: ignore[attr-defined]
                an, launches)
        return not _spmd(an)
    found = getattr(an, "_launched_by_importer", None)
    if found is None:
        an._launched_by_importer = False  # type: ignore[attr-defined]  # (a cycle: no)
        found = _launched_by_importer(an, hops)
        an._launched_by_importer = found  # type: ignore[attr-defined]
    return found


def _single_device_functions(an: Analyzer, launches: list[nodes.Call]) -> frozenset[str]:
    """Names of the module's top-level functions that the replicas it starts never run: it
    starts its own functions (``xmp.spawn(_mp_fn, ...)``), no other project module
    imports it, and such a function is neither named by what the replicas run (the
    started functions, what they name, module-level tables they read, the launch call's
    arguments) nor decorated, and is only ever called directly (``train_single()`` in the
    ``--single`` branch of the main block; never handed on as a value). Empty when not
    known."""
    link = an.link
    rel = link.rel_of(an) if link is not None else None
    if rel is None or link.index.imported(rel, every_module=True):
        return frozenset()
    reach = _replica_reach(an, launches)
    if not reach:
        return frozenset()
    out = set()
    for binds in an.module.locals.values():
        for func in binds:
            if not isinstance(func, nodes.FunctionDef) or \
                    not isinstance(func.parent, nodes.Module) or func.name in reach or \
                    func.decorators is not None:
                continue
            uses = an.ev.name_uses(func.name)
            if uses and all(isinstance(u.parent, nodes.Call) and u.parent.func is u
                            for u in uses):
                out.add(func.name)
    return frozenset(out)


def _top_level_names(an: Analyzer) -> dict[str, list[nodes.NodeNG]]:
    """The module's top-level functions and classes, and the values of its module-level
    assignments (``TASKS = {"train": train}``), by name."""
    top: dict[str, list[nodes.NodeNG]] = {}
    for binds in an.module.locals.values():
        for b in binds:
            if isinstance(b, (nodes.FunctionDef, nodes.ClassDef)) and \
                    isinstance(b.parent, nodes.Module):
                top.setdefault(b.name, []).append(b)
            elif isinstance(b, nodes.AssignName) and isinstance(b.statement(), (
                    nodes.Assign, nodes.AnnAssign)) and \
                    isinstance(b.statement().parent, nodes.Module) and \
                    b.statement().value is not None:
                top.setdefault(b.name, []).append(b.statement().value)
    return top


def _reached(top: dict[str, list[nodes.NodeNG]], entries: Iterable[str]) -> set[str]:
    """The names of ``top`` (see :func:`_top_level_names`) that ``entries`` name, directly
    or through the code and values of the names they reach."""
    reach: set[str] = set()
    frontier = [e for e in entries if e in top]
    while frontier:
        name = frontier.pop()
        if name in reach:
            continue
        reach.add(name)
        frontier += [n.name for node in top[name] for n in nodes_of(node, nodes.Name)
                     if n.name in top and n.name not in reach]
    return reach


def _replica_reach(an: Analyzer, launches: list[nodes.Call]) -> set[str]:
    """The module's top-level names that the replicas its launch calls start run: the
    started functions (:func:`_launched_here`), what the launch calls name, and what those
    reach (:func:`_reached`); empty when a launch starts something else."""
    targets = _launched_here(an, launches)
    if not targets:
        return set()
    return _reached(_top_level_names(an), [
        *targets, *(n.name for call in launches for n in nodes_of(call, nodes.Name))])


def _launched_here(an: Analyzer, launches: list[nodes.Call]) -> list[str]:
    """Names of the module's top-level functions that its launch calls start
    (``xmp.spawn(_mp_fn, ...)``); empty when one of them starts something else (a
    function of another module, a method, a value not known)."""
    names: list[str] = []
    for call in launches:
        fn = argument(call, 0, "fn")
        binds = an.ev.bindings(fn) if isinstance(fn, nodes.Name) else []
        if not binds or not all(isinstance(b, nodes.FunctionDef) and
                                isinstance(b.parent, nodes.Module) for b in binds):
            return []
        names += [b.name for b in binds]
    return names


def _backend(call: nodes.Call) -> nodes.NodeNG | None:
    """The ``backend`` argument of ``init_process_group(...)`` (positional or keyword)."""
    return call.args[0] if call.args else keyword(call, "backend")


def _xla_process_group(an: Analyzer) -> bool:
    """The module sets up torch.distributed's XLA process group on the XLA path:
    ``dist.init_process_group("xla")`` (or ``backend="xla"``, or a backend variable that
    is ``"xla"`` on the XLA path), which ``torchrun --nproc_per_node=N`` or ``xmp.spawn``
    runs in one process per device (torch_xla ``distributed/xla_backend.py``; the
    "Distributed Data Parallel" guide)."""
    for owner, call in group_calls(an):
        if not (owner.qualname(call.func) or "").startswith("torch.distributed"):
            continue
        backend = _backend(call)
        # (``"xla" if use_tpu else "nccl"``: the XLA path's choice; a gloo group with
        # ``init_method="xla://"`` is what SPMD's distributed checkpointing sets up)
        if backend is not None and any(v.text == "xla" for v in owner.value(backend)) and \
                not owner.off_xla_path(call):
            return True
    return False


def group_calls(an: Analyzer) -> list[tuple[Analyzer, nodes.Call]]:
    """The ``init_process_group(...)`` calls that set up the module's process group, each
    with the analyzer of its module: the module's own, and those in a top-level function
    of another project module that this module calls on its XLA path
    (``rank, world = dist_utils.init_distributed()``, whose body calls
    ``dist.init_process_group("xla")``). Memoised per analyzer."""
    found = getattr(an, "_group_calls", None)
    if found is not None:
        return found
    found = [(an, call) for call in an.calls_named("init_process_group")]
    link = an.link
    rel = link.rel_of(an) if link is not None else None
    if rel is not None:
        for target in link.index.import_targets(rel)[:MAX_LAUNCHING_CALLERS]:
            facts = link.index.facts(target)
            if facts is None or "init_process_group" not in facts.idents:
                continue
            other = link.analyzer(target)
            if other is None or other is an:
                continue
            for call in other.calls_named("init_process_group"):
                func = enclosing_function(call)
                while func is not None and not isinstance(func.parent, nodes.Module):
                    func = enclosing_function(func)
                if func is None:
                    continue
                if any(any(v.kind is Kind.FUNCTION and v.node is func
                           for v in an.value(site.func)) and not an.off_xla_path(site)
                       for name in an.spellings([func.name])
                       for site in an.calls_named(name)):
                    found.append((other, call))
    an._group_calls = found  # type: ignore[attr-defined]
    return found


def _sets_up_group(calls: list[tuple[Analyzer, nodes.Call]]) -> bool:
    """One of ``calls`` (``init_process_group(...)``) sets up an XLA process group, or one
    whose backend the script chooses (it gives the sampler its rank either way)."""
    for _, call in calls:
        method = const_str(keyword(call, "init_method")) or ""
        if const_str(_backend(call)) in ("xla", None) or method.startswith("xla"):
            return True
    return False


def _module_defs(an: Analyzer) -> list[str]:
    """The names of ``an``'s top-level functions and classes (what other modules call)."""
    return [name for name, binds in an.module.locals.items()
            if any(isinstance(b, (nodes.FunctionDef, nodes.ClassDef)) for b in binds)]


def _calling_analyzers(an: Analyzer) -> list[Analyzer]:
    """The analyzers of the project modules that call a top-level function or class of
    ``an``'s module from inside a function (at most :data:`MAX_LAUNCHING_CALLERS`)."""
    link = an.link
    rel = link.rel_of(an) if link is not None else None
    if rel is None:
        return []
    defs = _module_defs(an)
    if not defs:
        return []
    out = []
    for caller in link.index.callers(rel, defs, every_module=link.target == "all",
                                     deep=True)[:MAX_LAUNCHING_CALLERS]:
        other = link.analyzer(caller)
        if other is not None and other is not an:
            out.append(other)
    return out


def _spmd(an: Analyzer) -> bool:
    """Single-process SPMD: ``xr.use_spmd()``, or the module shards tensors over a mesh
    (``xs.mark_sharding``), which only SPMD mode does."""
    return any(an.does(c, "spmd") for c in an.calls_named("use_spmd")) or any(
        (an.qualname(c.func) or "").startswith("torch_xla.distributed.spmd")
        for c in an.calls_named("mark_sharding"))


#: modules between a launcher and the module whose code the replicas run
MAX_LAUNCH_HOPS = 3


def _launched_by_importer(an: Analyzer, hops: int) -> bool:
    """A project module that imports ``an``'s module runs in several replicas (it starts
    them, or in turn one that does calls it; at most :data:`MAX_LAUNCH_HOPS` modules
    away) and calls one of its top-level functions or classes inside a function body
    (the replicas' code; at the top level, the call would run in the launching process).
    """
    link = an.link
    if link is None or hops >= MAX_LAUNCH_HOPS:
        return False
    rel = link.rel_of(an)
    if rel is None:
        return False
    defs = _module_defs(an)
    if not defs:
        return False
    if _spawned_by_importer(an, link.index.callers(rel, defs,
                                                   every_module=link.target == "all")):
        return True
    entries: set[str] = set()
    # (only a use inside a function can be a replica's call: ``deep``)
    for other in _calling_analyzers(an):
        if _spmd(other) or not is_multi_replica(other, hops + 1):
            continue
        # the calls spelled with a name of the module, or with the name an import gives
        # one of them (``from train import run as go``): only those are evaluated
        spelled = other.spellings(defs)
        for call in other.module_nodes(nodes.Call):
            if callee_name(call.func) not in spelled or enclosing_function(call) is None:
                continue
            entries.update(v.node.name for v in other.value(call.func)
                           if v.kind in (Kind.FUNCTION, Kind.CLASS) and v.node is not None
                           and v.node.root() is an.module and
                           isinstance(v.node.parent, nodes.Module))
    if entries:
        an._replica_entries = frozenset(entries)  # type: ignore[attr-defined]
        return True
    return False


def _named_for_spmd(node: nodes.NodeNG) -> bool:
    """``node`` lies in a function named for SPMD (``make_optimizer_prime_spmd``,
    ``train_spmd``): the code of a single-process SPMD run, where the sharded step needs
    no gradient all-reduce, beside a multi-process path of the same project."""
    func = enclosing_function(node) if not isinstance(node, nodes.FunctionDef) else node
    while func is not None:
        if "spmd" in words_of_text(func.name):
            return True
        func = enclosing_function(func)
    return False


def _single_device_script(an: Analyzer) -> bool:
    """``an``'s module is a program of its own (``if __name__ == "__main__":``) that
    neither starts replicas nor joins an XLA process group: its loops run on one device
    (a single-core script that reuses a DDP example's loader factory). A library module's
    loops run wherever its callers do, which may be the replicas."""
    link = an.link
    rel = link.rel_of(an) if link is not None else None
    summary = link.index.summary(rel) if rel is not None else None
    return summary is not None and summary.script and not is_multi_replica(an)


def _replicas_reach(an: Analyzer, node: nodes.NodeNG) -> bool:
    """``node`` may run in the replicas: its module starts them or sets up their process
    group itself, or ``node`` is not in a top-level function, or it lies in one of the
    module's top-level functions or classes that the replicas' code in an importing module
    calls (``_evaluate(...)`` from a DDP script), or that those name in turn. A training
    loop of the module's single-device ``train()`` that the DDP script never calls does
    not run there."""
    entries = getattr(an, "_replica_entries", None)
    excluded = getattr(an, "_replica_excluded", None)
    if entries is None and not excluded:
        return True
    stmt = node
    while stmt.parent is not None and not isinstance(stmt.parent, nodes.Module):
        stmt = stmt.parent
    if not isinstance(stmt, nodes.FunctionDef):
        # module-level code runs in every process that imports it; a class's methods run
        # wherever its instances or subclasses go, which calls alone do not tell
        return True
    if entries is None:
        return stmt.name not in excluded  # (a module that starts its replicas itself)
    reach = getattr(an, "_replica_reach", None)
    if reach is None:
        # (top-level definitions, and module-level assignments whose values name them:
        # ``TASKS = {"train": train}`` read by the entry as ``TASKS[name]()``)
        reach = _reached(_top_level_names(an), entries)
        an._replica_reach = reach  # type: ignore[attr-defined]
    return stmt.name in reach


def _spawned_by_importer(an: Analyzer, callers: list[str]) -> bool:
    """An importing module starts the replicas on one of ``an``'s functions itself
    (``from trainer import train_fn`` then ``xmp.spawn(train_fn)`` or
    ``torch_xla.launch(train_fn)``, at the top level of a launch script)."""
    link = an.link
    for caller in callers[:MAX_LAUNCHING_CALLERS]:
        other = link.analyzer(caller)
        if other is None or other is an or _spmd(other):
            continue
        for call in launcher_calls(other, multi_only=True):
            target = call.args[0] if call.args else keyword(call, "fn")
            if target is not None and any(
                    v.kind is Kind.FUNCTION and v.node is not None and
                    v.node.root() is an.module for v in other.value(target)):
                return True
    return False


def reduces_gradients(an: Analyzer, loop: nodes.NodeNG, step: nodes.NodeNG | None = None
                      ) -> bool:
    """The loop (or what it calls, inner loops included) all-reduces the gradients; with
    ``step``, on a path that also runs that step (not in the other branch of an ``if``)."""
    site: nodes.NodeNG | None = None
    # the optimizer that ``step`` steps: ``opt.step()``, or ``scaler.step(opt)``
    stepped = None
    if isinstance(step, nodes.Call) and isinstance(step.func, nodes.Attribute):
        stepped = (step.args[0] if step.args else step.func.expr).as_string()
    for c, cx in an.steps.calls_in(loop, into_loops=True):
        if loop.parent_of(c):
            site = c  # a call of the loop itself; those after it, until the next, run in it
        if an.does(c, "reduce_gradients", cx) and (
                step is None or (site is None or _same_block(site, step)) and
                _same_block(c, step)) and not _other_optimizer(an, c, stepped, step, cx) \
                and not _reduces_a_value(an, c, cx):
            # (``_same_block(c, step)``: in one function, ``if amp: scaler.step(opt) else:
            # xm.optimizer_step(opt)`` reduces on the other path only)
            return True
    return False


def _reduces_a_value(an: Analyzer, call: nodes.Call, ctx: Ctx | None) -> bool:
    """``xm.all_reduce(xm.REDUCE_SUM, loss.detach(), scale=...)``: an all-reduce of one
    tensor (the global loss or a metric, for logging), not of a list of gradients (nor of
    an expression that names them: ``flat_grads``, ``p.grad``)."""
    if not (an.qualname(call.func) or "").endswith("xla_model.all_reduce"):
        return False
    inputs = argument(call, 1, "inputs")
    if inputs is None or "grad" in inputs.as_string():
        return False
    values = an.value(inputs, ctx)
    return bool(values) and all(v.kind is Kind.TENSOR for v in values)


def _optimizer_step(an: Analyzer, call: nodes.Call, ctx: Ctx | None) -> bool:
    """``optimizer.step()`` (or a keyed ``opt.step(closure)``) of an optimizer under
    ``ctx``, without the ``found_inf=`` a syncfree optimizer under a scaler takes."""
    f = call.func
    return isinstance(f, nodes.Attribute) and f.attrname == "step" and (
        not call.args or _keyed_step(an, f.expr, ctx)) and \
        keyword(call, "found_inf") is None and _is_optimizer(an, f.expr, ctx)


def _other_optimizer(an: Analyzer, call: nodes.Call, stepped: str | None,
                     step: nodes.NodeNG | None = None, ctx: Ctx | None = None) -> bool:
    """``xm.optimizer_step(opt_d)`` / ``xm.reduce_gradients(opt_d)`` all-reduce the
    gradients of that optimizer's parameters only: not those of ``stepped``
    (``opt_g.step()`` of a GAN's other optimizer). Told apart by their spelling in one
    function; in a helper the step's function calls (``allreduce_grads(opt)`` whose
    ``xm.reduce_gradients(optimizer)`` names its parameter, under ``ctx``), by the
    optimizers they hold: the same only when both are known to hold one built at the
    same place."""
    if stepped is None or not call.args or not (an.qualname(call.func) or "").endswith(
            ("xla_model.optimizer_step", "xla_model.reduce_gradients")):
        return False
    if call.args[0].as_string() == stepped:
        return False
    if isinstance(step, nodes.Call) and isinstance(step.func, nodes.Attribute) and \
            call.frame() is not step.frame():
        target = step.args[0] if step.args else step.func.expr
        built = [{id(v.node) for v in an.value(e, c) if v.kind is Kind.OPTIMIZER and
                  v.node is not None} for e, c in ((call.args[0], ctx), (target, None))]
        return not (built[0] & built[1])
    return True


def wraps_model(an: Analyzer) -> bool:
    """A DDP/FSDP/ZeRO wrapper or a framework that all-reduces gradients itself, or a
    model split across the replicas (:data:`MODEL_PARALLEL`): in the
    module, or called by a module of the project that the module's check reaches (the XLA
    program that imports a loop's module, and the helpers it imports: ``model =
    apply_fsdp(model)`` in ``main.py`` whose ``FSDP(module)`` sits in ``dist_utils.py``,
    before ``train_one_epoch(model, ...)`` of ``train.py`` steps the optimizer)."""
    if any(an.imports.imports_prefix(m) for m in MANAGED):
        return True
    for call in an.module_nodes(nodes.Call):
        if an.does(call, "wraps_gradients"):
            return True
        q = an.qualname(call.func) or ""
        name = (q or source_key(call.func) or "").rsplit(".", 1)[-1]
        if name in WRAPPERS or (q.startswith("torch_xla.") and name in MODEL_PARALLEL):
            return True
    return _project_wraps(an)


def _project_wraps(an: Analyzer) -> bool:
    """Some other module of the check's reach calls a wrapper of :data:`WRAPPERS` (by its
    syntax facts, stored in the project index)."""
    link = an.ev.link
    rel = link.rel_of(an) if link is not None else None
    if rel is None:
        return False
    memo = link.__dict__.setdefault("_project_wraps", {})
    if rel not in memo:
        index = link.index
        memo[rel] = any(
            facts is not None and (any(w in facts.called_names or w in facts.call_attrs
                                       for w in WRAPPERS) or
                                   any(w in facts.call_attrs for w in MODEL_PARALLEL))
            for other in index.reach(rel, every_module=link.target == "all") or ()
            if other != rel for facts in (index.facts(other),))
    return memo[rel]


def _is_optimizer(an: Analyzer, node: nodes.NodeNG, ctx=None) -> bool:
    """An optimizer value that is not managed by a framework, nor of a project class
    whose own ``step`` may all-reduce (see :func:`_step_may_reduce`); or an object of a
    project class that only steps torch optimizers it holds (:func:`_steps_torch_only`)."""
    vs = an.value(node, ctx)
    return any(v.kind is Kind.OPTIMIZER and not v.has("managed") and not v.has("external")
               and not (isinstance(v.node, nodes.ClassDef) and _step_may_reduce(an, v.node))
               for v in vs) or (bool(vs) and all(_steps_torch_only(an, v) for v in vs))


def _keyed_step(an: Analyzer, node: nodes.NodeNG, ctx=None) -> bool:
    """``optimizer.step("decoder")`` of a project wrapper (:func:`_steps_torch_only`): its
    argument picks an optimizer, it is no closure."""
    vs = an.value(node, ctx)
    return bool(vs) and all(_steps_torch_only(an, v) for v in vs)


def _steps_torch_only(an: Analyzer, obj: V.Value) -> bool:
    """Memoised per analyzer and value: see :func:`_wraps_torch_optimizers`."""
    memo = an.__dict__.setdefault("_steps_torch_only", {})
    if obj not in memo:
        memo[obj] = _wraps_torch_optimizers(an, obj)
    return memo[obj]


def _wraps_torch_optimizers(an: Analyzer, obj: V.Value) -> bool:
    """``obj`` is an instance of a project class (not a torch optimizer) whose ``step``,
    through the methods of its own that it calls, steps only torch optimizers that it
    holds and calls nothing that may all-reduce (StyleTTS's ``MultiOptimizer``:
    ``self.optimizers[key].step()`` over a dict of ``AdamW``): its ``step(key)`` is a bare
    optimizer step."""
    klass = obj.node
    if obj.kind is not Kind.OBJECT or not isinstance(klass, nodes.ClassDef):
        return False
    method = an.ev.method_of(klass, "step")
    steps = an.steps.steps_for(method) if method is not None else None
    if method is None or steps is None:
        return False
    ev = steps.an.ev
    work = [(method, ev.bind_self(method, obj, None))]
    seen: set[int] = set()
    stepped = False
    while work:
        func, fctx = work.pop()
        if id(func) in seen:
            continue
        if len(seen) > 6:
            return False
        seen.add(id(func))
        params = set(func.argnames())
        for call in nodes_of(func, nodes.Call):
            f = call.func
            if isinstance(f, nodes.Attribute):
                receiver = ev.value(f.expr, fctx)
                if receiver and all(v.kind is Kind.HOST and v.qual == "none" for v in receiver):
                    continue  # ``scaler.step(...)`` under ``if scaler is not None`` (None)
                if f.attrname == "step":
                    if not receiver or not all(
                            v.kind is Kind.OPTIMIZER and (v.qual or "").startswith(
                                "torch.optim.") and not isinstance(v.node, nodes.ClassDef)
                            for v in receiver):
                        return False
                    stepped = True
                    continue
                if isinstance(f.expr, nodes.Name) and f.expr.name == "self":
                    inner = list(ev.functions_called(call, fctx))
                    if not inner:
                        return False
                    work += inner
                    continue
                if f.attrname in ("zero_grad", "update", "keys", "values", "items", "get"):
                    continue
                return False
            if isinstance(f, nodes.Name) and (f.name in params or f.name in _PLAIN_BUILTINS):
                continue
            return False
    return stepped


#: Builtins a hand-written optimizer's ``step`` calls while updating tensors.
_PLAIN_BUILTINS = frozenset({
    "abs", "bool", "dict", "enumerate", "float", "getattr", "hasattr", "int", "isinstance",
    "iter", "len", "list", "max", "min", "next", "print", "range", "reversed", "set",
    "sorted", "sum", "super", "tuple", "zip"})
_PLAIN_LIBRARIES = ("torch.", "math.")


def _step_may_reduce(an: Analyzer, klass: nodes.ClassDef, depth: int = 0) -> bool:
    """The project's optimizer class overrides ``step`` with more than a tensor update: it
    steps another optimizer (a wrapper), or calls a collective or a function or method of
    the project's own, any of which may all-reduce the gradients (neuronx-distributed's
    ``NxDOptimizer.step`` does, through its ``grads`` helpers). Unknown is not reported.

    A ``step`` that only updates tensors (``p.add_(p.grad, alpha=-lr)``, torch and math
    functions, builtins) is a plain optimizer: False. So is a class that inherits
    ``step`` from torch.
    """
    method = an.ev.method_of(klass, "step")
    if method is None or depth > 4:
        return False
    steps = an.steps.steps_for(method)
    if steps is None:
        return True  # another module we cannot read: unknown
    own = steps.an
    params = set(method.argnames())
    for call in nodes_of(method, nodes.Call):
        f = call.func
        if isinstance(f, nodes.Name) and f.name in params:
            continue  # ``closure()``: recomputes the loss
        if is_super_call(call) and f.attrname == "step":
            # ``super().step()``: the step of a base class the project defines may reduce
            klass_of = method.parent if isinstance(method.parent, nodes.ClassDef) else klass
            for base in klass_of.bases:
                for b in (own.ev.bindings(base) if isinstance(base, nodes.Name) else ()):
                    if isinstance(b, nodes.ClassDef) and b is not klass_of and \
                            _step_may_reduce(an, b, depth + 1):
                        return True
            continue
        if isinstance(f, nodes.Attribute) and f.attrname in ("step", "optimizer_step"):
            return True  # steps an optimizer it wraps
        q = own.qualname(f)
        if q is not None:
            if q.startswith(_PLAIN_LIBRARIES) and not q.startswith("torch.distributed"):
                continue
            if "." not in q and q in _PLAIN_BUILTINS:
                continue
        elif isinstance(f, nodes.Name) and f.name in _PLAIN_BUILTINS:
            continue
        if any(True for _ in own.ev.functions_called(call, None)):
            return True  # a function or method of the project
        if q is not None or isinstance(f, nodes.Name):
            return True  # a library call or a name we do not know
    return False


class UnreducedOptimizerStep(Rule):
    """XLA502: a bare ``optimizer.step()`` in multi-replica XLA training.

    Source: PyTorch/XLA "PyTorch on XLA Devices", multi-processing section
    (``xm.optimizer_step`` all-reduces the gradients before the update).
    """

    code = "XLA502"
    fix = "none"
    name = "unreduced-optimizer-step"
    message = ("optimizer step without gradient all-reduce: each replica of this xmp.spawn/"
               "torch_xla.launch/torchrun job updates with its own gradients, so the replicas "
               "drift apart; use xm.optimizer_step(optimizer)")
    explanation = """\
Under `xmp.spawn`, `torch_xla.launch` or `torchrun` with the XLA process group
(`dist.init_process_group("xla")`) every process trains a replica of the model
on its shard of the data. `optimizer.step()` only applies the local gradients: no
all-reduce happens, the replicas diverge, and the run silently trains N different
models. `xm.optimizer_step(optimizer)` all-reduces the gradients across replicas
and then steps. A bare `optimizer.step()` next to it, before or after, steps the
parameters a second time, once with this replica's own gradients. A step in a function
named for SPMD (`prime_optimizer_spmd`, `train_spmd`) beside the multi-process path is
not reported: a single SPMD process shards the step and needs no all-reduce.

**Example**
```python
def _mp_fn(index):
    ...
    loss.backward()
    optimizer.step()
torch_xla.launch(_mp_fn)
```
**Use instead**
```python
    xm.optimizer_step(optimizer)
```
Not reported under DDP, FSDP, ZeRO, accelerate, Lightning or DeepSpeed, for a model
split across the replicas (`xm.collective_permute` or `xm.all_to_all` in the project's
model code: pipeline or tensor parallel, each replica owning other parameters), after
`xm.reduce_gradients(optimizer)` or a manual `xm.all_reduce`, in single-process
scripts or in the single-device function of a module whose replicas run another of its
functions (`train_single()` beside `xmp.spawn(_mp_fn)`), nor for an optimizer of the project's own class whose `step` wraps another
optimizer or calls collectives or project helpers (neuronx-distributed's
`NxDOptimizer` all-reduces there); a hand-written `step` that only updates tensors is
reported.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)

    SECOND_STEP = ("second optimizer step: {what} updates the parameters again after "
                   "xm.optimizer_step already stepped them (with the all-reduced gradients); "
                   "call only xm.optimizer_step(optimizer)")
    FIRST_STEP = ("optimizer step without gradient all-reduce: {what} updates the parameters "
                  "with this replica's own gradients before xm.optimizer_step all-reduces the "
                  "same gradients and steps again; call only xm.optimizer_step(optimizer)")
    CLOSURE = ("optimizer closure after the all-reduce: xm.optimizer_step reduces the gradients "
               "before it calls optimizer.step(closure), so the gradients the closure computes "
               "are never all-reduced; run forward and backward before xm.optimizer_step and "
               "call it without a closure")

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return may_update(facts) and "step" in facts.call_attrs or "optimizer_step" in \
            facts.idents

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        yield from self._local_after_reduce(an)
        yield from self._raw_under_wrapper(an)
        if not is_multi_replica(an) or wraps_model(an):
            return
        for loop in an.rule_nodes((nodes.For, nodes.While)):
            if not an.steps.is_training_loop(loop) or an.off_xla_path(loop) or \
                    an.steps.cpu_training(loop) or not _replicas_reach(an, loop) or \
                    _named_for_spmd(loop):
                continue
            for call, ctx in an.steps.calls_in(loop, into_loops=False):
                if _optimizer_step(an, call, ctx) and \
                        not reduces_gradients(an, loop, call) and not an.off_xla_path(call) \
                        and not _named_for_spmd(call):
                    yield self.finding(call)
        yield from self._in_foreign_steps(an)

    def _in_foreign_steps(self, an: Analyzer) -> Iterator[Finding]:
        """``optimizer.step()`` in a function of this module that another module's
        training loop runs per step (a subclass's ``step_optimizer`` override that
        ``Trainer.train_epoch`` calls, or a helper the loop calls), where nothing in that
        function all-reduces the gradients first."""
        link = an.ev.link
        if link is None:
            return
        for func, fctx, kind in link.step_roots(an):
            if kind != "training" or not isinstance(func, nodes.FunctionDef) or \
                    an.off_xla_path(func) or not _replicas_reach(an, func) or \
                    _named_for_spmd(func):
                continue
            calls = list(an.ev.own_nodes(func, nodes.Call))
            for call in calls:
                if not _optimizer_step(an, call, fctx) or an.off_xla_path(call):
                    continue
                stepped = (call.args[0] if call.args else call.func.expr).as_string()
                if any(an.does(c, "reduce_gradients", fctx) and _same_block(c, call) and
                       not _other_optimizer(an, c, stepped) for c in calls):
                    continue
                yield self.finding(call)

    RAW = ("optimizer step without gradient all-reduce: {what} steps the raw optimizer under "
           "accelerate's AcceleratedOptimizer, whose step() all-reduces the gradients on XLA "
           "(xm.optimizer_step), so each process updates with its own gradients; call "
           "optimizer.step() on the prepared optimizer")

    def _raw_under_wrapper(self, an: Analyzer) -> Iterator[Finding]:
        """``optimizer.optimizer.step()`` of a framework-prepared optimizer."""
        for call in an.rule_calls("step"):
            f = call.func
            if isinstance(f, nodes.Attribute) and not call.args and any(
                    v.kind is Kind.OPTIMIZER and v.has("raw") for v in an.value(f.expr)) and \
                    not an.off_xla_path(call):
                yield Finding(call.lineno, call.col_offset, self.code,
                              f"{self.code} " + self.RAW.format(what=f"{f.as_string()[:40]}()"))

    def _local_after_reduce(self, an: Analyzer) -> Iterator[Finding]:
        """``xm.optimizer_step(opt)`` followed by ``opt.step()``, and closures it runs late."""
        for call in an.rule_calls("optimizer_step"):
            if not an.does(call, "optimizer_step") or an.off_xla_path(call):
                continue
            args = keyword(call, "optimizer_args")
            if isinstance(args, nodes.Dict) and any(const_str(k) == "closure"
                                                    for k, _ in args.items):
                yield Finding(call.lineno, call.col_offset, self.code,
                              f"{self.code} {self.CLOSURE}")
            if not call.args:
                continue
            opt = call.args[0]
            scope = call.scope()
            for other in an.rule_calls("step"):
                f = other.func
                if other.scope() is not scope or other.lineno == call.lineno or \
                        not isinstance(f, nodes.Attribute) or other.args:
                    continue
                if f.expr.as_string() != opt.as_string() or not _same_block(call, other) or \
                        _loop_of(call) is not _loop_of(other) or \
                        other.statement() is call.statement():
                    continue  # (one statement: ``opt.step() if c else xm.optimizer_step(opt)``)
                if other.lineno > call.lineno:
                    if _leaves_block_after(call, other):
                        continue  # ``if xla: xm.optimizer_step(opt); return`` then ``opt.step()``
                    yield Finding(other.lineno, other.col_offset, self.code,
                                  f"{self.code} " + self.SECOND_STEP.format(
                                      what=f"{f.as_string()}()"))
                elif _siblings(other, call) and not _backward_between(an, other, call):
                    # ``opt.step()`` then ``xm.optimizer_step(opt)`` on the same gradients
                    yield Finding(other.lineno, other.col_offset, self.code,
                                  f"{self.code} " + self.FIRST_STEP.format(
                                      what=f"{f.as_string()}()"))


def _obj_item(vs: frozenset[V.Value]) -> frozenset[V.Value]:
    """The ``obj`` entry of the keyword dicts in ``vs`` (``torch.save(**kwargs)``)."""
    return frozenset(x for v in vs if v.kind is Kind.DICT
                     for k, part in (v.items or ()) if k == "obj" for x in part)


def _unconditional(stmt: nodes.NodeNG) -> nodes.NodeNG:
    """``stmt``, or the ``with`` statement whose body holds it (a body that always runs),
    outermost first."""
    while isinstance(stmt.parent, nodes.With) and stmt in stmt.parent.body:
        stmt = stmt.parent
    return stmt


def _siblings(a: nodes.NodeNG, b: nodes.NodeNG) -> bool:
    """The statements of the two nodes sit in the same block (run under the same
    conditions: not ``if not tpu: opt.step()`` beside ``if tpu: xm.optimizer_step(opt)``),
    also through ``with`` blocks (``with xp.Trace("opt"): opt.step()``)."""
    sa, sb = _unconditional(a.statement()), _unconditional(b.statement())
    return sa is not sb and sa.parent is sb.parent and any(
        sa in block and sb in block for block in (getattr(sa.parent, field, None) or []
                                                   for field in ("body", "orelse",
                                                                 "finalbody"))
        if isinstance(block, list))


def _backward_between(an: Analyzer, first: nodes.Call, last: nodes.Call) -> bool:
    """A ``.backward()`` call runs between the two calls' lines of the function, written
    there or in a function of the module that a call there runs (new gradients: the later
    step does not reuse the earlier one's)."""
    def backward(c: nodes.Call) -> bool:
        return isinstance(c.func, nodes.Attribute) and c.func.attrname == "backward"

    between = [c for c in nodes_of(first.scope(), nodes.Call, skip_klass=SCOPES)
               if first.lineno < c.lineno < last.lineno]
    if any(backward(c) for c in between):
        return True
    for c in between:
        for func, _ in an.ev.functions_called(c, None):
            if any(backward(inner) for inner in nodes_of(func, nodes.Call)):
                return True
    return False


def _leaves_block_after(call: nodes.NodeNG, other: nodes.NodeNG) -> bool:
    """A block that holds ``call`` but not ``other`` ends its run after ``call`` (a
    ``return``, ``continue``, ``break`` or ``raise`` later in it), so ``other`` never runs
    after ``call``."""
    stmt = call.statement()
    while stmt is not None and not isinstance(stmt, (nodes.FunctionDef, nodes.Module)):
        parent = stmt.parent
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(parent, field, None)
            if not isinstance(block, list) or stmt not in block:
                continue
            if any(other in nodes_of(s, type(other)) for s in block):
                return False  # (``other`` is in this block: the usual order holds)
            later = block[block.index(stmt) + 1:]
            if any(isinstance(s, JUMPS) for s in later):
                return True
        stmt = parent
    return False


def _loop_of(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The innermost loop of the function that holds ``node``, else None."""
    cur = node.parent
    while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
        if isinstance(cur, (nodes.For, nodes.While)):
            return cur
        cur = cur.parent
    return None


def _same_block(a: nodes.NodeNG, b: nodes.NodeNG) -> bool:
    """No ``if``/``else`` or ``try``/``except`` puts the two nodes on different paths."""
    def branch_path(n: nodes.NodeNG) -> dict[int, int]:
        out: dict[int, int] = {}
        child, cur = n, n.parent
        while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
            if isinstance(cur, (nodes.If, nodes.Try)):
                blocks = [cur.body, cur.orelse] if isinstance(cur, nodes.If) else \
                    [cur.body, *[[h] for h in cur.handlers], cur.orelse]
                for i, block in enumerate(blocks):
                    if any(s is child for s in block):
                        out[id(cur)] = i
            child, cur = cur, cur.parent
        return out
    pa, pb = branch_path(a), branch_path(b)
    return all(pb[k] == v for k, v in pa.items() if k in pb)


class DistributedAmpWithoutAllReduce(Rule):
    """XLA403: ``scaler.step(optimizer)`` in multi-replica XLA training with no all-reduce.

    Source: PyTorch/XLA "Automatic Mixed Precision" guide and its ImageNet AMP
    example (``xm._fetch_gradients`` plus ``xm.all_reduce`` before ``scaler.step``).
    """

    code = "XLA403"
    fix = "none"
    name = "distributed-amp-without-all-reduce"
    message = ("distributed AMP without gradient all-reduce: this AMP optimizer step applies "
               "each replica's own gradients; call xm.reduce_gradients(optimizer) (or "
               "xm.all_reduce('sum', xm._fetch_gradients(optimizer), scale=1.0 / world_size)) "
               "before it")
    explanation = """\
With a GradScaler, `scaler.step(optimizer)` replaces `xm.optimizer_step`, so nothing
all-reduces the gradients across the replicas of an `xmp.spawn`/`torch_xla.launch`
job. Each replica then steps on its own gradients and the replicas drift apart.

**Example**
```python
scaler.scale(loss).backward()
scaler.step(optimizer)
```
**Use instead**
```python
scaler.scale(loss).backward()
gradients = xm._fetch_gradients(optimizer)
xm.all_reduce("sum", gradients, scale=1.0 / xr.world_size())
scaler.step(optimizer)
```
Not reported under DDP/FSDP wrappers or in single-process scripts.
"""
    source = ("https://docs.pytorch.org/xla/master/perf/amp.html",
              "https://github.com/pytorch/xla/blob/master/test/test_train_mp_imagenet_amp.py")

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        # (a loop of a launching script, or a helper that runs backward and the scaler's
        # step for another module's step loop)
        return "step" in facts.call_attrs and (
            facts.has_loop and launches(facts) or "backward" in facts.call_attrs)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or not is_multi_replica(an) or wraps_model(an):
            return
        yield from self._helper_steps(an)
        for loop in an.rule_nodes((nodes.For, nodes.While)):
            if an.off_xla_path(loop):
                continue
            for call, ctx in an.steps.calls_in(loop, into_loops=False):
                f = call.func
                if not (isinstance(f, nodes.Attribute) and f.attrname == "step") or \
                        reduces_gradients(an, loop, call):
                    continue
                scaler_step = len(call.args) == 1 and any(
                    v.kind is Kind.SCALER for v in an.value(f.expr, ctx))
                # The syncfree hand-off of torch_xla 2.9: optimizer.step(found_inf=...).
                syncfree_step = keyword(call, "found_inf") is not None
                if (scaler_step or syncfree_step) and not (
                        call.root() is an.module and an.off_xla_path(call)):
                    # (``if device.type in {"cuda", "cpu"}: scaler.step(opt)`` beside an
                    # ``elif device.type == "xla":`` branch that steps through xm)
                    yield self.finding(call)

    def _helper_steps(self, an: Analyzer) -> Iterator[Finding]:
        """``scaler.step(optimizer)`` in a function of this module that another module's
        step loop calls (``amp_backward_step(scaler, opt, loss)`` from the replica
        function of ``train.py``), with the scaler that caller passes. Only a helper that
        also runs the backward pass itself: a gradient all-reduce between the two must
        then be in it, not in the caller's loop."""
        link = an.ev.link
        if link is None:
            return
        seen: set[int] = set()
        for func, fctx, _ in link.step_roots(an):
            if not isinstance(func, nodes.FunctionDef) or an.off_xla_path(func):
                continue
            calls = list(an.steps.calls_in(func, fctx, into_loops=False))
            if not any(c.root() is an.module and
                       an.steps.update_kind(c, cx) == "backward" for c, cx in calls):
                continue
            for call, ctx in calls:
                f = call.func
                if id(call) in seen or call.root() is not an.module or \
                        not (isinstance(f, nodes.Attribute) and f.attrname == "step") or \
                        len(call.args) != 1 or not any(
                            v.kind is Kind.SCALER for v in an.value(f.expr, ctx)) or \
                        reduces_gradients(an, func, call):
                    continue
                seen.add(id(call))
                yield self.finding(call)


class TorchSaveXla(Rule):
    """XLA503: ``torch.save`` of XLA tensors or an XLA module's ``state_dict()``.

    Source: PyTorch/XLA "PyTorch on XLA Devices", saving and loading section
    (``xm.save`` moves tensors to the CPU and writes from the master ordinal only).
    """

    code = "XLA503"
    fix = "safe"
    name = "torch-save-xla"
    message = ("torch.save of XLA tensors: {what} holds tensors on the XLA device, which are "
               "copied to the host one by one and pickled with their device (and under "
               "xmp.spawn every replica writes the file); use xm.save(...), which moves them to "
               "the CPU at once and saves on the master ordinal")
    explanation = """\
`torch.save` of a state dict whose tensors live on the XLA device serialises XLA
tensors: each one is transferred to the host one by one, loading needs an XLA
device, and under `xmp.spawn` every process writes the same file. `xm.save`
moves the data to the CPU in one transfer and writes from the master ordinal only.

Measured (checks/XLA503, PJRT_DEVICE=CPU): 4 device-to-host transfers per save
(one per tensor) for the flagged script against 1 per save with `xm.save`, and the
flagged checkpoint loads back onto the XLA device.

**Example**
```python
torch.save(model.state_dict(), "model.pt")
```
**Use instead**
```python
xm.save(model.state_dict(), "model.pt")
```
Also reported: `torch.save` of torch_xla's legacy `DataParallel` wrapper (alone or in a
saved dict or tuple), which keeps a copy of the model on every XLA device; save
`wrapper.models[0].state_dict()` instead (`xm.save` of the wrapper itself would pickle
the copies alike, and is not reported); not with `device_ids=[]` (the CPU model).
Not reported after an explicit move to the CPU (`xm._maybe_convert_to_cpu`,
`.cpu()`), nor for non-tensor objects such as an argparse namespace.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)

    LIVE_MODEL = ("torch.save of XLA tensors: {what} moves the live model to the CPU "
                  "mid-training to checkpoint it, copying every parameter to the host and back "
                  "(and under xmp.spawn on every replica); save with "
                  "xm.save(model.state_dict(), path) and keep the model on the device")

    DATA_PARALLEL = ("torch.save of XLA tensors: {what} torch_xla's DataParallel, which "
                     "keeps a copy of the model on every XLA device, so pickling it copies "
                     "each replica's parameters to the host one by one and stores them with "
                     "their device; save one replica's weights instead: "
                     "xm.save({wrapper}.models[0].state_dict(), path)")

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return "save" in facts.idents and "torch" in facts.idents

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for call in an.rule_nodes(nodes.Call):
            if (an.qualname(call.func) or "") != "torch.save":
                continue
            saved = call.args[0] if call.args else keyword(call, "obj")
            star = next((k.value for k in call.keywords or () if k.arg is None), None)
            if saved is None and star is None or an.off_xla_path(call):
                continue
            if saved is not None:
                what = self._xla_payload(an.value(saved), saved)
                if not what and self._data_parallel(an, an.value(saved)):
                    # (at the saved object: xm.save of the wrapper would pickle it alike,
                    # so the save call is no place for the usual fix)
                    name = saved.as_string()[:30]
                    alone = isinstance(saved, (nodes.Name, nodes.Attribute))
                    yield Finding(saved.lineno, saved.col_offset, self.code,
                                  f"{self.code} " + self.DATA_PARALLEL.format(
                                      what=f"{name} is" if alone else f"{name} holds",
                                      wrapper=name if alone else "wrapper"))
                    continue
            else:  # ``torch.save(**kwargs)`` handed ``obj=state``
                saved = star
                what = self._xla_payload(_obj_item(an.value(star)), star)
            if what:
                yield self.finding(call, what=what + self._passed_from(an, saved))
        yield from self._live_model_moves(an)

    @staticmethod
    def _passed_from(an: Analyzer, node: nodes.NodeNG) -> str:
        """`` (what train.py:429 passes)`` when the saved value is a parameter of its
        function (``save_on_master(*args)``) that a call in another module fills."""
        if isinstance(node, nodes.Starred):
            node = node.value
        link = an.ev.link
        if not isinstance(node, nodes.Name) or link is None:
            return ""
        binds = an.ev.bindings(node)
        func = enclosing_function(node)
        if func is None or not binds or not all(
                isinstance(b, nodes.Arguments) or isinstance(b, nodes.AssignName) and
                isinstance(b.parent, nodes.Arguments) for b in binds):
            return ""
        def holds_xla(value: frozenset[V.Value]) -> bool:
            if isinstance(node.parent, nodes.Keyword):  # ``**kwargs``: its ``obj``
                value = _obj_item(value)
            elif isinstance(node.parent, nodes.Starred):  # ``*args``: the saved object first
                value = frozenset(v for v in value if v.kind is not Kind.TUPLE) | frozenset(
                    x for v in value if v.kind is Kind.TUPLE and v.elts for x in v.elts[0])
            return bool(TorchSaveXla._xla_payload(value, node))

        places = link.passed_at(func, node.name, holds_xla)
        return f" (what {places[0]} passes)" if places else ""

    @staticmethod
    def _data_parallel(an: Analyzer, vs: frozenset[V.Value]) -> bool:
        """``vs`` holds torch_xla's legacy ``DataParallel``, which keeps a deep copy of the
        model on every device of ``device_ids`` (default: every XLA device; only an empty
        list keeps the CPU model): pickling it pickles per-device XLA tensors (torch_xla
        1.x ``torch_xla/distributed/data_parallel.py``)."""
        parts = list(vs)
        for v in vs:
            # (the wrapper in a checkpoint dict or tuple: ``{"epoch": e, "model": mp}``)
            if v.kind is Kind.DICT and v.items:
                parts += [x for _, item in v.items for x in item]
            elif v.kind in (Kind.TUPLE, Kind.LIST) and v.elts:
                parts += [x for elt in v.elts for x in elt]
        for v in parts:
            if v.kind is not Kind.FRAMEWORK or v.qual != "data_parallel" or \
                    not isinstance(v.node, nodes.Call):
                continue
            ids = keyword(v.node, "device_ids")
            if ids is None and len(v.node.args) > 1:
                ids = v.node.args[1]
            if ids is not None and all(d.kind in (Kind.LIST, Kind.TUPLE) and d.elts == ()
                                       for d in an.value(ids)):
                continue  # ``device_ids=[]``: the PyTorch/CPU engine
            return True
        return False

    @staticmethod
    def _xla_payload(vs: frozenset[V.Value], node: nodes.NodeNG) -> str | None:
        """What in the saved value holds XLA tensors, or None (CPU data, or unknown)."""
        if V.holds_lazy(vs):
            for v in vs:
                if v.has("state_dict"):
                    return node.as_string()[:40]
            return node.as_string()[:40]
        for v in vs:
            if v.kind is Kind.MODULE and v.device == "xla":
                return f"the whole module {node.as_string()[:30]}"
            if V.device_params(v):
                return node.as_string()[:40]  # ``model.parameters()`` of a module on the device
        return None

    def _live_model_moves(self, an: Analyzer) -> Iterator[Finding]:
        """``model.cpu()`` of a module on the device in a training step, to save it."""
        saves_in: set[int] = set()
        # (a save in a unit test only pairs with a move in its own scope, inside that test
        # too, where nothing is reported: the tests' calls need not be asked)
        for call in an.rule_nodes(nodes.Call):
            if an.does(call, "save") or an.does(call, "xla_save"):
                saves_in.add(id(call.scope()))
        seen: set[int] = set()
        for node, ctx, per_param in an.rule_region():
            if per_param or not isinstance(node, nodes.Call) or id(node) in seen:
                continue
            f = node.func
            if not (isinstance(f, nodes.Attribute) and f.attrname in ("cpu", "to")):
                continue
            if f.attrname == "to" and not (node.args and const_str(node.args[0]) == "cpu"):
                continue
            if id(node.scope()) not in saves_in:
                continue
            mods = [v for v in an.value(f.expr, ctx) if v.kind is Kind.MODULE]
            if mods and all(v.device != "cpu" for v in mods) and \
                    an.steps.is_training_loop_node(node):
                seen.add(id(node))
                yield Finding(node.lineno, node.col_offset, self.code,
                              f"{self.code} " + self.LIVE_MODEL.format(
                                  what=f"{f.as_string()[:40]}()"))


class SamplerWithoutReplicaInfo(Rule):
    """XLA504: ``DistributedSampler`` in multi-replica XLA code without world size and rank.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (shard with
    ``num_replicas=xr.world_size(), rank=xr.global_ordinal()``), the
    torch.distributed docs (the defaults need an initialised process group) and, for
    streams, HF datasets' ``distributed.py`` (``split_dataset_by_node``; a DataLoader
    over an ``IterableDataset`` takes no sampler).
    """

    code = "XLA504"
    fix = "none"
    name = "sampler-without-replica-info"
    message = ("DistributedSampler without num_replicas/rank: with no process group it cannot "
               "shard the data across XLA replicas; pass num_replicas=xr.world_size(), "
               "rank=xr.global_ordinal() (import torch_xla.runtime as xr)")
    explanation = """\
`DistributedSampler(dataset)` reads the world size and rank from the default
process group. An `xmp.spawn`/`torch_xla.launch` job has none unless it called
`dist.init_process_group("xla")`, so the sampler fails or, with a group set up
differently, every replica trains on the same shard.

**Example**
```python
sampler = DistributedSampler(dataset, shuffle=True)
```
**Use instead**
```python
sampler = DistributedSampler(dataset, num_replicas=xr.world_size(),
                             rank=xr.global_ordinal(), shuffle=True)
```
Not reported when the module calls `init_process_group("xla")`.

A sampler whose `rank=` is the replica's index on its own host (`LOCAL_RANK`,
`xm.get_local_ordinal()`) while `num_replicas=` is the world size is reported too:
`xmp.spawn` and `torch_xla.launch` set no `LOCAL_RANK` (every replica reads shard 0), and
on more than one host the replicas of different hosts read the same shard. Pass
`rank=xr.global_ordinal()`. So is one whose `num_replicas=` or `rank=` reads torchrun's
`WORLD_SIZE`/`RANK` with a default (`int(os.environ.get("WORLD_SIZE", 1))`, left from a
torchrun script) in a module that starts its replicas with `xmp.spawn`/`torch_xla.launch`,
which set neither (torch_xla/_internal/pjrt.py): every replica takes one replica and rank
0 (not when the module sets those variables itself).

A plain DataLoader with no sampler at all that feeds multi-replica training (replicas
that `xmp.spawn`/`torch_xla.launch` starts, or that `torchrun` starts in a script calling
`init_process_group("xla")`) is reported too: every replica reads the whole dataset in
the same order. A module whose functions a DDP script borrows (`from single import
evaluate`) is multi-replica only in those functions and what they call, not in its own
single-device `train()`; so is a module that starts the replicas itself on its own
function (`xmp.spawn(_mp_fn)`): `_mp_fn` and what it names (functions, classes, a
module-level table of functions) run in them, a `train_single()` beside it for a
`--single` run does not. So is one over a streaming
dataset (`load_dataset(..., streaming=True)`, also after `.map`/`.shuffle`): no sampler
can shard a stream, so the fix is `split_dataset_by_node(ds, rank=xr.global_ordinal(),
world_size=xr.world_size())` (or `ds.shard(...)`); a dataset that may be a stream
(`streaming=args.streaming`) is read whole either way, and the same fix serves both. So
is one over an `IterableDataset` of the project that splits its items between the
loader's workers (`get_worker_info()`) and names no rank, world size, shard or node: the
split repeats in every replica (a stream of unknown partitioning is left alone). A
loader built by a factory in
another module is reported where it is built. Evaluation loops are left alone (they
cost time, not correctness), and so is a dataset built from the replica's global index
(`ShardSet(files[xr.global_ordinal()])`): each replica reads its own shard already.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
              ("https://docs.pytorch.org/docs/stable/data.html#torch.utils.data.distributed."
              "DistributedSampler"),
              "https://huggingface.co/docs/datasets/use_with_pytorch#distributed")

    NO_SAMPLER = ("DataLoader without a DistributedSampler in multi-replica training: every "
                  "replica (xmp.spawn, torch_xla.launch, torchrun) reads the whole dataset in "
                  "the same order, "
                  "so the replicas train on the same batches; pass sampler=DistributedSampler("
                  "dataset, num_replicas=xr.world_size(), rank=xr.global_ordinal())")

    LOCAL_RANK = ("DistributedSampler with rank= the local rank (LOCAL_RANK, "
                  "get_local_ordinal()) and num_replicas= the world size: xmp.spawn and "
                  "torch_xla.launch do not set LOCAL_RANK (every replica reads shard 0), and on "
                  "more than one host the replicas of different hosts read the same shard; pass "
                  "rank=xr.global_ordinal()")

    TORCHRUN_ENV = ("DistributedSampler with num_replicas/rank read from torchrun's "
                    "WORLD_SIZE/RANK variables in a script that starts its replicas with "
                    "xmp.spawn or torch_xla.launch, which set neither: every replica takes "
                    "the default (one replica, rank 0) and reads the whole dataset; pass "
                    "num_replicas=xr.world_size(), rank=xr.global_ordinal()")

    @staticmethod
    def _run_by_own_replicas(an: Analyzer, call: nodes.Call) -> bool:
        """``call`` lies in a top-level function that the module's own launch calls
        (``xmp.spawn``/``torch_xla.launch`` of its own functions) start, or one those
        name; not in a ``main_torchrun()`` beside them that torchrun runs."""
        top = call  # (the top-level function or class it lies in: a Trainer's method)
        while top.parent is not None and not isinstance(top.parent, nodes.Module):
            top = top.parent
        return isinstance(top, (nodes.FunctionDef, nodes.ClassDef)) and \
            top.name in _replica_reach(an, launcher_calls(an, multi_only=True))

    @staticmethod
    def _sets_world_env(an: Analyzer) -> bool:
        """The module sets ``os.environ["WORLD_SIZE"]`` or ``["RANK"]`` itself (also by
        ``os.environ.setdefault("RANK", ...)`` or ``os.environ.update(...)`` naming one,
        or of keys not known), or a project module it imports sets one."""
        def names_world(call: nodes.Call) -> bool:
            if call.func.attrname == "setdefault":
                return bool(call.args) and const_str(call.args[0]) in _TORCHRUN_WORLD_ENV
            given = call.args[0] if call.args else None
            if isinstance(given, nodes.Dict):
                keys = [const_str(k) for k, _ in given.items]
                return None in keys or bool(set(keys) & _TORCHRUN_WORLD_ENV)
            return given is not None or any(k.arg in _TORCHRUN_WORLD_ENV or k.arg is None
                                            for k in call.keywords or ())

        rel = an.link.rel_of(an) if an.link is not None else None
        if rel is not None and an.link.index.sets_environment(rel, _TORCHRUN_WORLD_ENV):
            return True  # (``export_torchrun_env()`` of a module it imports sets them)
        return any(isinstance(t, nodes.Subscript) and an.qualname(t.value) == "os.environ"
                   and const_str(t.slice) in _TORCHRUN_WORLD_ENV
                   for a in an.module_nodes(nodes.Assign) for t in a.targets) or any(
            isinstance(c.func, nodes.Attribute) and c.func.attrname in ("setdefault", "update")
            and an.qualname(c.func.expr) == "os.environ" and names_world(c)
            for c in an.module_nodes(nodes.Call))

    WORKER_SPLIT = ("DataLoader over an IterableDataset that splits its items between the "
                    "loader's workers (get_worker_info) but not between replicas, in "
                    "multi-replica training: every replica (xmp.spawn, torch_xla.launch, "
                    "torchrun) reads every item; skip the items of other replicas in "
                    "__iter__ by xr.global_ordinal() and xr.world_size()")

    STREAM = ("DataLoader over a streaming dataset (load_dataset(..., streaming=True)) in "
              "multi-replica training: no sampler shards a stream, so every replica "
              "(xmp.spawn, torch_xla.launch, torchrun) reads the same examples; split it per "
              "replica with "
              "datasets.distributed.split_dataset_by_node(ds, rank=xr.global_ordinal(), "
              "world_size=xr.world_size())")

    MAYBE_STREAM = ("DataLoader over an HF dataset that may be streamed (load_dataset(..., "
                    "streaming=<not known>)) with no sampler in multi-replica training: "
                    "stream or not, every replica (xmp.spawn, torch_xla.launch, torchrun) "
                    "reads the whole dataset in the same order; split it per replica with "
                    "datasets.distributed.split_dataset_by_node(ds, rank=xr.global_ordinal(), "
                    "world_size=xr.world_size())")

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        # (a module that xmp.spawn/torch_xla.launch starts, or one that torchrun starts
        # per device, setting up the XLA process group itself)
        return (launches(facts) or "init_process_group" in facts.idents) and \
            (facts.ident_contains("distributedsampler") or
             facts.ident_contains("dataloader"))

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or not is_multi_replica(an):
            return
        if any(an.imports.imports_prefix(m) for m in MANAGED):
            return  # accelerate/Lightning/ignite add the distributed sampler themselves
        # an XLA (or configurable) process group gives the rank: set up by this module, or
        # by a module that calls into it (``distributed.setup()`` in train.py's replica
        # function before it asks data.py for its loader)
        has_group = _sets_up_group(group_calls(an)) or any(
            _sets_up_group(group_calls(other)) for other in _calling_analyzers(an))
        for call in an.rule_nodes(nodes.Call):
            q = an.qualname(call.func) or ""
            if q.endswith("DistributedSampler") and not has_star_kwargs(call) and \
                    _local_rank(an, argument(call, 2, "rank")) and \
                    not _local_rank(an, argument(call, 1, "num_replicas")) and \
                    not an.off_xla_path(call):
                found = self.finding_text(call, f"{self.code} {self.LOCAL_RANK}")
                if found is not None:
                    yield found
                continue
            if q.endswith("DistributedSampler") and not has_star_kwargs(call) and \
                    self._run_by_own_replicas(an, call) and not self._sets_world_env(an) and \
                    any(_env_value(an, argument(call, at, name), _TORCHRUN_WORLD_ENV,
                                   frozenset(), with_default=True)
                        for at, name in ((1, "num_replicas"), (2, "rank"))) and \
                    not an.off_xla_path(call):
                # ``num_replicas=int(os.environ.get("WORLD_SIZE", 1))`` left from a torchrun
                # script, in a module that starts its replicas with xmp.spawn
                found = self.finding_text(call, f"{self.code} {self.TORCHRUN_ENV}")
                if found is not None:
                    yield found
                continue
            if not q.endswith("DistributedSampler") or has_group:
                continue
            missing = keyword(call, "num_replicas") is None or keyword(call, "rank") is None
            if has_star_kwargs(call) or an.off_xla_path(call):
                continue
            if missing and len(call.args) < 3:
                yield self.finding(call)
        yield from self._unsharded_loaders(an)

    def _unsharded_loaders(self, an: Analyzer) -> Iterator[Finding]:
        """Plain DataLoaders with no sampler at all that feed a training loop: a loop of
        this module, or, for a DataLoader built here and looped over elsewhere (a loader
        factory of ``data.py`` whose result ``train.py`` hands to ``trainer.py``), a loop
        of a neighbouring module of the project."""
        reported: set[int] = set()
        for loop_an, loop in self._training_loops(an):
            for v in _plain_loaders(loop_an.value(loop.iter), 0):
                node = v.node
                if not isinstance(node, nodes.Call) or id(node) in reported:
                    continue
                here = node.root() is an.module
                if not here and (loop_an is not an or _checked_at_home(an, node)):
                    continue  # another module's loader in a neighbour's loop, or checked where built
                stream = v.has("stream")  # a sampler cannot shard a stream: split it
                # (an HF dataset that may be a stream, ``streaming=args.streaming``: unsplit
                # either way, and split_dataset_by_node serves both)
                whole = not stream and v.has("whole")
                unsharded = v.has("unsharded_sampler")
                if v.has("distributed") or v.has("sampler") and not unsharded or \
                        v.has("sampler_unknown") or \
                        v.has("iterable") and not stream and not whole and \
                        not v.has("worker_split") or v.has("drop_last_unknown") and \
                        keyword(node, "batch_sampler") is not None or \
                        v.has("unbatched") and not stream:
                    # (``batch_size=None``: the dataset makes the batches itself, a
                    # pipeline such as WebDataset's that shards in its own way, unknown)
                    continue
                if has_star_kwargs(node) or keyword(node, "sampler") is not None and \
                        not unsharded or here and an.off_xla_path(node):
                    continue  # (``else: DataLoader(ds, shuffle=True)`` of a GPU run)
                if single_replica_branch(node):
                    continue  # (``if world_size > 1: <sharded> else: DataLoader(ds)``)
                home = an if here else (an.link.analyzer_of(node) if an.link else None)
                if home is not None and _sharded_by_ordinal(home, node):
                    continue  # ``dataset(files[xm.get_ordinal()])``: one shard per replica
                reported.add(id(node))
                message = self.STREAM if stream else self.MAYBE_STREAM if whole else \
                    self.WORKER_SPLIT if v.has("worker_split") else self.NO_SAMPLER
                found = self.finding_text(node, f"{self.code} {message}")
                if found is not None:
                    yield found

    @staticmethod
    def _training_loops(an: Analyzer) -> Iterator[tuple[Analyzer, nodes.For]]:
        """Training loops (not evaluation loops: an evaluation loop over the whole dataset
        on every replica costs time, not correctness, and pytorch/xla's own tests do it)
        of this module, then, when this module builds a DataLoader that none of its own
        loops iterates, of the modules around it."""
        def loops(owner: Analyzer) -> Iterator[tuple[Analyzer, nodes.For]]:
            for loop in owner.module_nodes(nodes.For):
                if owner.steps.is_training_loop(loop) and not owner.off_xla_path(loop) and \
                        not owner.steps.cpu_training(loop) and \
                        _replicas_reach(owner, loop) and \
                        (owner is an or not _single_device_script(owner)):
                    yield owner, loop

        iterated: set[int] = set()
        for owner, loop in loops(an):
            iterated |= {id(v.node) for v in _plain_loaders(an.value(loop.iter), 0)}
            yield owner, loop
        if an.link is None:
            return
        # (a script that starts the replicas hands the loaders it builds and does not loop
        # over itself to another module's loop: ``train_one_epoch(model, loader, ...)``)
        launcher = bool(launcher_calls(an))
        pending = {id(call) for call in an.plain_loader_calls()
                   if id(call) not in iterated and (
                       _handed_out(an, call) or launcher and _passed_on(an, call))}
        if pending and launcher:
            # (a loader the script's own evaluation loop iterates is not handed on)
            for loop in an.module_nodes(nodes.For):
                pending -= {id(v.node) for v in _plain_loaders(an.value(loop.iter), 0)}
        if not pending:
            return
        # (nearest and likeliest first; none more once every DataLoader built here is found)
        for other in an.link.iter_neighbour_analyzers(hops=5, rank=_loop_rank):
            for owner, loop in loops(other):
                pending -= {id(v.node) for v in _plain_loaders(other.value(loop.iter), 0)}
                yield owner, loop
            if not pending:
                return


#: The replica's index on its own host, and the count of replicas there.
_LOCAL_CALLS = frozenset({"torch_xla.core.xla_model.get_local_ordinal",
                          "torch_xla.runtime.local_ordinal",
                          "torch_xla.runtime.local_process_count",
                          "torch_xla.runtime.local_device_count",
                          "torch.distributed.get_local_rank"})
_LOCAL_ENV = frozenset({"LOCAL_RANK", "LOCAL_WORLD_SIZE", "PJRT_LOCAL_PROCESS_RANK",
                        "PJRT_LOCAL_PROCESS_COUNT"})


def _local_rank(an: Analyzer, expr: nodes.NodeNG | None, depth: int = 0) -> bool:
    """``expr`` is a per-host index or count: ``int(os.environ.get("LOCAL_RANK", 0))``,
    ``os.environ["LOCAL_RANK"]``, ``xm.get_local_ordinal()``, or a name bound once to
    one of them."""
    return _env_value(an, expr, _LOCAL_ENV, _LOCAL_CALLS, with_default=False)


def _env_value(an: Analyzer, expr: nodes.NodeNG | None, names: frozenset[str],
               calls: frozenset[str], *, with_default: bool, depth: int = 0) -> bool:
    """``expr`` reads one of the environment variables ``names`` (``os.environ.get(N,
    d)``, ``os.getenv(N, d)``, or, unless ``with_default``, ``os.environ[N]``), through
    ``int()`` or a name bound once, or calls one of ``calls``. ``with_default``: only a
    read with a default, which never fails where the variable is missing."""
    if expr is None or depth > 3:
        return False
    if isinstance(expr, nodes.Name):
        binds = an.ev.bindings(expr)
        return len(binds) == 1 and isinstance(binds[0], nodes.AssignName) and isinstance(
            binds[0].parent, nodes.Assign) and _env_value(
                an, binds[0].parent.value, names, calls, with_default=with_default,
                depth=depth + 1)
    if isinstance(expr, nodes.Call):
        q = an.qualname(expr.func) or ""
        if q in calls:
            return True
        if callee_name(expr.func) == "int":
            return bool(expr.args) and _env_value(an, expr.args[0], names, calls,
                                                  with_default=with_default, depth=depth + 1)
        if q in ("os.environ.get", "os.getenv") or (
                isinstance(expr.func, nodes.Attribute) and expr.func.attrname == "get" and
                an.qualname(expr.func.expr) == "os.environ"):
            default = expr.args[1] if len(expr.args) > 1 else keyword(expr, "default")
            # (with_default: a default, which is what a missing variable gives, unless it
            # asks torch_xla or torch.distributed: ``os.environ.get("RANK",
            # xr.global_ordinal())`` defaults to the right value)
            return bool(expr.args) and const_str(expr.args[0]) in names and (
                not with_default or default is not None and not any(
                    (an.qualname(c.func) or "").startswith(("torch_xla", "torch.distributed"))
                    for c in nodes_of(default, nodes.Call)))
        return False
    if isinstance(expr, nodes.Subscript) and an.qualname(expr.value) == "os.environ":
        return not with_default and const_str(expr.slice) in names
    return False


#: torchrun's variables for the world: xmp.spawn and torch_xla.launch set neither
#: (torch_xla/_internal/pjrt.py sets only PJRT_LOCAL_PROCESS_RANK/COUNT).
_TORCHRUN_WORLD_ENV = frozenset({"WORLD_SIZE", "RANK"})


#: The replica's index among all replicas: a dataset built from it is sharded by hand.
_ORDINAL_CALLS = frozenset({"torch_xla.core.xla_model.get_ordinal",
                            "torch_xla.runtime.global_ordinal",
                            "torch.distributed.get_rank"})


#: Keyword names under which a dataset takes the part it reads.
_SHARD_WORDS = ("rank", "shard", "ordinal", "part", "split", "index", "node")


def _sharded_by_ordinal(an: Analyzer, loader: nodes.Call) -> bool:
    """The DataLoader's dataset selects its data by the replica's global index
    (``xm.get_ordinal()``/``xr.global_ordinal()``/``dist.get_rank()``, or a name bound to
    it): as an index or slice (``files[rank]``, ``files[rank::n]``) or a keyword such as
    ``rank=``/``shard_id=``, in the expression that makes it or in a function of the
    module that expression calls (one level). Each replica then reads its own shard,
    with no sampler; an index used only for a seed or a log name shards nothing."""
    dataset = argument(loader, 0, "dataset")
    if dataset is None:
        return False
    exprs: list[nodes.NodeNG] = [dataset]
    if isinstance(dataset, nodes.Name):
        binds = an.ev.bindings(dataset)
        exprs = [b.parent.value for b in binds if isinstance(b, nodes.AssignName) and
                 isinstance(b.parent, nodes.Assign)]
        if not exprs or len(exprs) != len(binds):
            return False
    for expr in exprs:
        if _selects_by_ordinal(an, [expr], expr.frame()):
            continue
        if _passed_by_ordinal(an, expr):
            continue
        if _selects_by_ordinal(an, _sources(an, expr), expr.frame()):
            continue  # ``TensorDataset(x, y)``, ``x`` made from ``load_chunk(core_id=rank)``
        if not any(isinstance(func, nodes.FunctionDef) and func.root() is an.module and
                   _selects_by_ordinal(an, func.body, func)
                   for call in nodes_of(expr, nodes.Call)
                   for func, _ in an.ev.functions_called(call, None)):
            return False
    return True


def _passed_by_ordinal(an: Analyzer, expr: nodes.NodeNG) -> bool:
    """``expr`` (what makes a loader's dataset) reads a parameter of its function, and
    every call of that function in the module passes, for it, a value selected by the
    replica's index (``data_file = files[(start * world + rank) % n]`` then
    ``create_pretraining_dataset(data_file, ...)``): each replica builds its loader over
    its own shard."""
    func = expr.frame()
    if not isinstance(func, nodes.FunctionDef):
        return False
    params = {n.name for n in nodes_of(expr, nodes.Name)
              if any(is_param_of(b, func) for b in an.ev.bindings(n))}
    sites = an.ev.call_sites(func)
    if not params or not sites:
        return False
    for call, bound in sites:
        chosen = False
        for name in params:
            arg = an.ev.site_argument(func, call, name, bound)
            if not isinstance(arg, nodes.NodeNG):
                continue
            values = [arg]
            if isinstance(arg, nodes.Name):
                values = [b.parent.value for b in an.ev.bindings(arg)
                          if isinstance(b, nodes.AssignName) and isinstance(b.parent,
                                                                            nodes.Assign)]
            if values and all(_selects_by_ordinal(an, [v], call.frame()) for v in values):
                chosen = True
                break
        if not chosen:
            return False
    return True


def _selects_by_ordinal(an: Analyzer, roots: list[nodes.NodeNG], frame: nodes.NodeNG) -> bool:
    """One of ``roots`` indexes, slices or shards by the replica's global index (see
    :func:`_sharded_by_ordinal`); names bound to it in ``frame`` count."""
    def is_ordinal_call(expr: nodes.NodeNG) -> bool:
        return isinstance(expr, nodes.Call) and an.qualname(expr.func) in _ORDINAL_CALLS

    def ordinal(expr: nodes.NodeNG) -> bool:
        return any(is_ordinal_call(c) for c in nodes_of(expr, nodes.Call))

    names = {t.name for a in nodes_of(frame, nodes.Assign) if ordinal(a.value)
             for t in a.targets if isinstance(t, nodes.AssignName)}

    def uses(expr: nodes.NodeNG) -> bool:
        return ordinal(expr) or any(n.name in names for n in nodes_of(expr, nodes.Name))

    index_params = _launch_index_params(an)

    def is_ordinal(expr: nodes.NodeNG) -> bool:
        return is_ordinal_call(expr) or isinstance(expr, nodes.Name) and (
            expr.name in names or bool(index_params) and any(
                id(b) in index_params for b in an.ev.bindings(expr)))

    for root in roots:
        if any(uses(sub.slice) for sub in nodes_of(root, nodes.Subscript)):
            return True
        for call in nodes_of(root, nodes.Call):
            # ``shard_files(rank)``: the index itself, handed over; ``load(shard=rank)``,
            # ``load_chunk(core_id=rank)``: by keyword (not as a seed)
            handed: list[int | str] = [i for i, a in enumerate(call.args) if is_ordinal(a)]
            handed += [kw.arg for kw in call.keywords or () if kw.arg is not None and (
                any(w in kw.arg.lower() for w in _SHARD_WORDS) and uses(kw.value) or
                not _seedlike(kw.arg) and is_ordinal(kw.value))]
            if not handed:
                continue
            name = callee_name(call.func)
            if name in _SHOWING_CALLS or _seedlike(name):
                continue  # (``np.random.default_rng(rank)``: a seed, every row still read)
            verdict = _callee_selects(an, call, handed, 0)
            if verdict or verdict is None and (
                    _loads_by_name(name) or any(isinstance(h, str) and any(
                        w in h.lower() for w in _SHARD_WORDS) for h in handed)):
                return True  # (a library call: by a loader's name, or a shard keyword)
    return False


#: Words of a library function that reads data by what it is given (``load_shard``,
#: ``read_parquet``, ``open``, ``np.load``; a stream's ``.slice(rank, world)``, webdataset's
#: ``itertools.islice``-like stage, and ``islice(it, rank, None, world)`` take every
#: world-th item from the replica's own index).
_LOADING_WORDS = frozenset({"load", "read", "open", "shard", "chunk", "file", "files",
                            "part", "partition", "split", "select", "subset", "glob",
                            "slice", "islice"})


def _loads_by_name(name: str | None) -> bool:
    return bool(words_of_text(name or "") & _LOADING_WORDS)


def _builds_name(node: nodes.NodeNG, stop: nodes.NodeNG) -> bool:
    """Between ``node`` and its ancestor ``stop``, a string is built from it (an
    f-string, ``"%s" % x``, ``"a" + str(x)``, ``"...".format(x)``): a path or a key."""
    cur: nodes.NodeNG | None = node.parent
    while cur is not None and cur is not stop:
        if isinstance(cur, (nodes.JoinedStr, nodes.FormattedValue)):
            return True
        if isinstance(cur, nodes.BinOp) and cur.op in ("%", "+") and any(
                isinstance(o, nodes.Const) and isinstance(o.value, str) or
                isinstance(o, nodes.JoinedStr) for o in (cur.left, cur.right)):
            return True
        if isinstance(cur, nodes.Call) and isinstance(cur.func, nodes.Attribute) and \
                cur.func.attrname == "format":
            return True
        cur = cur.parent
    return False


def _seedlike(name: str | None) -> bool:
    """A parameter or function name that takes the replica's index only as a seed
    (``seed``, ``random_state``, ``rng``, ``generator``, ``manual_seed``)."""
    words = words_of_text(name or "")
    return bool(words & {"seed", "rng", "generator"}) or {"random", "state"} <= words
#: Calls that only show or wait on what they are given (a log line, a progress bar, a
#: rendezvous tag): the index passed to one selects no data.
_SHOWING_CALLS = SHOWN_BY | {"tqdm", "set_description", "set_postfix", "rendezvous",
                             "format_exc", "makedirs", "mkdir", "exists"}


def _callee_selects(an: Analyzer, call: nodes.Call, handed: list[int | str],
                    depth: int) -> bool | None:
    """Whether a project function that ``call`` runs selects data by the arguments
    ``handed`` (positions or keyword names) that carry the replica's index: it indexes or
    slices with its parameter, builds a path or name from it that is not only shown
    (``f"{root}/core_{core_id}/{name}"``), or hands it on to a call that does. None when
    ``call`` runs no function of the project (a library loader named like a shard
    selector is taken at its word). A helper that only compares it (``if rank != 0:
    rendezvous(...)``, HF's ``load_and_cache_examples``) or shows it selects nothing."""
    callees = [f for f, _ in an.ev.functions_called(call, None)
               if isinstance(f, nodes.FunctionDef)]
    if not callees:
        return None
    for func in callees:
        params = [*(func.args.posonlyargs or ()), *(func.args.args or ())]
        # (``obj.method(x)`` and ``Klass(x)``, whose ``__init__`` takes ``self`` first)
        shift = 1 if params and params[0].name in ("self", "cls") and (
            isinstance(call.func, nodes.Attribute) or func.name == "__init__") else 0
        for h in handed:
            if isinstance(h, int):
                name = params[h + shift].name if h + shift < len(params) else None
            else:
                name = h if any(p.name == h for p in [*params, *(func.args.kwonlyargs or ())]) \
                    else None
            if name is not None and _param_selects(an, func, name, depth):
                return True
    return False


def _param_selects(an: Analyzer, func: nodes.FunctionDef, name: str, depth: int) -> bool:
    """``func`` selects data by its parameter ``name`` (see :func:`_callee_selects`)."""
    for use in nodes_of(func, nodes.Name):
        if use.name != name:
            continue
        child, cur = use, use.parent
        while cur is not None and not isinstance(cur, (nodes.Call, *SCOPES)) and \
                not isinstance(cur, nodes.Compare) and not cur.is_statement:
            if isinstance(cur, nodes.Subscript) and child is cur.slice:
                return True  # ``files[core_id]``, ``rows[rank::world]``
            child, cur = cur, cur.parent
        if isinstance(cur, nodes.Compare) or cur is None or isinstance(cur, SCOPES):
            continue  # ``if rank == 0:``
        if cur.is_statement:
            if child is not use and _builds_name(use, cur):
                return True  # ``path = f"{root}/core_{core_id}.npz"``
            if child is use and isinstance(cur, nodes.Assign) and \
                    _stored_and_selects(an, func, cur, depth):
                return True  # ``self.rank = rank``, then ``self.files[self.rank::world]``
            continue
        # an argument of a call (itself, or inside a string built for it)
        callee = callee_name(cur.func)
        if callee in _SHOWING_CALLS or _seedlike(callee):
            continue
        if child is not use:
            if _builds_name(use, cur):
                return True  # ``np.load(f"{path}.{rank}.npz")``
            continue
        at: int | str | None = next((i for i, a in enumerate(cur.args) if a is use), None)
        if at is None:
            kw = next((k for k in cur.keywords or () if k.value is use), None)
            if kw is None or kw.arg is None or _seedlike(kw.arg):
                continue
            at = kw.arg
        if depth >= 3:
            return True
        verdict = _callee_selects(an, cur, [at], depth + 1)
        if verdict or verdict is None and _loads_by_name(callee):
            return True  # (handed on: to a helper that selects, or to a library loader)
    return False


def _stored_and_selects(an: Analyzer, func: nodes.FunctionDef, stmt: nodes.Assign,
                        depth: int) -> bool:
    """``stmt`` stores the index on the instance (``self.rank = rank`` in ``__init__``)
    and a method of the class selects data by that attribute (an index or slice, or a
    name built from it)."""
    klass = func.parent
    targets = [t for t in stmt.targets if isinstance(t, nodes.AssignAttr) and
               isinstance(t.expr, nodes.Name) and t.expr.name in ("self", "cls")]
    if not targets or not isinstance(klass, nodes.ClassDef) or depth >= 3:
        return False
    attrs = {t.attrname for t in targets}
    for method in klass.body:
        if not isinstance(method, nodes.FunctionDef):
            continue
        for node in nodes_of(method, nodes.Attribute):
            if node.attrname not in attrs or not isinstance(node.expr, nodes.Name) or \
                    node.expr.name not in ("self", "cls"):
                continue
            child, cur = node, node.parent
            while cur is not None and not cur.is_statement and \
                    not isinstance(cur, (nodes.Compare, *SCOPES)):
                if isinstance(cur, nodes.Subscript) and child is cur.slice:
                    return True
                child, cur = cur, cur.parent
            if cur is not None and not isinstance(cur, (nodes.Compare, *SCOPES)) and \
                    _builds_name(node, cur):
                call = node.parent
                while call is not None and call is not cur and not isinstance(call, nodes.Call):
                    call = call.parent
                if not isinstance(call, nodes.Call) or \
                        callee_name(call.func) not in _SHOWING_CALLS:
                    return True
    return False


def _sources(an: Analyzer, expr: nodes.NodeNG, limit: int = 24) -> list[nodes.NodeNG]:
    """The expressions that the names of ``expr`` were made from in its function, followed
    back through plain assignments (``x = torch.from_numpy(data["x"])``, ``data =
    load_chunk(core_id=rank)``), at most ``limit`` of them. Syntax and bindings only."""
    frame = expr.frame()
    out: list[nodes.NodeNG] = []
    seen: set[int] = set()
    todo = [expr]
    while todo and len(out) < limit:
        node = todo.pop()
        for name in nodes_of(node, nodes.Name):
            for b in an.ev.bindings(name):
                value = _bound_value(b)
                if value is None or id(value) in seen or value.frame() is not frame:
                    continue
                seen.add(id(value))
                out.append(value)
                todo.append(value)
    return out


def _is_param(an: Analyzer, node: nodes.NodeNG, param: nodes.AssignName) -> bool:
    """``node`` is a name bound to the parameter ``param``."""
    return isinstance(node, nodes.Name) and node.name == param.name and any(
        b is param for b in an.ev.bindings(node))


def _bound_value(b: nodes.NodeNG) -> nodes.NodeNG | None:
    """What an assignment binds to ``b``: ``x = <value>``, or the matching item of ``x, y =
    <a>, <b>``; else None."""
    parent = b.parent
    if not isinstance(b, nodes.AssignName):
        return None
    if isinstance(parent, nodes.Assign):
        return parent.value
    if isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign) and \
            isinstance(parent.parent.value, nodes.Tuple) and \
            len(parent.parent.value.elts) == len(parent.elts):
        return parent.parent.value.elts[parent.elts.index(b)]
    return None


def _launch_index_params(an: Analyzer) -> set[int]:
    """The first parameters (the process index) of this module's functions that
    ``xmp.spawn``/``torch_xla.launch`` start, as ids of their AssignName nodes (memoised
    per analyzer)."""
    memo = an.__dict__.get("_launch_index_params")
    if memo is not None:
        return memo
    found: set[int] = set()
    todo: list[tuple[nodes.FunctionDef, int, int]] = []  # (function, position, depth)
    for call in launcher_calls(an):
        fn = call.args[0] if call.args else keyword(call, "fn")
        if fn is None:
            continue
        for v in an.value(fn):
            if v.kind is Kind.FUNCTION and isinstance(v.node, nodes.FunctionDef):
                todo.append((v.node, 0, 0))
    while todo:
        func, at, depth = todo.pop()
        params = func.args.args or []
        if func.root() is not an.module or at >= len(params) or id(params[at]) in found:
            continue
        param = params[at]
        found.add(id(param))
        if depth >= 3:
            continue
        # (``def _mp_fn(rank, flags): train_loop(rank, flags)``: the index handed on, by
        # position or by keyword)
        for call in nodes_of(func, nodes.Call):
            spots = [(i, None) for i, arg in enumerate(call.args)
                     if _is_param(an, arg, param)]
            spots += [(None, kw.arg) for kw in call.keywords or ()
                      if kw.arg is not None and _is_param(an, kw.value, param)]
            if not spots:
                continue
            for callee, _ in an.ev.functions_called(call, None):
                if not isinstance(callee, nodes.FunctionDef):
                    continue
                names = [p.name for p in callee.args.args or ()]
                shift = 1 if names and names[0] in ("self", "cls") and \
                    isinstance(call.func, nodes.Attribute) else 0
                for i, kw in spots:
                    pos = i + shift if i is not None else \
                        (names.index(kw) if kw in names else None)
                    if pos is not None:
                        todo.append((callee, pos, depth + 1))
    an.__dict__["_launch_index_params"] = found
    return found


def _checked_at_home(an: Analyzer, call: nodes.Call) -> bool:
    """The DataLoader ``call`` of another module is checked in its own module, which looks
    for the loops its loaders reach (see ``SamplerWithoutReplicaInfo._training_loops``):
    a module that is XLA code, runs in several replicas, and builds the loader in a
    function other modules name, or starts the replicas itself (the script's ``_mp_fn``
    hands its loader to ``engine.train_one_epoch``). Reported there, not where it is
    looped over (once, on the line where it is built)."""
    link = an.link
    if link is None or not link.home_is_xla_code(call):
        return False
    home = link.analyzer_of(call)
    return home is not None and (bool(launcher_calls(home)) or _handed_out(home, call)) and \
        is_multi_replica(home)


def _passed_on(an: Analyzer, call: nodes.Call) -> bool:
    """Syntax only: the name ``call``'s result is stored in (``loader = DataLoader(...)``)
    is an argument of a call of its function, or ``call`` is one itself (``train(model,
    DataLoader(...))``, also wrapped: ``train(pl.MpDeviceLoader(loader, device))``)."""
    if isinstance(call.parent, (nodes.Call, nodes.Keyword)):
        return True
    stmt = call.parent
    if not (isinstance(stmt, nodes.Assign) and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], nodes.AssignName)):
        return False
    scope = stmt.scope()
    for use in an.ev.name_uses(stmt.targets[0].name):
        holder = use.parent.parent if isinstance(use.parent, nodes.Keyword) else use.parent
        if isinstance(holder, nodes.Call) and (use in holder.args or use.parent is not holder) \
                and _body_scope(holder) is scope:
            return True
    return False


def _body_scope(node: nodes.NodeNG) -> nodes.NodeNG:
    """The function, class or module whose own body holds ``node`` (through lambdas and
    comprehensions)."""
    cur = node.parent
    while not isinstance(cur, (nodes.FunctionDef, nodes.ClassDef, nodes.Module)):
        cur = cur.parent
    return cur


def _handed_out(an: Analyzer, call: nodes.Call) -> bool:
    """``call`` is in a function that other modules of the project name (a loader factory
    whose caller loops over what it returns, or passes it on): syntax and the index only."""
    link = an.link
    func = enclosing_function(call)
    while func is not None and not isinstance(func.parent, (nodes.Module, nodes.ClassDef)):
        func = enclosing_function(func)
    if link is None or func is None or not isinstance(func, nodes.FunctionDef):
        return False
    rel = link.rel_of(an)
    owner = func.parent.name if isinstance(func.parent, nodes.ClassDef) else func.name
    return rel is not None and bool(link.index.callers(
        rel, [owner], every_module=link.target == "all"))


def _loop_rank(facts: FileFacts) -> int | None:
    """A module that may hold a training loop (a ``for`` loop and an update) comes first;
    one without a ``for`` loop cannot hold one (see ``Session.neighbour_analyzers``)."""
    if not facts.has_for:
        return None
    if may_update(facts):
        return 0 if facts.ident_contains("loader") else 1
    return 2


def _plain_loaders(vs: frozenset[V.Value], depth: int) -> Iterator[V.Value]:
    """The plain torch DataLoaders behind an iterable (through XLA loaders and wrappers)."""
    if depth > 6:
        return
    for v in vs:
        if v.kind is Kind.LOADER:
            if v.has("managed"):
                continue
            if v.has("plain") and not v.has("custom"):
                yield v
            elif v.bound:
                yield from _plain_loaders(v.bound, depth + 1)
        elif v.kind in (Kind.PROGRESS, Kind.ITERATOR) and v.bound:
            yield from _plain_loaders(v.bound, depth + 1)


def _bound_partial(an: Analyzer, fn: nodes.NodeNG) -> bool:
    """``fn`` is a name some assignment binds to ``functools.partial(...)`` (``worker =
    partial(train_worker, flags=flags)``): the arguments it binds are not known here."""
    if not isinstance(fn, nodes.Name):
        return False
    return any(isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
               isinstance(b.parent.value, nodes.Call) and is_partial(an.ev, b.parent.value)
               for b in an.ev.bindings(fn))


class SpawnEntryPoint(Rule):
    """XLA505: a launcher entry point that does not take the process index.

    Source: PyTorch/XLA "PyTorch on XLA Devices", multi-processing section
    (``xmp.spawn(_mp_fn, args=...)`` calls ``_mp_fn(index, *args)``) and the
    transformers ``xla_spawn.py`` launcher (imports the script and calls ``_mp_fn``).
    """

    code = "XLA505"
    fix = "none"
    name = "spawn-entry-point"
    message = ("launcher entry point: {what}; define it as def _mp_fn(index): ... (the launcher "
               "passes the process index first)")
    explanation = """\
`xmp.spawn(fn, args=(...))` and `torch_xla.launch(fn, args=(...))` call
`fn(index, *args)` in every process. A function without the index parameter
fails at start-up with a TypeError on every replica; so does a bound method
(`xmp.spawn(runner.run)`) whose only parameter is `self`, and a lambda with no
parameter (`xmp.spawn(lambda: train(cfg))`), and a function that a decorator of the
project replaces by a wrapper without one (`@with_config` returning `def wrapper():`).
So does a function that requires more arguments than the index and `args=` give
(`torch_xla.launch(train_worker, args=(cfg,))` of `def train_worker(index, cfg,
tokenizer)`). A project's own copy of `xla_spawn.py` (spawning `mod._mp_fn` with the
`args=` it chooses) decides what `_mp_fn` takes. Scripts meant for the
transformers launcher (`xla_spawn.py`) must define a module-level `_mp_fn(index)`: a
module-level `def _mp_fn():` without a parameter, which the module never calls itself, is
reported at its definition, and `_mp_fn = main` for a `main()` without one at the
assignment.

**Example**
```python
def main():
    ...
xmp.spawn(main)
```
**Use instead**
```python
def _mp_fn(index):
    main()
xmp.spawn(_mp_fn)
```
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
              ("https://github.com/huggingface/transformers/blob/main/examples/pytorch/"
              "xla_spawn.py"))

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return launches(facts) or "_mp_fn" in facts.idents

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for call in launcher_calls(an):
            fn = call.args[0] if call.args else keyword(call, "fn")
            if isinstance(fn, nodes.Call) and is_partial(an.ev, fn):
                found_partial = self._partial_without_index(an, fn, call)
                if found_partial is not None:
                    yield self.finding(fn, what=found_partial)
                continue
            found = {(id(v.node), v.bound is not None): (v.node, v.bound is not None)
                     for v in an.value(fn) if v.kind is Kind.FUNCTION and
                     isinstance(v.node, (nodes.FunctionDef, nodes.Lambda))} \
                if fn is not None else {}
            if len(found) != 1:
                continue
            target, bound = next(iter(found.values()))
            wrapper = self._decorator_wrapper(an, target)
            shown = None
            if wrapper is not None:
                # ``@with_config`` whose ``wrapper()`` the launcher really calls
                shown = f"{target.name}(), as its decorator's {wrapper.name}(),"
                target, bound = wrapper, False
            extra = argument(call, 1, "args")  # (``xmp.spawn(fn, (FLAGS,), nprocs=8)``)
            n_extra = len(extra.elts) if isinstance(extra, nodes.Tuple) else 0
            params = target.args.posonlyargs + target.args.args
            if bound:
                params = params[1:]  # ``runner.run``: a bound method, ``self`` is given
            if target.args.vararg is None and len(params) < 1 + n_extra and not (
                    extra is not None and not isinstance(extra, nodes.Tuple)):
                name = shown or (f"{target.name}()" if isinstance(target, nodes.FunctionDef)
                                 else "the lambda")
                what = (f"{name} does not take the process index" if not params else
                        f"{name} takes {len(params)} argument(s) but gets the process "
                        f"index plus {n_extra} from args=")
                yield self.finding(fn, what=what)
                continue
            required = len(params) - len(target.args.defaults or ())
            if required > 1 + n_extra and not _bound_partial(an, fn) and (
                    extra is None or isinstance(extra, nodes.Tuple) and
                                           not any(isinstance(e, nodes.Starred)
                                                   for e in extra.elts)):
                # ``launch(train_worker, args=(cfg,))`` of ``train_worker(index, cfg,
                # tokenizer)``: a TypeError in every process before it starts
                name = shown or (f"{target.name}()" if isinstance(target, nodes.FunctionDef)
                                 else "the lambda")
                yield self.finding(fn, what=f"{name} requires {required} arguments but gets "
                                            f"the process index plus {n_extra} from args=")
        yield from self._mp_fn_without_index(an)

    @staticmethod
    def _decorator_wrapper(an: Analyzer, func: nodes.NodeNG) -> nodes.FunctionDef | None:
        """The function a decorator of the project puts in ``func``'s place: for ``@deco``
        (its outermost decorator, a plain name) where ``deco`` defines a nested function
        and returns it (``def with_config(fn): @functools.wraps(fn) def wrapper(): ...;
        return wrapper``), that nested function; else None."""
        if not isinstance(func, nodes.FunctionDef) or func.decorators is None or \
                not func.decorators.nodes:
            return None
        outer = func.decorators.nodes[0]
        if not isinstance(outer, nodes.Name):
            return None
        decos = [v.node for v in an.value(outer)
                 if v.kind is Kind.FUNCTION and isinstance(v.node, nodes.FunctionDef)]
        if len(decos) != 1:
            return None
        deco = decos[0]
        inner = {f.name: f for f in deco.body if isinstance(f, nodes.FunctionDef)}
        returned = [r.value.name for r in deco.body
                    if isinstance(r, nodes.Return) and isinstance(r.value, nodes.Name)]
        if len(returned) != 1 or returned[0] not in inner:
            return None
        return inner[returned[0]]

    def _mp_fn_without_index(self, an: Analyzer) -> Iterator[Finding]:
        """A module-level ``def _mp_fn():`` without the index, or with more required
        parameters, which neither the module nor another module of the project that
        imports it calls or launches: the name is the entry point that transformers'
        ``xla_spawn.py`` calls as ``_mp_fn(index)``. Also ``_mp_fn = main``, a module-level
        name for such a function of the module (reported at the assignment)."""
        entries: list[tuple[nodes.FunctionDef, nodes.NodeNG]] = []
        for stmt in an.module.body:
            if isinstance(stmt, nodes.FunctionDef) and stmt.name == "_mp_fn":
                entries.append((stmt, stmt))
            elif isinstance(stmt, nodes.Assign) and len(stmt.targets) == 1 and \
                    isinstance(stmt.targets[0], nodes.AssignName) and \
                    stmt.targets[0].name == "_mp_fn" and isinstance(stmt.value, nodes.Name):
                binds = an.ev.bindings(stmt.value)
                if len(binds) == 1 and isinstance(binds[0], nodes.FunctionDef) and \
                        isinstance(binds[0].parent, nodes.Module):
                    entries.append((binds[0], stmt))
        for func, at in entries:
            a = func.args
            params = a.posonlyargs + a.args
            required = len(params) - len(a.defaults or ())
            if a.vararg is not None or 1 <= len(params) and required <= 1 or \
                    an.calls_named("_mp_fn") or launcher_calls(an) or an.off_xla_path(func):
                continue  # (a launcher call of the module is checked above, at its call)
            link = an.link
            rel = link.rel_of(an) if link is not None else None
            if rel is not None and (link.index.spelled_elsewhere(rel, "_mp_fn") or
                                    params and link.index.launched_by_name(rel, "_mp_fn")):
                # (another module imports it: ``xmp.spawn(_mp_fn, args=...)`` there; or
                # the project's own xla_spawn.py spawns ``mod._mp_fn`` with its args)
                continue
            what = ("_mp_fn() does not take the process index" if not params else
                    f"_mp_fn() requires {required} arguments")
            if at is not func:
                what = f"_mp_fn = {func.name}, and " + what.replace("_mp_fn()", f"{func.name}()")
            yield self.finding(at, what=what + " (transformers' xla_spawn.py calls "
                                               "_mp_fn(index))")


    @staticmethod
    def _partial_without_index(an: Analyzer, fn: nodes.Call, call: nodes.Call) -> str | None:
        """``torch_xla.launch(functools.partial(train, cfg))``: what the partial leaves of
        the function's positional parameters must take the process index (then the
        launcher's ``args=``); the message when it cannot, else None (also when the
        function or the bound arguments are not known)."""
        if not fn.args or any(isinstance(a, nodes.Starred) for a in fn.args) or \
                any(k.arg is None for k in fn.keywords or ()):
            return None
        found = {id(v.node): v.node for v in an.value(fn.args[0])
                 if v.kind is Kind.FUNCTION and isinstance(v.node, nodes.FunctionDef)
                 and v.bound is None}
        if len(found) != 1:
            return None
        target = next(iter(found.values()))
        if target.args.vararg is not None:
            return None
        extra = keyword(call, "args")
        if extra is not None and not isinstance(extra, nodes.Tuple):
            return None
        n_extra = len(extra.elts) if extra is not None else 0
        params = target.args.posonlyargs + target.args.args
        left = params[len(fn.args) - 1:]
        by_keyword = {k.arg for k in fn.keywords or ()}
        if len(left) < 1 + n_extra or left[0].name in by_keyword:
            return (f"functools.partial({target.name}, ...) leaves no parameter for the "
                    f"process index")
        return None


class TrainerXlaSettings(Rule):
    """XLA506: Hugging Face ``TrainingArguments`` not set up for XLA.

    Source: transformers docs, ``TrainingArguments.optim`` (``adamw_torch_xla``) and
    ``dataloader_num_workers``; PyTorch/XLA performance guide (keep the host
    input pipeline ahead of the device).
    """

    code = "XLA506"
    fix = "safe"
    name = "trainer-xla-settings"
    message = ("Trainer on XLA: {what}; set optim='adamw_torch_xla' (the default fused AdamW "
               "fails on XLA tensors) and dataloader_num_workers>0 so the host keeps the device "
               "fed")
    explanation = """\
With torch 2.8 and later the Trainer's default optimizer is `adamw_torch_fused`,
which raises a RuntimeError on XLA tensors at the first optimizer step ("`fused=True`
requires all the params to be floating point Tensors of supported devices");
`optim="adamw_torch_xla"` selects torch_xla's AdamW. `dataloader_num_workers=0` loads
and collates every batch in the training process, so the device waits for the
host between steps (not measurable on the CPU device).

Measured (checks/XLA506, PJRT_DEVICE=CPU): the flagged script fails at its first
optimizer step; the fixed one trains.

**Example**
```python
args = TrainingArguments("out", per_device_train_batch_size=8)
```
**Use instead**
```python
args = TrainingArguments("out", per_device_train_batch_size=8,
                         optim="adamw_torch_xla", dataloader_num_workers=4)
```
Reported only for explicit `TrainingArguments(...)` calls in XLA code, and only when
the optimizer is the fused AdamW (the worker count alone is throughput advice, named
beside it).
"""
    source = (("https://huggingface.co/docs/transformers/main_classes/trainer#transformers."
              "TrainingArguments"),)

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return "TrainingArguments" in facts.idents or "Seq2SeqTrainingArguments" in facts.idents

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for call in an.rule_nodes(nodes.Call):
            if (an.qualname(call.func) or "") not in (
                    "transformers.TrainingArguments", "transformers.Seq2SeqTrainingArguments"):
                continue
            unpacked = an.star_keywords(call)
            if unpacked is None:
                continue  # **kwargs that may hold any setting
            optim = keyword(call, "optim")
            workers = keyword(call, "dataloader_num_workers")
            optim_texts = {v.text for v in an.value(optim)} if optim is not None else (
                {v.text for v in unpacked["optim"]} if "optim" in unpacked else None)
            worker_texts = {v.text for v in an.value(workers)} if workers is not None \
                else ({v.text for v in unpacked["dataloader_num_workers"]}
                      if "dataloader_num_workers" in unpacked else None)
            problems = []
            if optim_texts is None:
                problems.append("optim is not set (the default is the fused AdamW)")
            elif optim_texts == {"adamw_torch_fused"}:
                problems.append("optim='adamw_torch_fused'")
            if not problems:
                # (the loader workers alone are throughput advice, not an XLA hazard:
                # reported only beside the optimizer that fails)
                continue
            if worker_texts is None:
                problems.append("dataloader_num_workers is not set (defaults to 0)")
            elif worker_texts == {"0"}:
                problems.append("dataloader_num_workers=0")
            yield self.finding(call, what=" and ".join(problems))


class MissingMpFn(Rule):
    """XLA509: a Trainer script for the XLA launcher without a module-level ``_mp_fn(index)``.

    Source: transformers ``examples/pytorch/xla_spawn.py`` (imports the script and
    calls ``mod._mp_fn``) and the transformers TPU examples.
    """

    code = "XLA509"
    fix = "none"
    name = "missing-mp-fn"
    message = ("no _mp_fn(index): the transformers XLA launcher (xla_spawn.py) imports this "
               "Trainer script and calls _mp_fn(index), which it does not define; add "
               "def _mp_fn(index): main()")
    explanation = """\
`python xla_spawn.py --num_cores 8 run_glue.py ...` imports the training script and
calls its module-level `_mp_fn(index)` in every process. A Trainer script without
it fails with an AttributeError on every core.

**Example**
```python
def main():
    trainer = Trainer(model=model, args=args)
    trainer.train()
```
**Use instead**
```python
def _mp_fn(index):
    # For xla_spawn (TPUs)
    main()
```
Reported at the `Trainer(...)` call of a script with a `__main__` block. Not reported
for a script that reads its command line with argparse's strict `parse_args()` and
declares no `--tpu_num_cores` (nor hands its parser to a helper that could): xla_spawn.py
appends that option to the script's arguments, so such a script cannot be started by it.
"""
    source = (("https://github.com/huggingface/transformers/blob/main/examples/pytorch/"
              "xla_spawn.py"),)

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return facts.any_ident(("Trainer", "Seq2SeqTrainer")) and "__main__" in facts.strings

    @staticmethod
    def _defines_mp_fn(an: Analyzer) -> bool:
        """The module binds ``_mp_fn`` where an import runs it: at its top level, not only
        inside ``if __name__ == "__main__":`` (which does not run when ``xla_spawn.py``
        imports the script)."""
        for b in an.module.locals.get("_mp_fn", ()):
            cur = b.parent
            guarded = False
            while cur is not None and not isinstance(cur, nodes.Module):
                if isinstance(cur, nodes.If) and "__main__" in cur.test.as_string():
                    guarded = True
                    break
                cur = cur.parent
            if not guarded:
                return True
        return False

    @staticmethod
    def _rejects_launcher_flag(an: Analyzer) -> bool:
        """The script parses its command line with argparse's strict ``parse_args()`` and
        declares no ``--tpu_num_cores``: xla_spawn.py appends ``--tpu_num_cores N`` to the
        script's arguments (transformers ``examples/pytorch/xla_spawn.py``), which such a
        parser rejects, so the launcher cannot run this script (one that an
        ``HfArgumentParser`` or ``parse_known_args`` reads can be, and so can one whose
        parser is handed to a helper that may add the option)."""
        if not an.imports.imports_prefix("argparse"):
            return False
        if any(an.calls_named(name) for name in (
                "HfArgumentParser", "parse_known_args", "parse_args_into_dataclasses", "parse_dict",
                "parse_json_file", "parse_yaml_file")):
            return False
        strict = [c for c in an.calls_named("parse_args")
                  if isinstance(c.func, nodes.Attribute) and not c.keywords and
                  (not c.args or len(c.args) == 1 and _argv_tail(c.args[0]))]
        if not strict:
            return False
        parsers = {c.func.expr.name for c in strict if isinstance(c.func.expr, nodes.Name)}
        if len(parsers) != len(strict) or any(
                isinstance(a, nodes.Name) and a.name in parsers
                for call in an.module_nodes(nodes.Call)
                for a in [*call.args, *(k.value for k in call.keywords or ())]):
            return False  # (a parser handed to a helper may get ``--tpu_num_cores`` there)
        return not any(const_str(a) == "--tpu_num_cores"
                       for c in an.calls_named("add_argument") for a in c.args)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or self._defines_mp_fn(an) or launcher_calls(an) or \
                an.calls_named("use_spmd"):
            return  # launches itself, or a single-process SPMD script
        has_main = any(isinstance(n, nodes.If) and "__main__" in n.test.as_string()
                       for n in an.module.body)
        if not has_main or self._rejects_launcher_flag(an):
            return
        trainers = {"transformers.Trainer", "transformers.Seq2SeqTrainer"}
        subclasses = {c.name for c in an.module_nodes(nodes.ClassDef)
                      if any((an.qualname(b) or "") in trainers for b in c.bases)}
        for call in an.rule_nodes(nodes.Call):
            q = an.qualname(call.func) or ""
            if q in trainers or (isinstance(call.func, nodes.Name) and
                                 call.func.name in subclasses):
                yield self.finding(call)
                return


def _argv_tail(node: nodes.NodeNG) -> bool:
    """``sys.argv[1:]``: the command line, as ``parse_args()`` reads it by default."""
    return isinstance(node, nodes.Subscript) and node.value.as_string() == "sys.argv" and \
        isinstance(node.slice, nodes.Slice) and isinstance(node.slice.lower, nodes.Const) and \
        node.slice.lower.value == 1 and node.slice.upper is None
