"""XLA6xx: the migration band from torch_xla to TorchTPU (off unless ``--xla-migrate=torchtpu``).

Two kinds of rules live here.

*Counterparts* (XLA600-XLA612): every use of a torch_xla API, and every ``'xla'``
device string, gets exactly one finding that names its TorchTPU counterpart, or says
that there is none and what to do instead. One scan of the module classifies every
use (:func:`torch_xla_uses`); each rule reports its own category.

*Traps* (XLA620-XLA625): code that TorchTPU itself rejects or slows down, visible in
the torch-tpu wheel's sources: ``torch.compile(..., dynamic=True)``, the Inductor
backend with TPU inputs, the ``torch.tpu`` device APIs that raise when user code calls
them, forked children, context managers that break or are forbidden in compiled code,
and deprecated ``torch.tpu`` APIs. These also run on files that no longer import
torch_xla but use ``torch.tpu`` or the ``'tpu'`` device.

Every TorchTPU fact comes from ``flake8_xla/data/torchtpu_api.json``, which
``scripts/api_facts.py`` reads (with ``ast``) from the torch-tpu 0.2.0 wheel: its
``torch.tpu`` table in ``torch_tpu/_internal/public_api.py`` and the functions that
table points to. Nothing in this band can be measured without a TPU, so none of its
rules has a ``checks/`` pair.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from astroid import nodes

from flake8_xla.analysis import const_str, keyword
from flake8_xla.context import Finding, ModuleContext
from flake8_xla.facts import short_name, torchtpu_api
from flake8_xla.imports import canonical
from flake8_xla.rules.base import Rule

MIGRATE = "torchtpu"


# ------------------------------------------------------------------ facts of the wheel
def _tpu() -> dict[str, Any]:
    return torchtpu_api()


def _trap(key: str) -> dict[str, Any]:
    return _tpu()["traps"].get(key, {})


def cite(key: str) -> str:
    """``'torch_tpu/_loader.py:256'`` for a trap of the facts ('' when absent)."""
    trap = _trap(key)
    return f"{trap['file']}:{trap['line']}" if trap.get("file") else ""


def public(name: str) -> dict[str, Any]:
    """The facts of ``torch.tpu.<...>`` ({} when the table has no such export)."""
    return _tpu()["public"].get(name, {})


def prefer(name: str) -> str:
    """The API TorchTPU names instead of an internal ``torch.tpu`` API (``name`` itself
    when it names none)."""
    return public(name).get("prefer") or name


TPU_VERSION = _tpu()["version"]
TPU_WHEEL = f"torch-tpu {TPU_VERSION}"
DEVICE = _trap("device_name").get("device", "tpu")
PG_BACKEND = (_trap("process_group_backends").get("names") or ["tpu"])[-1]
AUTOCAST_DTYPE = _trap("autocast_default_dtype").get("dtype", "")
LAUNCH_ENV = "torch.tpu.distributed.set_tpu_launch_env"
LAUNCH_CLI = _trap("launch_env_cli").get("command", "")
MESH = "torch.tpu.distributed.topology_aware_mesh"


def _sources(*keys: str, public_names: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Rule ``source`` lines: the wheel files (and lines) the rule's facts rest on."""
    table = next(iter(_tpu()["public"].values()), {}).get("table", "")
    out = [(f"{TPU_WHEEL} wheel, read by scripts/api_facts.py into "
            "flake8_xla/data/torchtpu_api.json"),
           f"{TPU_WHEEL}: {table} (the public torch.tpu table)"]
    for key in keys:
        if cite(key):
            out.append(f"{TPU_WHEEL}: {cite(key)}")
    for name in public_names:
        entry = public(name)
        if entry.get("file"):
            out.append(f"{TPU_WHEEL}: {entry['file']}:{entry['line']} ({name}, listed in "
                       f"{entry['table']})")
    return tuple(out)


def _autoload_source() -> tuple[str, ...]:
    """The entry point through which ``import torch`` loads TorchTPU, as a source line."""
    auto = _trap("autoload")
    if not auto:
        return ()
    return ((f"{TPU_WHEEL}: {auto['file']} ([{auto['group']}] {auto['name']} = "
            f"{auto['entry']})"),)


# ------------------------------------------------------------------ the counterpart map
#: category -> the rule code that reports it.
CATEGORIES = ("import", "device", "graph", "loader", "collectives", "launch", "ranks", "amp",
              "checkpoint", "closure", "debug", "sharding", "other")

_SYNC = prefer("torch.tpu.synchronize")
_COUNT = prefer("torch.tpu.device_count")
_DDP = (f"wrap the model in torch.nn.parallel.DistributedDataParallel (after "
        f"torch.distributed.init_process_group('{PG_BACKEND}')) and call optimizer.step(): "
        f"DDP all-reduces the gradients in backward()")
_EAGER = ("delete it: TorchTPU runs eagerly (ops are deferred and fused, and run when a value "
          "is needed), so no barrier is needed; to trace the whole step into one graph, wrap "
          "the step function in torch.compile")
_LAUNCH = (f"call {LAUNCH_ENV}(nproc_per_node=N) in the parent, then "
           f"torch.multiprocessing.spawn(fn, nprocs=N) (fn(rank, ...) gets the rank first), or "
           f"torchrun after `eval \"$({LAUNCH_CLI})\"`; each worker calls "
           f"torch.distributed.init_process_group('{PG_BACKEND}')")

#: (qualified name or prefix ending in '.', category, what to do). First match wins;
#: anything else of torch_xla is 'other'.
COUNTERPARTS: tuple[tuple[str, str, str], ...] = (
    # device
    ("torch_xla.device", "device", f"torch.device('{DEVICE}')"),
    ("torch_xla.core.xla_model.xla_device", "device", f"torch.device('{DEVICE}')"),
    ("torch_xla.runtime.xla_device", "device", f"torch.device('{DEVICE}')"),
    ("torch_xla.devices", "device", f"[torch.device('{DEVICE}')]: one TPU per process"),
    ("torch_xla.real_devices", "device", f"[torch.device('{DEVICE}')]: one TPU per process"),
    ("torch_xla.device_count", "device", f"{_COUNT}()"),
    ("torch_xla.runtime.local_device_count", "device", f"{_COUNT}()"),
    ("torch_xla.runtime.addressable_device_count", "device", f"{_COUNT}()"),
    ("torch_xla.runtime.addressable_runtime_device_count", "device", f"{_COUNT}()"),
    ("torch_xla.core.xla_model.get_xla_supported_devices", "device",
     f"[torch.device('{DEVICE}')]: one TPU per process"),
    ("torch_xla.runtime.global_device_count", "device",
     "torch.distributed.get_world_size(): one TPU per process"),
    ("torch_xla.runtime.global_runtime_device_count", "device",
     "torch.distributed.get_world_size(): one TPU per process"),
    ("torch_xla.core.xla_model.xla_device_hw", "device", "torch.tpu.get_device_name()"),
    ("torch_xla.core.xla_model.xla_real_devices", "device", "torch.tpu.get_device_name()"),
    ("torch_xla.runtime.device_type", "device",
     f"'{DEVICE}' (torch.accelerator.current_accelerator().type)"),
    ("torch_xla.runtime.set_device_type", "device",
     f"nothing to set: TorchTPU's device is '{DEVICE}'; delete it"),
    ("torch_xla.runtime.is_bf16_supported", "device",
     "True on TPU: bfloat16 is the TPU's native matmul type"),
    ("torch_xla.core.xla_model.is_xla_tensor", "device",
     f"t.device.type == '{DEVICE}' (or t.is_{DEVICE})"),
    ("torch_xla.core.xla_model.set_rng_state", "device", "torch.manual_seed(seed)"),
    ("torch_xla.core.xla_model.get_rng_state", "device", "torch.tpu.initial_seed()"),
    ("torch_xla.manual_seed", "device", "torch.manual_seed(seed)"),
    # graph boundaries and compilation
    ("torch_xla.core.xla_model.mark_step", "graph", _EAGER),
    ("torch_xla.sync", "graph", _EAGER),
    ("torch_xla.step", "graph", _EAGER),
    ("torch_xla.core.xla_model.wait_device_ops", "graph", f"{_SYNC}()"),
    ("torch_xla.compile", "graph",
     "torch.compile(fn): TorchTPU makes the TPU backend the default and dynamic=False"),
    ("torch_xla.experimental.compile", "graph",
     "torch.compile(fn): TorchTPU makes the TPU backend the default and dynamic=False"),
    ("torch_xla.experimental.eager_mode", "graph",
     "delete it: TorchTPU runs eagerly by default (torch.tpu.set_eager_mode selects how)"),
    ("torch_xla.experimental.eager.", "graph",
     "delete it: TorchTPU runs eagerly by default (torch.tpu.set_eager_mode selects how)"),
    ("torch_xla.core.xla_model.optimization_barrier_", "graph",
     "torch.tpu.ops.optimization_barrier"),
    # data loading
    ("torch_xla.distributed.parallel_loader.", "loader",
     (f"no TorchTPU counterpart: iterate the torch DataLoader itself and move each batch "
     f"with batch.to('{DEVICE}')")),
    # gradient reduction and collectives
    ("torch_xla.core.xla_model.optimizer_step", "collectives", _DDP),
    ("torch_xla.core.xla_model.reduce_gradients", "collectives", _DDP),
    ("torch_xla.core.xla_model.all_reduce", "collectives",
     f"torch.distributed.all_reduce (process group backend '{PG_BACKEND}')"),
    ("torch_xla.core.xla_model.all_gather", "collectives",
     "torch.distributed.all_gather_into_tensor"),
    ("torch_xla.core.xla_model.reduce_scatter", "collectives",
     "torch.distributed.reduce_scatter_tensor"),
    ("torch_xla.core.xla_model.all_to_all", "collectives", "torch.distributed.all_to_all_single"),
    ("torch_xla.core.xla_model.collective_permute", "collectives",
     "torch.distributed send/recv (or torch.tpu.ops.send/recv)"),
    ("torch_xla.core.xla_model.rendezvous", "collectives", "torch.distributed.barrier()"),
    ("torch_xla.core.xla_model.xla_rendezvous", "collectives", "torch.distributed.barrier()"),
    ("torch_xla.core.xla_model.mesh_reduce", "collectives",
     "torch.distributed.all_gather_object, then reduce on the host"),
    ("torch_xla.core.xla_model.broadcast_master_param", "collectives",
     ("torch.distributed.broadcast of each parameter from rank 0 (DDP does it when it wraps "
     "the model)")),
    ("torch_xla.core.xla_model.REDUCE_", "collectives", "torch.distributed.ReduceOp"),
    ("torch_xla.core.functions.", "collectives", "torch.distributed.nn.functional"),
    ("torch_xla.distributed.xla_backend", "collectives",
     f"delete it: TorchTPU registers the '{PG_BACKEND}' process group backend"),
    # launching
    ("torch_xla.distributed.xla_multiprocessing.spawn", "launch", _LAUNCH),
    ("torch_xla.launch", "launch", _LAUNCH),
    ("torch_xla.distributed.xla_multiprocessing.", "launch",
     "no TorchTPU counterpart: build the model in each worker process"),
    # ranks and world size
    ("torch_xla.runtime.world_size", "ranks", "torch.distributed.get_world_size()"),
    ("torch_xla.core.xla_model.xrt_world_size", "ranks", "torch.distributed.get_world_size()"),
    ("torch_xla.runtime.global_ordinal", "ranks", "torch.distributed.get_rank()"),
    ("torch_xla.core.xla_model.get_ordinal", "ranks", "torch.distributed.get_rank()"),
    ("torch_xla.runtime.local_ordinal", "ranks",
     ("int(os.environ['LOCAL_RANK']) (set by torchrun), or the rank torch.multiprocessing."
     "spawn passes on one host")),
    ("torch_xla.core.xla_model.get_local_ordinal", "ranks",
     ("int(os.environ['LOCAL_RANK']) (set by torchrun), or the rank torch.multiprocessing."
     "spawn passes on one host")),
    ("torch_xla.core.xla_model.is_master_ordinal", "ranks",
     "torch.distributed.get_rank() == 0 (local: LOCAL_RANK == 0)"),
    ("torch_xla.core.xla_model.master_print", "ranks",
     "print(...) under `if torch.distributed.get_rank() == 0:`"),
    ("torch_xla.runtime.process_index", "ranks", "int(os.environ['NODE_RANK'])"),
    ("torch_xla.runtime.host_index", "ranks", "int(os.environ['NODE_RANK'])"),
    ("torch_xla.runtime.process_count", "ranks", "int(os.environ['NNODES'])"),
    ("torch_xla.runtime.local_process_count", "ranks", "int(os.environ['LOCAL_WORLD_SIZE'])"),
    # mixed precision and optimizers
    ("torch_xla.amp.syncfree.", "amp",
     (f"the torch.optim optimizer of the same name: syncfree variants only spare torch_xla's "
     f"GradScaler a host read, and TorchTPU's autocast defaults to {AUTOCAST_DTYPE}, which "
     f"needs no GradScaler")),
    ("torch_xla.amp.GradScaler", "amp",
     (f"drop it: torch.amp.autocast('{DEVICE}') defaults to {AUTOCAST_DTYPE}, which needs no "
     f"loss scaling")),
    ("torch_xla.amp.grad_scaler.", "amp",
     (f"drop it: torch.amp.autocast('{DEVICE}') defaults to {AUTOCAST_DTYPE}, which needs no "
     f"loss scaling")),
    ("torch_xla.amp.", "amp", f"torch.amp.autocast('{DEVICE}') (default dtype {AUTOCAST_DTYPE})"),
    # checkpoints
    ("torch_xla.core.xla_model.save", "checkpoint",
     ("torch.save: TorchTPU tensors are ordinary device tensors; move them to the CPU first "
     "(t.cpu()) if the checkpoint must load without a TPU, and save on rank 0 only")),
    ("torch_xla.utils.serialization.", "checkpoint", "torch.save / torch.load"),
    ("torch_xla.experimental.distributed_checkpoint", "checkpoint",
     "torch.distributed.checkpoint"),
    # step closures
    ("torch_xla.core.xla_model.add_step_closure", "closure",
     ("no TorchTPU counterpart: call the function directly after the step; reading a value "
     "(loss.item()) waits for the device, so read it every N steps")),
    ("torch_xla.utils.closures.", "closure",
     "no TorchTPU counterpart: call the function directly after the step"),
    # debugging and profiling
    ("torch_xla.debug.metrics.", "debug",
     (f"no TorchTPU counterpart: {TPU_WHEEL} has no public metrics report; profile with "
     f"torch.profiler (TorchTPU registers a Kineto backend) and "
     f"torch.tpu.profiler.TpuProfilerConfig")),
    ("torch_xla.debug.metrics", "debug",
     (f"no TorchTPU counterpart: {TPU_WHEEL} has no public metrics report; profile with "
     f"torch.profiler and torch.tpu.profiler.TpuProfilerConfig")),
    ("torch_xla.debug.profiler", "debug",
     ("torch.profiler with torch.tpu.profiler.TpuProfilerConfig (TorchTPU registers a Kineto "
     "backend)")),
    ("torch_xla.debug.", "debug",
     ("no TorchTPU counterpart: profile with torch.profiler and "
     "torch.tpu.profiler.TpuProfilerConfig")),
    ("torch_xla.runtime.get_num_cached_compilation_graph", "debug",
     "no public TorchTPU counterpart: profile with torch.profiler"),
    # SPMD and sharded training
    ("torch_xla.distributed.spmd", "sharding",
     (f"torch.distributed.tensor (distribute_tensor / distribute_module with Shard/Replicate) "
     f"on a DeviceMesh('{DEVICE}', {MESH}(shape))")),
    ("torch_xla.experimental.xla_sharding", "sharding",
     f"torch.distributed.tensor on a DeviceMesh('{DEVICE}', {MESH}(shape))"),
    ("torch_xla.experimental.xla_sharded_tensor", "sharding",
     "torch.distributed.tensor.DTensor"),
    ("torch_xla.runtime.use_spmd", "sharding",
     (f"delete it: shard with torch.distributed.tensor on a DeviceMesh('{DEVICE}', "
     f"{MESH}(shape))")),
    ("torch_xla.runtime.is_spmd", "sharding", "delete it: there is no SPMD mode to ask about"),
    ("torch_xla.distributed.fsdp", "sharding",
     f"torch.distributed.fsdp.fully_shard on a DeviceMesh('{DEVICE}', ...)"),
    ("torch_xla.experimental.spmd_fully_sharded_data_parallel", "sharding",
     f"torch.distributed.fsdp.fully_shard on a DeviceMesh('{DEVICE}', ...)"),
    ("torch_xla.distributed.zero_redundancy_optimizer", "sharding",
     "torch.distributed.optim.ZeroRedundancyOptimizer"),
)
_OTHER = (f"no TorchTPU counterpart in {TPU_WHEEL}'s torch.tpu table; replace it with the "
          f"PyTorch API it wraps, or drop it")

#: Callables whose ``'xla'`` argument is not a device but names an AMP device type, a
#: process group backend or a compile backend.
_AMP_CALLS = frozenset({"torch.autocast", "torch.amp.GradScaler", "torch.cuda.amp.GradScaler",
                        "torch.cpu.amp.autocast"})
_PG_CALLS = frozenset({"torch.distributed.init_process_group", "torch.distributed.new_group"})
_COMPILE_CALLS = frozenset({"torch.compile", "torch._dynamo.optimize"})
_XLA_COMPILE_BACKENDS = frozenset({"openxla", "openxla_eval", "torchxla_trace_once"})


def classify(qualname: str) -> tuple[str, str]:
    """(category, advice) for a torch_xla qualified name."""
    for pattern, category, advice in COUNTERPARTS:
        if pattern.endswith((".", "_")):
            if qualname.startswith(pattern):
                return category, advice
        elif qualname == pattern or qualname.startswith(pattern + "."):
            return category, advice
    return "other", _OTHER


@dataclass(frozen=True)
class Use:
    """One use of torch_xla in the checked file: where, what, and its counterpart."""

    node: nodes.NodeNG
    category: str
    what: str
    fix: str


def _is_xla_string(value: str | None) -> bool:
    return value is not None and (value == "xla" or value.startswith("xla:"))


_USES: weakref.WeakKeyDictionary[ModuleContext, list[Use]] = weakref.WeakKeyDictionary()


def torch_xla_uses(ctx: ModuleContext) -> list[Use]:
    """Every use of torch_xla in the module, classified (computed once per file).

    A use is an ``import``/``from ... import`` of torch_xla, the longest
    Name/Attribute chain that resolves to a torch_xla name, a
    ``.per_device_loader()`` call, or an ``'xla'`` device string (or ``'xla'``
    AMP device, process-group backend, compile backend).
    """
    cached = _USES.get(ctx)
    if cached is not None:
        return cached
    out: list[Use] = []
    an = ctx.analyzer
    if an is None:
        _USES[ctx] = out
        return out
    for node in an.module_nodes((nodes.Import, nodes.ImportFrom, nodes.Attribute, nodes.Name,
                                 nodes.Const)):
        use = _use(an, node)
        if use is not None:
            out.append(use)
    _USES[ctx] = out
    return out


def _is_torch_xla(name: str) -> bool:
    return name == "torch_xla" or name.startswith(("torch_xla.", "torch_xla_py"))


def _use(an: Any, node: nodes.NodeNG) -> Use | None:
    if isinstance(node, nodes.Import):
        names = [canonical(n) for n, _ in node.names if _is_torch_xla(canonical(n))]
        return Use(node, "import", f"import {', '.join(names)}", "") if names else None
    if isinstance(node, nodes.ImportFrom):
        if node.level or not _is_torch_xla(canonical(node.modname)):
            return None
        return Use(node, "import", f"from {canonical(node.modname)} import ...", "")
    if isinstance(node, nodes.Const):
        return _string_use(an, node)
    parent = node.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is node:
        return None  # the longest chain is the use
    if isinstance(node, nodes.Attribute) and node.attrname == "per_device_loader" and \
            isinstance(parent, nodes.Call) and parent.func is node:
        return Use(node, "loader", "per_device_loader()",
                   classify("torch_xla.distributed.parallel_loader.")[1])
    q = an.qualname(node)
    if not q or not _is_torch_xla(q):
        return None
    q = canonical(q)
    category, fix = classify(q)
    return Use(node, category, short_name(q), fix)


def _string_use(an: Any, node: nodes.Const) -> Use | None:
    value = node.value if isinstance(node.value, str) else None
    parent = node.parent
    call = parent if isinstance(parent, nodes.Call) else (
        parent.parent if isinstance(parent, nodes.Keyword) else None)
    func = an.qualname(call.func) if isinstance(call, nodes.Call) else None
    func = canonical(func) if func else None
    if value in _XLA_COMPILE_BACKENDS and func in _COMPILE_CALLS:
        return Use(node, "graph", f"torch.compile(backend={value!r})",
                   ("torch.compile(fn) without backend: TorchTPU makes the TPU backend the "
                   "default"))
    if isinstance(value, str) and value.startswith("xla://") and func in _PG_CALLS:
        return Use(node, "collectives", f"init_method={value!r}",
                   f"delete it: {LAUNCH_ENV} sets the rendezvous environment")
    if not _is_xla_string(value) or isinstance(parent, nodes.Expr):
        return None
    if func in _AMP_CALLS:
        return Use(node, "amp", f"{short_name(func or '')}({value!r})",
                   f"torch.amp.autocast('{DEVICE}') (default dtype {AUTOCAST_DTYPE})"
                   if "autocast" in (func or "") else
                   f"drop it: autocast on '{DEVICE}' defaults to {AUTOCAST_DTYPE}, which needs "
                   f"no loss scaling")
    if func in _PG_CALLS:
        return Use(node, "collectives", f"process group backend {value!r}",
                   f"torch.distributed.init_process_group('{PG_BACKEND}')")
    return Use(node, "device", f"the {value!r} device", f"'{DEVICE}' (torch.device('{DEVICE}'))")


# ------------------------------------------------------------------------- the rules
def _facts_gate(f: Any) -> bool:
    """Necessary condition of the counterpart rules: torch_xla or an 'xla' string is spelled."""
    return f.any_ident(("torch_xla", "torch_xla_py")) or any(
        _is_xla_string(s) or s.startswith("xla://") or s in _XLA_COMPILE_BACKENDS
        for s in f.strings)


class _MigrationRule(Rule):
    """Base of the XLA6xx band: silent unless ``--xla-migrate=torchtpu``."""

    measurable = False
    #: also checked in files that use only TorchTPU (no torch_xla, no 'xla' device)
    torchtpu_code: ClassVar[bool] = False
    versions = "all"  # the band is about leaving torch_xla, whichever release it is

    def check(self) -> Iterator[Finding]:
        if self.ctx.options.migrate != MIGRATE:
            return
        yield from self.migrate()

    def migrate(self) -> Iterator[Finding]:
        """Yield the findings (only called under ``--xla-migrate=torchtpu``)."""
        raise NotImplementedError


_NO_TPU = (f"Off unless `--xla-migrate=torchtpu`. Nothing in this band can be measured "
           f"without a TPU: the counterparts and traps are read from the sources of the "
           f"{TPU_WHEEL} wheel (never run here), so the rule has no `checks/` pair.")


class _Counterpart(_MigrationRule):
    category: ClassVar[str]
    gate = staticmethod(_facts_gate)

    def migrate(self) -> Iterator[Finding]:
        for use in torch_xla_uses(self.ctx):
            if use.category == self.category:
                yield self.finding(use.node, what=use.what, fix=use.fix)


class TorchTpuImport(_Counterpart):
    """XLA600: an import of torch_xla, which TorchTPU does not use.

    Source: torch-tpu 0.2.0 wheel: ``entry_points.txt`` (``[torch.backends] torch_tpu =
    torch_tpu._loader:load``: torch's device-backend autoload imports it with ``import
    torch``) and ``torch_tpu/_loader.py`` (``public_api.install()`` adds ``torch.tpu``).
    """

    code = "XLA600"
    name = "torchtpu-import"
    category = "import"
    message = ("TorchTPU migration, import: `{what}`: TorchTPU does not use torch_xla (with "
               "torch-tpu installed, `import torch` loads torch.tpu); delete the import once no "
               "torch_xla API is left")
    explanation = f"""\
With torch-tpu installed, `import torch` loads TorchTPU through torch's device-backend
autoload and adds `torch.tpu`; torch_xla is not imported at all. Each import of
torch_xla is one line to delete once the APIs it brings are replaced (the other
XLA6xx findings say with what). {_NO_TPU}

**Example**
```python
import torch_xla.core.xla_model as xm
```
**Use instead**
```python
import torch  # torch.tpu comes with it
```
"""
    source = _sources("compile_patch") + _autoload_source()


class TorchTpuDevice(_Counterpart):
    """XLA601: a torch_xla device API or an ``'xla'`` device string.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_loader.py``
    (``torch.utils.rename_privateuse1_backend("tpu")``) and the ``torch.tpu`` table of
    ``torch_tpu/_internal/public_api.py``.
    """

    code = "XLA601"
    name = "torchtpu-device"
    category = "device"
    message = "TorchTPU migration, device: {what} -> {fix}"
    explanation = f"""\
TorchTPU renames PyTorch's PrivateUse1 backend to `'{DEVICE}'` and generates
`Tensor.is_{DEVICE}`, `Tensor.{DEVICE}()` and `Module.{DEVICE}()`: the device is
`torch.device('{DEVICE}')`, one TPU per process (`torch.tpu.set_device` refuses to
switch to another index). Device counts come from `{_COUNT}()`; TorchTPU makes
`torch.tpu.device_count()` internal (see XLA622). {_NO_TPU}

**Example**
```python
device = xm.xla_device()
model.to("xla")
```
**Use instead**
```python
device = torch.device("{DEVICE}")
model.to(device)
```
"""
    source = _sources("device_name", "device_methods",
                      public_names=("torch.tpu.device_count", "torch.tpu.set_device"))


class TorchTpuGraph(_Counterpart):
    """XLA602: a torch_xla step barrier, graph compilation or eager-mode switch.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/sync/__init__.py`` (deferred eager
    ops run when data is read), ``torch_tpu/_loader.py`` (``torch.compile`` patched to the
    TPU backend, ``dynamic=False``).
    """

    code = "XLA602"
    name = "torchtpu-graph-boundary"
    category = "graph"
    message = "TorchTPU migration, graph boundary: {what} -> {fix}"
    explanation = f"""\
torch_xla records a lazy graph until `torch_xla.sync()`/`xm.mark_step()` cuts and runs
it. TorchTPU runs eagerly: its ops are deferred and fused, and they compile and run when
a value is needed (`.item()`, `.cpu()`), so the barrier has no counterpart and is
deleted. For one graph per step, compile the step with `torch.compile` (TorchTPU
patches it: the TPU backend by default, `dynamic=False`). `xm.wait_device_ops()`
becomes `{_SYNC}()`. {_NO_TPU}

**Example**
```python
loss.backward()
optimizer.step()
xm.mark_step()
```
**Use instead**
```python
loss.backward()
optimizer.step()
```
"""
    source = _sources("compile_defaults", "compile_patch",
                      public_names=("torch.tpu.synchronize", "torch.tpu.set_eager_mode"))


class TorchTpuLoader(_Counterpart):
    """XLA603: ``MpDeviceLoader``/``ParallelLoader``, which TorchTPU has no counterpart of.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/public_api.py`` (no loader in the
    ``torch.tpu`` table).
    """

    code = "XLA603"
    name = "torchtpu-data-loader"
    category = "loader"
    message = "TorchTPU migration, data loader: {what} -> {fix}"
    explanation = f"""\
`pl.MpDeviceLoader` uploads batches in a background thread and inserts the step
barrier. TorchTPU's `torch.tpu` table has no loader: iterate the ordinary
`torch.utils.data.DataLoader` and move each batch with `.to('{DEVICE}')`; no barrier
is needed (see XLA602). {_NO_TPU}

**Example**
```python
for x, y in pl.MpDeviceLoader(loader, device):
    ...
```
**Use instead**
```python
for x, y in loader:
    x, y = x.to("{DEVICE}"), y.to("{DEVICE}")
```
"""
    source = _sources(public_names=("torch.tpu.device",))


class TorchTpuCollectives(_Counterpart):
    """XLA604: torch_xla gradient reduction, collectives and the ``'xla'`` process group.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_loader.py`` (``register_backend("tpu")``
    for ``torch.distributed``), ``torch_tpu/_internal/distributed/spmd_util.py`` (eager
    collectives such as ``torch.distributed.all_reduce``).
    """

    code = "XLA604"
    name = "torchtpu-collectives"
    category = "collectives"
    message = "TorchTPU migration, collectives: {what} -> {fix}"
    explanation = f"""\
TorchTPU registers a `torch.distributed` process group backend named `'{PG_BACKEND}'`;
gradients are reduced the PyTorch way: `DistributedDataParallel` around the model and a
plain `optimizer.step()` instead of `xm.optimizer_step(optimizer)` or
`xm.reduce_gradients`. torch_xla's collectives map to `torch.distributed`'s
(`all_reduce`, `all_gather_into_tensor`, `reduce_scatter_tensor`, `barrier`). {_NO_TPU}

**Example**
```python
xm.optimizer_step(optimizer)
```
**Use instead**
```python
model = torch.nn.parallel.DistributedDataParallel(model)  # once, after init_process_group
optimizer.step()
```
"""
    source = _sources("process_group_backends",
                      public_names=("torch.tpu.distributed.spmd_safe",))


class TorchTpuLauncher(_Counterpart):
    """XLA605: ``xmp.spawn``/``torch_xla.launch``.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/distributed/distributed.py``
    (``set_tpu_launch_env``: "composes with torchrun, elastic_launch,
    torch.multiprocessing.spawn"; ``python -m torch.tpu.distributed`` prints the
    launch environment).
    """

    code = "XLA605"
    name = "torchtpu-launcher"
    category = "launch"
    message = "TorchTPU migration, launcher: {what} -> {fix}"
    explanation = f"""\
TorchTPU does not spawn workers itself. `{LAUNCH_ENV}()` decides, in the parent
process, the environment every rank must agree on, and then any PyTorch launcher
works: `torch.multiprocessing.spawn(fn, nprocs=N)`, or `torchrun` after
`eval "$({LAUNCH_CLI})"` in the shell. Each worker joins with
`torch.distributed.init_process_group('{PG_BACKEND}')`. Do not fork (see XLA623).
{_NO_TPU}

**Example**
```python
xmp.spawn(_mp_fn, args=(cfg,))
```
**Use instead**
```python
torch.tpu.distributed.set_tpu_launch_env(nproc_per_node=4)
torch.multiprocessing.spawn(_mp_fn, args=(cfg,), nprocs=4)
```
"""
    source = _sources("launch_env_cli", public_names=("torch.tpu.distributed.set_tpu_launch_env",))


class TorchTpuRanks(_Counterpart):
    """XLA606: torch_xla world size and ordinals.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/distributed/distributed.py``
    (the launch environment: ``WORLD_SIZE``, ``NODE_RANK``, ``NNODES``) and the ``'tpu'``
    process group of ``torch_tpu/_loader.py``.
    """

    code = "XLA606"
    name = "torchtpu-ranks"
    category = "ranks"
    message = "TorchTPU migration, ranks: {what} -> {fix}"
    explanation = f"""\
With TorchTPU, ranks are `torch.distributed`'s: `torch.distributed.get_world_size()`
and `get_rank()` after `init_process_group('{PG_BACKEND}')`; the local rank is the one
the launcher gives (`LOCAL_RANK` under torchrun, the first argument under
`torch.multiprocessing.spawn`). {_NO_TPU}

**Example**
```python
rank, world = xr.global_ordinal(), xr.world_size()
```
**Use instead**
```python
rank, world = torch.distributed.get_rank(), torch.distributed.get_world_size()
```
"""
    source = _sources("launch_env_cli", "process_group_backends")


class TorchTpuAmp(_Counterpart):
    """XLA607: torch_xla autocast, GradScaler and syncfree optimizers, ``autocast('xla')``.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/device/_device_module.py``
    (``_autocast_dtype = torch.bfloat16``, ``get_amp_supported_dtype``).
    """

    code = "XLA607"
    name = "torchtpu-amp"
    category = "amp"
    message = "TorchTPU migration, mixed precision: {what} -> {fix}"
    explanation = f"""\
TorchTPU implements autocast for the `'{DEVICE}'` device type with a default dtype of
{AUTOCAST_DTYPE}: `torch.amp.autocast('{DEVICE}')`. bfloat16 has float32's range, so no
GradScaler is needed, and the syncfree optimizers (which exist to spare torch_xla's
GradScaler a host read) become the ordinary `torch.optim` ones. {_NO_TPU}

**Example**
```python
with torch.autocast("xla", dtype=torch.bfloat16):
    loss = model(x)
optimizer = syncfree.AdamW(model.parameters())
```
**Use instead**
```python
with torch.amp.autocast("{DEVICE}"):
    loss = model(x)
optimizer = torch.optim.AdamW(model.parameters())
```
"""
    source = _sources("autocast_default_dtype", public_names=("torch.tpu.get_amp_supported_dtype",))


class TorchTpuCheckpoint(_Counterpart):
    """XLA608: ``xm.save`` and torch_xla's serialization helpers.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_loader.py`` (TPU tensors are PrivateUse1
    device tensors) and ``torch_tpu/_internal/public_api.py`` (no save in ``torch.tpu``).
    """

    code = "XLA608"
    name = "torchtpu-checkpoint"
    category = "checkpoint"
    message = "TorchTPU migration, checkpoint: {what} -> {fix}"
    explanation = f"""\
`xm.save` moves XLA tensors to the CPU and saves on the master ordinal. TorchTPU has no
save helper: its tensors are ordinary PyTorch device tensors, so `torch.save` works;
move them to the CPU first when the checkpoint must load on a machine without a TPU,
and save on rank 0 only. Sharded state goes through `torch.distributed.checkpoint`.
{_NO_TPU}

**Example**
```python
xm.save(model.state_dict(), "model.pt")
```
**Use instead**
```python
if torch.distributed.get_rank() == 0:
    torch.save({{k: v.cpu() for k, v in model.state_dict().items()}}, "model.pt")
```
"""
    source = _sources("device_name")


class TorchTpuStepClosure(_Counterpart):
    """XLA609: ``xm.add_step_closure``, which TorchTPU has no counterpart of.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/sync/__init__.py`` (reading a
    deferred tensor forces compilation, execution, synchronization and transfer).
    """

    code = "XLA609"
    name = "torchtpu-step-closure"
    category = "closure"
    message = "TorchTPU migration, step closure: {what} -> {fix}"
    explanation = f"""\
A step closure runs after torch_xla's barrier, when its tensors are materialized.
TorchTPU runs eagerly and has no closures: call the function directly after the step.
Reading a value (`loss.item()`) still forces the deferred ops to compile, run and copy
to the host, so read it every N steps, not every step. {_NO_TPU}

**Example**
```python
xm.add_step_closure(log, args=(loss,))
```
**Use instead**
```python
if step % 100 == 0:
    log(loss)
```
"""
    source = _sources(public_names=("torch.tpu.synchronize",))


class TorchTpuDebug(_Counterpart):
    """XLA610: ``torch_xla.debug`` (metrics, profiler), which TorchTPU replaces by
    ``torch.profiler``.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_loader.py`` (``profiler.register_kineto_backend()``),
    ``torch_tpu/_internal/public_api.py`` (``torch.tpu.profiler.TpuProfilerConfig``; no
    metrics in the table).
    """

    code = "XLA610"
    name = "torchtpu-debug"
    category = "debug"
    message = "TorchTPU migration, debugging: {what} -> {fix}"
    explanation = f"""\
torch_xla's `debug.metrics` counters (compilations, executions, transfers) have no
public TorchTPU counterpart in {TPU_WHEEL}: the cache statistics are private. TorchTPU
registers a Kineto backend for `torch.profiler` and exports
`torch.tpu.profiler.TpuProfilerConfig`. {_NO_TPU}

**Example**
```python
print(met.short_metrics_report())
```
**Use instead**
```python
with torch.profiler.profile() as prof:
    train_step()
print(prof.key_averages().table())
```
"""
    source = _sources("profiler_backend", public_names=("torch.tpu.profiler.TpuProfilerConfig",))


class TorchTpuSharding(_Counterpart):
    """XLA611: SPMD (``torch_xla.distributed.spmd``, ``xr.use_spmd``), torch_xla's FSDP and
    ZeRO.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/distributed/_distributed_module.py``
    (``topology_aware_mesh``), ``torch_tpu/_internal/distributed/from_local.py`` (DTensor).
    """

    code = "XLA611"
    name = "torchtpu-sharding"
    category = "sharding"
    message = "TorchTPU migration, sharding: {what} -> {fix}"
    explanation = f"""\
torch_xla's SPMD annotates tensors with `mark_sharding` on a `Mesh`. TorchTPU uses
PyTorch's own distributed tensors: `torch.distributed.tensor` (DTensor,
`distribute_tensor`, `distribute_module`) on a `DeviceMesh('{DEVICE}', ...)` whose rank
layout `{MESH}(shape)` computes from the TPU topology; FSDP becomes
`torch.distributed.fsdp.fully_shard`. {_NO_TPU}

**Example**
```python
xr.use_spmd()
mesh = xs.Mesh(device_ids, (4, 2), ("data", "model"))
xs.mark_sharding(w, mesh, ("data", None))
```
**Use instead**
```python
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import Shard, distribute_tensor
mesh = DeviceMesh("{DEVICE}", torch.tpu.distributed.topology_aware_mesh((4, 2)))
w = distribute_tensor(w, mesh, [Shard(0)])
```
"""
    source = _sources(public_names=("torch.tpu.distributed.topology_aware_mesh",))


class TorchTpuNoCounterpart(_Counterpart):
    """XLA612: any other torch_xla API: TorchTPU has no counterpart of it.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/public_api.py`` (the whole public
    ``torch.tpu`` table).
    """

    code = "XLA612"
    name = "torchtpu-no-counterpart"
    category = "other"
    message = "TorchTPU migration: {what} -> {fix}"
    explanation = f"""\
The catch-all of the band: a torch_xla API none of XLA601-XLA611 maps. {TPU_WHEEL}'s
public `torch.tpu` table (`torch.tpu`, `.compiler`, `.distributed`, `.ops`,
`.optimizers`, `.pallas`, `.profiler`) has no counterpart; use the PyTorch API it wraps
or drop it. {_NO_TPU}

**Example**
```python
cache = xr.initialize_cache("/tmp/xla_cache")
```
**Use instead**
```python
# TorchTPU keeps its own compilation cache; nothing to call.
```
"""
    source = _sources()


# ------------------------------------------------------------------------------- traps
def _tpu_gate(f: Any) -> bool:
    return "tpu" in f.idents or any(s == "tpu" or s.startswith("tpu:") for s in f.strings)


class _Trap(_MigrationRule):
    torchtpu_code = True


def _compile_calls(ctx: ModuleContext) -> Iterator[nodes.Call]:
    an = ctx.analyzer
    if an is None:
        return
    for call in an.module_nodes(nodes.Call):
        if canonical(an.qualname(call.func) or "") == "torch.compile":
            yield call
    for func in an.module_nodes(nodes.FunctionDef):
        for dec in func.decorators.nodes if func.decorators else ():
            if isinstance(dec, nodes.Call) and canonical(an.qualname(dec.func) or "") == \
                    "torch.compile":
                yield dec


class TorchTpuDynamicCompile(_Trap):
    """XLA620: ``torch.compile(..., dynamic=True)``, which TorchTPU's backend rejects.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/compile/_backend.py``
    (``raise NotImplementedError("TPU backend does not support torch.compile(...,
    dynamic=True, ...)")``).
    """

    code = "XLA620"
    name = "torchtpu-dynamic-compile"
    gate = staticmethod(lambda f: "compile" in f.idents and "dynamic" in f.keywords)
    message = ("TorchTPU trap: torch.compile(..., dynamic=True) raises {exc} when the TPU "
               "backend compiles the graph ({where}); leave dynamic unset (TorchTPU makes it "
               "False) and bound the shapes (pad to fixed sizes)")
    explanation = f"""\
`dynamic=True` makes Dynamo trace with symbolic shapes, and TorchTPU's backend refuses
them: `{_trap("compile_dynamic_true").get("message", "")}` TorchTPU's patched
`torch.compile` already sets `dynamic=False` for the TPU backend; a new input shape then
means a new compilation, so keep shapes fixed (XLA101/XLA102). {_NO_TPU}

**Example**
```python
step = torch.compile(train_step, dynamic=True)
```
**Use instead**
```python
step = torch.compile(train_step)
```
"""
    source = _sources("compile_dynamic_true", "compile_defaults")

    def migrate(self) -> Iterator[Finding]:
        trap = _trap("compile_dynamic_true")
        if not trap:
            return
        for call in _compile_calls(self.ctx):
            kw = keyword(call, "dynamic")
            if isinstance(kw, nodes.Const) and kw.value is True:
                yield self.finding(kw, exc=trap["raises"], where=cite("compile_dynamic_true"))


class TorchTpuInductorBackend(_Trap):
    """XLA621: ``torch.compile(..., backend="inductor")``, which TorchTPU rejects for TPU inputs.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_loader.py`` (``_tpu_inductor_wrapper_call``
    raises ``RuntimeError(_INDUCTOR_TPU_ERROR)``).
    """

    code = "XLA621"
    name = "torchtpu-inductor-backend"
    gate = staticmethod(lambda f: "compile" in f.idents and "inductor" in f.strings)
    message = ("TorchTPU trap: torch.compile(..., backend='inductor') raises {exc} on TPU inputs "
               "({where}); drop backend= (TorchTPU's TPU backend is the default) or pass "
               "backend='tpu'")
    explanation = f"""\
TorchTPU wraps Inductor: called with a tensor on the TPU it raises
`{_trap("compile_inductor_tpu_inputs").get("message", "")}` The default backend (no
`backend=` argument) is TorchTPU's. Not reported when `options={{'tpu_backend':
'pallas'}}` is passed, TorchTPU's own escape hatch. {_NO_TPU}

**Example**
```python
model = torch.compile(model, backend="inductor")
```
**Use instead**
```python
model = torch.compile(model)
```
"""
    source = _sources("compile_inductor_tpu_inputs")

    def migrate(self) -> Iterator[Finding]:
        trap = _trap("compile_inductor_tpu_inputs")
        if not trap:
            return
        for call in _compile_calls(self.ctx):
            backend = keyword(call, "backend")
            if const_str(backend) != "inductor":
                continue
            options = keyword(call, "options")
            if options is not None and "pallas" in options.as_string():
                continue
            yield self.finding(backend, exc=trap["raises"], where=cite("compile_inductor_tpu_inputs"))


def _internal_apis() -> dict[str, dict[str, Any]]:
    return {name: entry for name, entry in _tpu()["public"].items()
            if entry.get("stage") == "internal_or_experimental"}


class TorchTpuInternalDeviceApi(_Trap):
    """XLA622: a ``torch.tpu`` device API that raises when user code calls it.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/device/_device_module.py``
    (``@annotations.internal_or_experimental(internal_when=get_torch_version() >= (2, 11),
    prefer="torch.accelerator.synchronize", strict=...)`` on ``synchronize``,
    ``is_available``, ``device_count`` ...) and ``torch_tpu/_internal/utils/annotations.py``.
    """

    code = "XLA622"
    name = "torchtpu-internal-device-api"
    gate = staticmethod(lambda f: "tpu" in f.idents)
    message = ("TorchTPU trap: {what}() is internal to TorchTPU {when} and raises RuntimeError "
               "when user code calls it ({where}); use {prefer}()")
    explanation = f"""\
torch-tpu {TPU_VERSION} supports torch `{_tpu()["torch_requirement"]}`. With those
releases, most `torch.tpu` device functions are *internal*: they exist for PyTorch's
own use, and a call from any other module raises
`RuntimeError: ... is internal to TorchTPU and can only be called by the PyTorch
framework (torch and torch_tpu). Use torch.accelerator.... instead.` (unless
`TORCH_TPU_ALLOW_LEGACY_DEVICE_APIS=1`, which only warns). The message names the
`torch.accelerator` API TorchTPU's decorator prefers. Calls inside `torch.compile`d
functions are not checked by TorchTPU and are not reported. {_NO_TPU}

**Example**
```python
if torch.tpu.is_available():
    torch.tpu.synchronize()
```
**Use instead**
```python
if torch.accelerator.is_available():
    torch.accelerator.synchronize()
```
"""
    source = _sources("internal_api_error", public_names=tuple(sorted(_internal_apis())))

    def migrate(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        apis = _internal_apis()
        for call in an.module_nodes(nodes.Call):
            q = canonical(an.qualname(call.func) or "")
            entry = apis.get(q)
            if entry is None or an.steps.in_compiled_function(call):
                continue
            since = entry.get("internal_from_torch") or []
            when = ("with every supported torch" if entry.get("internal_for_all_supported_torch")
                    else f"with torch >= {'.'.join(map(str, since))}" if since else "")
            yield self.finding(call, what=q, when=when, prefer=entry.get("prefer") or "?",
                               where=f"{entry['file']}:{entry['line']}")


class TorchTpuFork(_Trap):
    """XLA623: the ``fork`` start method, whose children cannot use the TPU.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/device/_device_module.py``
    (``RuntimeError("cannot access or re-initialize TPU in a forked subprocess. To use TPU
    with multiprocessing, you must use the 'spawn' start method")``).
    """

    code = "XLA623"
    name = "torchtpu-fork"
    gate = staticmethod(lambda f: "fork" in f.strings or "fork" in f.idents)
    message = ("TorchTPU trap: {what} starts forked children, and a forked child that touches "
               "the TPU raises {exc} ({where}); use the 'spawn' start method")
    explanation = f"""\
TorchTPU refuses to initialize the TPU in a forked child:
`{_trap("forked_child").get("message", "")}`. Reported: `os.fork()`, and `'fork'` given to
`multiprocessing`/`torch.multiprocessing` (`set_start_method`, `get_context`,
`start_processes(start_method=...)`), to `xmp.spawn(start_method=...)` or to a
`DataLoader(multiprocessing_context=...)`. A DataLoader whose workers only build CPU
tensors is fine; not reported. {_NO_TPU}

**Example**
```python
torch.multiprocessing.set_start_method("fork")
```
**Use instead**
```python
torch.multiprocessing.set_start_method("spawn")
```
"""
    source = _sources("forked_child")

    _FORK_CALLS = frozenset({"set_start_method", "get_context", "start_processes", "spawn",
                             "DataLoader"})

    def migrate(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        trap = _trap("forked_child")
        if an is None or not trap:
            return
        for call in an.module_nodes(nodes.Call):
            q = canonical(an.qualname(call.func) or "")
            if q == "os.fork":
                yield self.finding(call, what="os.fork()", exc=trap["raises"],
                                   where=cite("forked_child"))
                continue
            last = q.rsplit(".", 1)[-1]
            if last not in self._FORK_CALLS or not q.startswith(
                    ("multiprocessing.", "torch.multiprocessing.", "torch.utils.data.",
                     "torch_xla.")):
                continue
            candidates = [("", a) for a in call.args[:1]] + [
                (f"{k.arg}=", k.value) for k in call.keywords or ()
                if k.arg in ("method", "start_method", "multiprocessing_context")]
            for label, arg in candidates:
                if const_str(arg) == "fork":
                    yield self.finding(arg, what=f"{short_name(q)}({label}'fork')",
                                       exc=trap["raises"], where=cite("forked_child"))


def _compile_hostile() -> dict[str, dict[str, Any]]:
    return {name: entry for name, entry in _tpu()["public"].items()
            if entry.get("graph_break") or entry.get("forbidden_in_compile")}


class TorchTpuUntraceableInCompile(_Trap):
    """XLA624: ``torch.tpu.precision(...)`` (graph break) or a ``torch.compile``-forbidden
    ``torch.tpu`` API inside compiled code.

    Source: torch-tpu 0.2.0 wheel: ``torch_tpu/_internal/precision/precision.py``
    (``torch._dynamo.graph_break(msg="`precision` context manager is not yet traceable
    ...")``), ``torch_tpu/_internal/utils/annotations.py`` (``forbid_in_torch_compile``).
    """

    code = "XLA624"
    name = "torchtpu-untraceable-in-compile"
    gate = staticmethod(lambda f: "tpu" in f.idents and "compile" in f.idents)
    message = "TorchTPU trap: {what} inside a torch.compile'd function {effect} ({where}); {fix}"
    explanation = f"""\
Some `torch.tpu` APIs cannot be traced. `torch.tpu.precision(...)` calls
`torch._dynamo.graph_break`: the surrounding frame falls back to eager execution (and
raises under `fullgraph=True`). APIs marked `forbid_in_torch_compile`
(`torch.tpu.set_eager_mode`, `torch.tpu.compiler.custom_compiler_options`) make Dynamo
raise as soon as it traces them. Reported inside functions decorated with, or handed
to, `torch.compile`. {_NO_TPU}

**Example**
```python
@torch.compile
def step(x):
    with torch.tpu.precision(torch.tpu.Precision.HIGHEST):
        return x @ w
```
**Use instead**
```python
def step(x):
    return x @ w

with torch.tpu.precision(torch.tpu.Precision.HIGHEST):
    out = torch.compile(step)(x)  # or set the precision outside the compiled region
```
"""
    source = _sources(public_names=tuple(sorted(_compile_hostile())))

    def migrate(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        hostile = _compile_hostile()
        for call in an.module_nodes(nodes.Call):
            q = canonical(an.qualname(call.func) or "")
            entry = hostile.get(q)
            if entry is None or not an.steps.in_compiled_function(call):
                continue
            if entry.get("graph_break"):
                effect = "forces a graph break: the frame falls back to eager execution"
                fix = "set it outside the compiled function"
            else:
                effect = "is forbidden: Dynamo raises when it traces it"
                fix = "call it outside the compiled function"
            yield self.finding(call, what=f"{q}()", effect=effect, fix=fix,
                               where=f"{entry['file']}:{entry.get('graph_break_line') or entry['line']}")


def _deprecated_apis() -> dict[str, dict[str, Any]]:
    return {name: entry for name, entry in _tpu()["public"].items()
            if entry.get("stage") == "deprecated"}


class TorchTpuDeprecatedApi(_Trap):
    """XLA625: a ``torch.tpu`` API that torch-tpu itself deprecates.

    Source: torch-tpu 0.2.0 wheel: ``@annotations.deprecated(version=..., reason=...)`` on the
    targets of ``torch_tpu/_internal/public_api.py`` (``torch.tpu.topology_aware_mesh``).
    """

    code = "XLA625"
    name = "torchtpu-deprecated-api"
    gate = staticmethod(lambda f: "tpu" in f.idents)
    message = "TorchTPU: {what} is deprecated as of TorchTPU {since} ({where}); {fix}"
    explanation = f"""\
TorchTPU marks APIs it will remove with `@annotations.deprecated`; the call warns
once with a DeprecationWarning. The replacement is the one the decorator's reason names.
{_NO_TPU}

**Example**
```python
ranks = torch.tpu.topology_aware_mesh((4, 2))
```
**Use instead**
```python
ranks = torch.tpu.distributed.topology_aware_mesh((4, 2))
```
"""
    source = _sources(public_names=tuple(sorted(_deprecated_apis())))

    def migrate(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        deprecated = _deprecated_apis()
        for node in an.module_nodes(nodes.Attribute):
            if isinstance(node.parent, nodes.Attribute) and node.parent.expr is node:
                continue
            q = canonical(an.qualname(node) or "")
            entry = deprecated.get(q)
            if entry is None:
                continue
            repl = entry.get("replacement")
            yield self.finding(node, what=q, since=entry.get("deprecated_in") or "?",
                               where=f"{entry['file']}:{entry['line']}",
                               fix=f"use {repl}" if repl else (entry.get("reason") or ""))


MIGRATION_RULES: tuple[type[Rule], ...] = (
    TorchTpuImport, TorchTpuDevice, TorchTpuGraph, TorchTpuLoader, TorchTpuCollectives,
    TorchTpuLauncher, TorchTpuRanks, TorchTpuAmp, TorchTpuCheckpoint, TorchTpuStepClosure,
    TorchTpuDebug, TorchTpuSharding, TorchTpuNoCounterpart,
    TorchTpuDynamicCompile, TorchTpuInductorBackend, TorchTpuInternalDeviceApi, TorchTpuFork,
    TorchTpuUntraceableInCompile, TorchTpuDeprecatedApi,
)
