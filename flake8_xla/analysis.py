"""astroid-backed questions that syntax alone cannot answer.

The :class:`Analyzer` works on an astroid tree of one module. It uses astroid
to resolve names through their scopes (``lookup``), including closures, class
attributes reached through ``self`` and the parameters of same-module
functions, and adds PyTorch/XLA knowledge on top: which values are lazy XLA
tensors, which loops are training or evaluation step loops, and which
functions are step closures.

Every answer is three-valued in spirit: ``True`` means the code shows it,
``False`` means "no or unknown". Inference never guesses a hazard: a name that
cannot be resolved, a recursion cycle or a depth limit gives ``False``.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Iterator

import astroid
from astroid import nodes, rebuilder

from flake8_xla.imports import ImportTable, canonical

MAX_DEPTH = 12          # nesting of value resolution before giving up ("unknown")
MAX_CALL_DEPTH = 3      # same-module calls followed from a step loop
WORK_BUDGET = 400_000   # inference steps per file; past it every answer is "unknown"

Env = frozenset  # frozenset[tuple[int, str]]: (id(FunctionDef), tainted param name)
NO_ENV: Env = Env()

# Tensor methods whose result lives on the host, not on the XLA device.
HOST_RESULT_METHODS = frozenset({
    "item", "tolist", "cpu", "numpy", "size", "dim", "numel", "nelement", "stride",
    "decode", "batch_decode",
    "is_contiguous", "data_ptr", "get_device", "element_size", "ndimension",
    "storage_offset", "is_floating_point", "is_complex", "__len__", "keys",
})
# Tensor attributes that are host metadata.
HOST_ATTRS = frozenset({"shape", "device", "dtype", "ndim", "requires_grad", "is_leaf",
                        "names", "layout", "is_cuda", "name", "training", "config",
                        "__class__", "__name__", "grad_fn", "param_groups", "is_xla",
                        "num_embeddings", "in_features", "out_features", "state"})
# Builtins that return host values whatever their argument.
HOST_BUILTINS = frozenset({"len", "str", "repr", "isinstance", "issubclass", "type", "id",
                           "hash", "print", "format", "int", "float", "bool", "round",
                           "hasattr", "callable", "range", "ord", "chr", "open"})
# Device-to-host reads: a call of one of these on a lazy tensor executes its graph.
SYNC_METHODS = frozenset({"item", "tolist", "cpu", "numpy"})
SCALAR_SYNC_METHODS = frozenset({"item", "tolist"})
SYNC_BUILTINS = frozenset({"float", "int", "bool"})
LOG_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception",
                         "log"})
MODULE_METHODS = frozenset({"parameters", "named_parameters", "train", "eval", "zero_grad",
                            "state_dict", "load_state_dict", "named_modules", "modules"})
PARAM_CONTAINERS = frozenset({"parameters", "named_parameters", "state_dict", "buffers",
                              "named_buffers"})

XLA_DEVICE_CALLS = frozenset({
    "torch_xla.device", "torch_xla.core.xla_model.xla_device", "torch_xla.runtime.xla_device",
})
XLA_LOADERS = frozenset({
    "torch_xla.distributed.parallel_loader.MpDeviceLoader",
    "torch_xla.distributed.parallel_loader.ParallelLoader",
    "torch_xla.distributed.parallel_loader.PerDeviceLoader",
})
BARRIER_CALLS = frozenset({
    "torch_xla.sync", "torch_xla.core.xla_model.mark_step", "torch_xla._XLAC._xla_step_marker",
})
STEP_CLOSURE = "torch_xla.core.xla_model.add_step_closure"
OPTIMIZER_STEP = "torch_xla.core.xla_model.optimizer_step"
COMPILE_WRAPPERS = frozenset({"torch_xla.compile", "torch_xla.step",
                              "torch_xla.experimental.compile", "torch.compile"})
LOOP_WRAPPERS = frozenset({"builtins.enumerate", "enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm",
                           "itertools.islice", "itertools.cycle", "zip", "iter", "tqdm.trange"})
MODEL_NAMES = frozenset({"model", "net", "network", "module", "encoder", "decoder",
                         "generator", "discriminator", "backbone", "classifier"})
# Imported callables that build objects, never lazy tensors.
OBJECT_FACTORIES = ("torch.optim", "torch.utils", "transformers", "accelerate", "datasets",
                    "torch_xla.distributed", "torch_xla.amp", "tqdm", "itertools",
                    "collections", "argparse")
INDEX_NAMES = frozenset({"i", "j", "k", "n", "idx", "index", "step", "it", "iteration",
                         "batch_idx", "batch_index", "step_idx", "steps", "global_step"})
# Frameworks that place the step barrier themselves (accelerate's and
# Lightning's XLA loaders wrap MpDeviceLoader).
MANAGED_FRAMEWORKS = ("accelerate", "lightning", "pytorch_lightning", "lightning_fabric")


def source_key(node: nodes.NodeNG) -> str | None:
    """Dotted spelling of a Name/Attribute chain (``self.model``), else None."""
    if isinstance(node, nodes.Name):
        return node.name
    if isinstance(node, nodes.Attribute):
        base = source_key(node.expr)
        return f"{base}.{node.attrname}" if base else None
    return None


def const_str(node: nodes.NodeNG | None) -> str | None:
    """The value of a string literal, else None."""
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        return node.value
    return None


def keyword(call: nodes.Call, name: str) -> nodes.NodeNG | None:
    """The value passed to keyword ``name`` of ``call``, else None."""
    for kw in call.keywords or ():
        if kw.arg == name:
            return kw.value
    return None


_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def words_of(node: nodes.NodeNG) -> set[str]:
    """Lower-case words of the identifiers and string literals under ``node``.

    ``args.use_tpu`` gives {args, use, tpu}; ``torch.cuda.is_available()`` gives
    {torch, cuda, is, available}; ``num_samples`` does not contain "amp".
    """
    out: set[str] = set()
    for sub in node.nodes_of_class((nodes.Name, nodes.Attribute, nodes.Const)):
        text = (sub.name if isinstance(sub, nodes.Name)
                else sub.attrname if isinstance(sub, nodes.Attribute)
                else sub.value if isinstance(sub.value, str) else "")
        if isinstance(sub, nodes.Const) and text.isupper():
            # 'CUDA'/'TPU' as returned by xm.xla_device_hw(): XLA hardware kinds.
            out.update("xla_hw_" + w.lower() for w in _WORD_SPLIT.split(text) if w)
            continue
        out.update(w.lower() for w in _WORD_SPLIT.split(text) if w)
    return out


def mentions(node: nodes.NodeNG, *words: str) -> bool:
    """True when a word of ``node`` (see :func:`words_of`) is one of ``words`` or its plural."""
    found = words_of(node)
    return any(w in found or w + "s" in found for w in words)


XLA_WORDS = ("xla", "tpu", "trainium", "neuron")


def guarded(node: nodes.NodeNG, *, cuda_kinds: tuple[type, ...] = (nodes.If, nodes.IfExp)
            ) -> bool:
    """True when the XLA path does not reach ``node``.

    That is a branch of an ``if`` (of ``cuda_kinds``) whose test asks about CUDA
    or a GPU, or the non-XLA branch of an ``if``/ternary whose test asks about
    XLA, a TPU or Neuron (``else`` of ``if args.tpu:``, body of ``if not use_xla:``).
    """
    child, cur = node, node.parent
    while cur is not None and not isinstance(cur, nodes.Module):
        if isinstance(cur, (nodes.If, nodes.IfExp)) and child is not cur.test:
            if isinstance(cur, cuda_kinds) and mentions(cur.test, "cuda", "gpu"):
                return True
            # xm.xla_device_hw(device) == 'TPU' tells XLA:TPU from XLA:GPU: both XLA.
            if mentions(cur.test, *XLA_WORDS) and not mentions(cur.test, "hw"):
                in_else = child is cur.orelse if isinstance(cur, nodes.IfExp) else \
                    child in cur.orelse
                negated = isinstance(cur.test, nodes.UnaryOp) and cur.test.op == "not"
                if in_else != negated:
                    return True
        child, cur = cur, cur.parent
    return False


class Analyzer:
    """Answers XLA questions about one astroid module; every answer is memoised.

    Raises nothing: callers may still wrap it, since astroid itself can raise
    on exotic code, and treat any exception as "unknown".
    """

    def __init__(self, module: nodes.Module, imports: ImportTable) -> None:
        self.module = module
        self.imports = imports
        self._tensor_memo: dict[tuple[int, Env], bool] = {}
        self._bindings_memo: dict[int, list[nodes.NodeNG]] = {}
        self._region: list[tuple[nodes.NodeNG, Env, bool]] | None = None
        self._sites_memo: dict[int, list[nodes.Call]] = {}
        self._qual_memo: dict[int, str | None] = {}
        self.model_loop_nodes: set[int] = set()
        self._loader_memo: dict[int, bool] = {}
        self._loop_memo: dict[tuple[str, int], bool] = {}
        self._work = 0
        self._closures: set[int] | None = None
        self._in_progress: set[tuple[int, Env]] = set()
        self._calls_by_name: dict[str, list[nodes.Call]] | None = None
        self._model_keys: set[str] | None = None
        self._self_attrs: dict[str, list[nodes.NodeNG]] | None = None
        self._preorder: list[nodes.NodeNG] | None = None
        self._by_class: dict[object, list[nodes.NodeNG]] = {}
        self.managed = self._uses_managed_framework()

    def module_nodes(self, klass: type | tuple[type, ...]) -> list[nodes.NodeNG]:
        """The module's nodes of ``klass``, in the order of ``module.nodes_of_class``.

        astroid's ``nodes_of_class`` is a recursive generator (a generator frame
        per node and level); the rules ask for whole-module walks about twenty
        times per file. Here the module is walked once, in pre-order, and each
        answer is a filtered, cached list of that walk.
        """
        found = self._by_class.get(klass)
        if found is None:
            if self._preorder is None:
                order: list[nodes.NodeNG] = []
                stack: list[nodes.NodeNG] = [self.module]
                while stack:
                    node = stack.pop()
                    order.append(node)
                    stack.extend(reversed(list(node.get_children())))
                self._preorder = order
            found = self._by_class[klass] = [n for n in self._preorder if isinstance(n, klass)]
        return found

    def _uses_managed_framework(self) -> bool:
        """The file drives training with accelerate, Lightning or Fabric (not just a seed)."""
        if not any(self.imports.imports_prefix(m) for m in MANAGED_FRAMEWORKS):
            return False
        for call in self.module_nodes(nodes.Call):
            q = self.qualname(call.func) or ""
            if q.startswith(MANAGED_FRAMEWORKS) and q.rsplit(".", 1)[-1] in (
                    "Accelerator", "Fabric", "Trainer", "LightningModule"):
                return True
            if isinstance(call.func, nodes.Attribute) and call.func.attrname in (
                    "prepare", "setup_dataloaders", "backward") and \
                    "accelerator" in (source_key(call.func.expr) or "") + "fabric":
                return True
        return any(isinstance(c, nodes.ClassDef) and any(
            (self.qualname(b) or "").endswith("LightningModule") for b in c.bases)
            for c in self.module_nodes(nodes.ClassDef))

    def _spend(self) -> bool:
        """Count one inference step; False once the per-file budget is spent ("unknown")."""
        self._work += 1
        return self._work <= WORK_BUDGET

    # ------------------------------------------------------------------ names
    def qualname(self, node: nodes.NodeNG) -> str | None:
        """Qualified name of a Name/Attribute that refers to an imported object (memoised)."""
        key = id(node)
        if key not in self._qual_memo:
            self._qual_memo[key] = self._qualname(node)
        return self._qual_memo[key]

    def _qualname(self, node: nodes.NodeNG) -> str | None:
        if isinstance(node, nodes.Name):
            try:
                _, assigns = node.lookup(node.name)
            except Exception:  # noqa: BLE001 - astroid raises many kinds on odd code
                return None
            if assigns and all(isinstance(a, (nodes.Import, nodes.ImportFrom)) for a in assigns):
                if len(assigns) > 1:
                    # ``if tpu: from torch_xla.amp import autocast`` / ``else: from
                    # torch.cuda.amp import autocast``: ambiguous, so unknown.
                    found = {self._import_qualname(a, node.name) for a in assigns}
                    if len(found) > 1:
                        return None
                return self.imports.resolve(node.name)
            if not assigns and self.imports.star_modules:
                # ``from torch_xla.core.xla_model import *``: a free name may come from it.
                for module in self.imports.star_modules:
                    if module.startswith(("torch_xla", "torch")):
                        return canonical(f"{module}.{node.name}")
            if all(a.root().name == "builtins" for a in assigns):
                return node.name  # an unshadowed builtin (astroid's stub or unknown)
            return None
        if isinstance(node, nodes.Attribute):
            base = self.qualname(node.expr)
            return canonical(f"{base}.{node.attrname}") if base else None
        return None

    @staticmethod
    def _import_qualname(imp: nodes.NodeNG, local: str) -> str | None:
        """The qualified name that one import statement binds to ``local``."""
        for name, asname in imp.names:
            if (asname or name.split(".", 1)[0]) == local:
                if isinstance(imp, nodes.ImportFrom):
                    return canonical(f"{imp.modname}.{name}")
                return canonical(name if asname else name.split(".", 1)[0])
        return None

    def is_builtin(self, node: nodes.NodeNG, name: str) -> bool:
        """True when ``node`` is the unshadowed builtin ``name``."""
        return isinstance(node, nodes.Name) and node.name == name and self.qualname(node) == name

    def bindings(self, name: nodes.Name) -> list[nodes.NodeNG]:
        """The assignment nodes that a Name may refer to.

        astroid's scope lookup, plus the assignments later in an enclosing loop
        of the same function, which reach the use on the next iteration.
        """
        key = id(name)
        cached = self._bindings_memo.get(key)
        if cached is not None:
            return cached
        try:
            _, assigns = name.lookup(name.name)
            out = list(assigns)
        except Exception:  # noqa: BLE001
            out = []
        frame = name.frame()
        cur = name.parent
        while cur is not None and cur is not frame:
            if isinstance(cur, (nodes.For, nodes.While)):
                if self._killed_in_iteration(cur, name, out):
                    break
                for stmt in cur.body:
                    for an in stmt.nodes_of_class(nodes.AssignName, skip_klass=(
                            nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
                        if an.name == name.name and an.lineno > name.lineno and an not in out:
                            out.append(an)
            cur = cur.parent
        self._bindings_memo[key] = out
        return out

    @staticmethod
    def _killed_in_iteration(loop: nodes.For | nodes.While, use: nodes.Name,
                             reaching: list[nodes.NodeNG]) -> bool:
        """The name is rebound at the start of each iteration, before ``use``.

        A ``for`` target, or an assignment earlier in the same loop body, kills
        the values of the previous iteration, so later assignments cannot reach.
        """
        if isinstance(loop, nodes.For) and any(
                isinstance(t, nodes.AssignName) and t.name == use.name
                for t in loop.target.nodes_of_class(nodes.AssignName)):
            return True
        first, last = loop.body[0].fromlineno, loop.body[-1].tolineno
        return any(isinstance(b, nodes.AssignName) and first <= b.lineno <= last
                   and b.lineno < use.lineno and b.frame() is use.frame() for b in reaching)

    def self_attr_values(self, attr: nodes.Attribute) -> list[nodes.NodeNG]:
        """Values assigned to ``self.<attr>`` anywhere in the module's classes."""
        if self._self_attrs is None:
            table: dict[str, list[nodes.NodeNG]] = {}
            for assign in self.module_nodes(nodes.AssignAttr):
                if isinstance(assign.expr, nodes.Name) and assign.expr.name == "self":
                    stmt = assign.parent
                    if isinstance(stmt, (nodes.Assign, nodes.AnnAssign)) and stmt.value is not None:
                        table.setdefault(assign.attrname, []).append(stmt.value)
            self._self_attrs = table
        if isinstance(attr.expr, nodes.Name) and attr.expr.name == "self":
            return self._self_attrs.get(attr.attrname, [])
        return []

    def values_of(self, node: nodes.NodeNG) -> list[nodes.NodeNG]:
        """Expressions a Name or ``self.attr`` was assigned from (one level)."""
        if isinstance(node, nodes.Attribute):
            return self.self_attr_values(node)
        if not isinstance(node, nodes.Name):
            return []
        out = []
        for b in self.bindings(node):
            if isinstance(b, nodes.AssignName):
                stmt = b.assign_type()
                if isinstance(stmt, (nodes.Assign, nodes.AnnAssign)) and stmt.value is not None:
                    value = stmt.value
                    holder = b.parent
                    # ``a, b = x, y``: a names x.
                    if isinstance(holder, nodes.Tuple) and isinstance(value, nodes.Tuple) and \
                            len(holder.elts) == len(value.elts) and holder.parent is stmt:
                        value = value.elts[holder.elts.index(b)]
                    out.append(value)
        return out

    def calls_named(self, name: str) -> list[nodes.Call]:
        """Every call in the module whose callee is ``name`` or ``<obj>.name``."""
        if self._calls_by_name is None:
            table: dict[str, list[nodes.Call]] = {}
            for call in self.module_nodes(nodes.Call):
                f = call.func
                key = f.name if isinstance(f, nodes.Name) else (
                    f.attrname if isinstance(f, nodes.Attribute) else None)
                if key:
                    table.setdefault(key, []).append(call)
            self._calls_by_name = table
        return self._calls_by_name.get(name, [])

    def resolve_function(self, func: nodes.NodeNG) -> nodes.FunctionDef | None:
        """The same-module FunctionDef that a callee expression names, if unambiguous."""
        if isinstance(func, nodes.Name):
            defs = [b for b in self.bindings(func) if isinstance(b, nodes.FunctionDef)
                    and b.root() is self.module]
            return defs[0] if len(defs) == 1 else None
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) \
                and func.expr.name in ("self", "cls"):
            klass = func.scope()
            while klass is not None and not isinstance(klass, nodes.ClassDef):
                klass = klass.parent.scope() if klass.parent is not None else None
            if klass is None:
                return None
            found = [m for m in klass.mymethods() if m.name == func.attrname]
            return found[0] if len(found) == 1 else None
        return None

    # ---------------------------------------------------------------- devices
    def is_xla_device(self, node: nodes.NodeNG | None, depth: int = 0) -> bool:
        """True for an expression that evaluates to the XLA device (or 'xla' string)."""
        if node is None or depth > MAX_DEPTH:
            return False
        s = const_str(node)
        if s is not None:
            return s == "xla" or s.startswith("xla:")
        if isinstance(node, nodes.Call):
            q = self.qualname(node.func)
            if q in XLA_DEVICE_CALLS:
                return True
            if q == "torch.device" and node.args:
                return self.is_xla_device(node.args[0], depth + 1)
            return False
        if isinstance(node, nodes.IfExp):
            return self.is_xla_device(node.body, depth + 1) or \
                self.is_xla_device(node.orelse, depth + 1)
        if isinstance(node, (nodes.Name, nodes.Attribute)):
            vals = self.values_of(node)
            if vals:
                return any(self.is_xla_device(v, depth + 1) for v in vals)
            key = source_key(node) or ""
            # An unresolved ``device``/``args.device`` in XLA code is the XLA device.
            return key.split(".")[-1].endswith("device")
        return False

    def is_cpu_device(self, node: nodes.NodeNG | None) -> bool:
        """True for ``'cpu'`` or ``torch.device('cpu')``."""
        if node is None:
            return False
        s = const_str(node)
        if s is not None:
            return s == "cpu"
        if isinstance(node, nodes.Call) and self.qualname(node.func) == "torch.device" and node.args:
            return self.is_cpu_device(node.args[0])
        return False

    # ---------------------------------------------------------------- loaders
    def is_xla_loader(self, node: nodes.NodeNG | None, depth: int = 0) -> bool:
        """True for an iterable whose batches are already on the XLA device.

        That is an ``MpDeviceLoader``, a ``ParallelLoader(...).per_device_loader``,
        the loader handed to a legacy ``DataParallel`` loop function, or any of
        these through ``enumerate``/``tqdm``/``islice``/a name or ``self.attr``.
        """
        if node is None or depth > MAX_DEPTH or not self._spend():
            return False
        key = id(node)
        if key in self._loader_memo:
            return self._loader_memo[key]
        self._loader_memo[key] = False  # in progress: a cycle means "unknown"
        result = self._is_xla_loader(node, depth)
        self._loader_memo[key] = result
        return result

    def _is_xla_loader(self, node: nodes.NodeNG, depth: int) -> bool:
        if isinstance(node, nodes.Call):
            q = self.qualname(node.func)
            if q in XLA_LOADERS:
                return True
            if isinstance(node.func, nodes.Attribute) and node.func.attrname == "per_device_loader":
                return True
            if (q in LOOP_WRAPPERS or source_key(node.func) in LOOP_WRAPPERS) and node.args:
                return any(self.is_xla_loader(a, depth + 1) for a in node.args)
            target = self.resolve_function(node.func)
            if target is not None:  # a same-module factory that returns an XLA loader
                return any(r.value is not None and self.is_xla_loader(r.value, depth + 1)
                           for r in target.nodes_of_class(nodes.Return, skip_klass=(
                               nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)))
            return False
        if isinstance(node, (nodes.Name, nodes.Attribute)):
            if any(self.is_xla_loader(v, depth + 1) for v in self.values_of(node)):
                return True
            return self.param_is(node, self.is_xla_loader, depth, legacy_index=1)
        return False

    def param_is(self, node: nodes.NodeNG, pred, depth: int, legacy_index: int) -> bool:
        """True when ``node`` names a parameter that ``pred`` holds for at a call site.

        Also true for position ``legacy_index`` of a legacy
        ``DataParallel`` loop function ``fn(model, loader, device, context)``.
        """
        if not isinstance(node, nodes.Name):
            return False
        for b in self.bindings(node):
            if not (isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Arguments)):
                continue
            func = b.parent.parent
            if not isinstance(func, (nodes.FunctionDef, nodes.Lambda)):
                continue
            names = [a.name for a in b.parent.args]
            if b.name not in names:
                continue
            idx = names.index(b.name)
            if isinstance(func, nodes.FunctionDef):
                if self.is_legacy_loop_fn(func) and idx == legacy_index:
                    return True
                offset = 1 if names and names[0] in ("self", "cls") else 0
                for call in self.call_sites(func):
                    arg = None
                    pos = idx - offset
                    if 0 <= pos < len(call.args):
                        arg = call.args[pos]
                    else:
                        arg = keyword(call, b.name)
                    if arg is not None and pred(arg, depth + 1):
                        return True
        return False

    def call_sites(self, func: nodes.FunctionDef) -> list[nodes.Call]:
        """Calls in the module that resolve to ``func`` (by name or ``self.method``)."""
        key = id(func)
        sites = self._sites_memo.get(key)
        if sites is None:
            sites = [c for c in self.calls_named(func.name)
                     if self.resolve_function(c.func) is func]
            self._sites_memo[key] = sites
        return sites

    def is_legacy_loop_fn(self, func: nodes.FunctionDef) -> bool:
        """``fn(model, loader, device, context)`` run by torch_xla's legacy DataParallel."""
        names = [a.name for a in func.args.args]
        return len(names) >= 4 and names[-2:] == ["device", "context"] and bool(
            [c for c in self.calls_named(func.name)] or any(
                isinstance(a, nodes.Name) and a.name == func.name
                for c in self.module_nodes(nodes.Call) for a in c.args))

    def is_plainly_loader(self, node: nodes.NodeNG) -> bool:
        """True for a DataLoader-like iterable (by construction or by name)."""
        if isinstance(node, nodes.Call):
            q = self.qualname(node.func) or ""
            if q.endswith("DataLoader"):
                return True
            if (q in LOOP_WRAPPERS or source_key(node.func) in LOOP_WRAPPERS) and node.args:
                return self.is_plainly_loader(node.args[0])
            return False
        key = (source_key(node) or "").lower()
        return "loader" in key.split(".")[-1] or key.endswith("batches")

    # ---------------------------------------------------------------- models
    def model_keys(self) -> set[str]:
        """Spellings (``model``, ``self.net``) that name a torch.nn.Module in this module."""
        if self._model_keys is None:
            keys = set()
            for call in self.module_nodes(nodes.Call):
                f = call.func
                if isinstance(f, nodes.Attribute) and f.attrname in MODULE_METHODS:
                    key = source_key(f.expr)
                    if key and key not in ("torch", "optimizer", "self"):
                        keys.add(key)
            self._model_keys = keys
        return self._model_keys

    def is_module_object(self, node: nodes.NodeNG) -> bool:
        """``model``/``self.net``: an nn.Module (by its use in this file or its name)."""
        key = source_key(node)
        if not key or "optim" in key.lower():
            return False
        if key in self.model_keys():
            return True
        parts = key.split(".")
        if len(parts) > 2 or (len(parts) == 2 and parts[0] != "self"):
            return False  # accelerator.unwrap_model(...) is a method, not a module
        last = parts[-1].lower()
        return last in MODEL_NAMES or last.endswith("_model")

    def is_cpu_module(self, node: nodes.NodeNG) -> bool:
        """A module bound to ``x.cpu()``/``x.to('cpu')``, or moved by such a statement."""
        key = source_key(node)
        if key is not None:
            for stmt in node.scope().nodes_of_class(nodes.Expr):
                call = stmt.value
                if isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute) and \
                        source_key(call.func.expr) == key and stmt.lineno <= node.lineno and (
                        call.func.attrname == "cpu" or (call.func.attrname == "to" and
                                                        call.args and
                                                        self.is_cpu_device(call.args[0]))):
                    return True
        for value in self.values_of(node):
            if not (isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute)):
                continue
            f = value.func
            if f.attrname == "cpu" or (f.attrname == "to" and value.args and
                                       self.is_cpu_device(value.args[0])):
                return True
        return False

    def is_model_call(self, call: nodes.Call) -> bool:
        """True for ``model(...)``/``self.model(...)`` where that object is an nn.Module.

        An object is a module when the file calls a module method on it
        (``.parameters()``, ``.train()``, ``.state_dict()`` ...) or when it is named
        like one (``model``, ``self.net``, ``teacher_model``).
        """
        return self.is_module_object(call.func) and not self.is_cpu_module(call.func)

    # ---------------------------------------------------------------- tensors
    def is_tensor(self, node: nodes.NodeNG | None, env: Env = NO_ENV, depth: int = 0) -> bool:
        """True when ``node`` evaluates to a lazy XLA tensor (or a container of them).

        ``env`` holds ``(id(FunctionDef), param)`` pairs bound to lazy tensors by
        the call being followed. Unknown values give False.
        """
        if node is None or depth > MAX_DEPTH or not self._spend():
            return False
        key = (id(node), env)
        memo = self._tensor_memo.get(key)
        if memo is not None:
            return memo
        if key in self._in_progress:
            return False
        self._in_progress.add(key)
        try:
            result = self._is_tensor(node, env, depth)
        except RecursionError:
            result = False
        finally:
            self._in_progress.discard(key)
        self._tensor_memo[key] = result
        return result

    def _is_tensor(self, node: nodes.NodeNG, env: Env, depth: int) -> bool:
        t = self.is_tensor
        d = depth + 1
        if isinstance(node, nodes.Const):
            return False
        if isinstance(node, nodes.Name):
            return any(self._binding_is_tensor(b, node, env, d) for b in self.bindings(node))
        if isinstance(node, nodes.Attribute):
            if node.attrname in HOST_ATTRS:
                return False
            if self.self_attr_values(node):
                return any(t(v, env, d) for v in self.self_attr_values(node))
            return t(node.expr, env, d)
        if isinstance(node, nodes.Subscript):
            return t(node.value, env, d)
        if isinstance(node, nodes.Call):
            return self._call_is_tensor(node, env, d)
        if isinstance(node, nodes.BinOp):
            if node.op == "%" and const_str(node.left) is not None:
                return False  # printf-style formatting gives a str
            return t(node.left, env, d) or t(node.right, env, d)
        if isinstance(node, nodes.UnaryOp):
            return node.op != "not" and t(node.operand, env, d)
        if isinstance(node, nodes.Compare):
            if all(op in ("is", "is not", "in", "not in") for op, _ in node.ops):
                return False  # identity and membership give Python bools, no value read
            return t(node.left, env, d) or any(t(n, env, d) for _, n in node.ops)
        if isinstance(node, nodes.BoolOp):
            return any(t(v, env, d) for v in node.values)
        if isinstance(node, nodes.IfExp):
            return t(node.body, env, d) or t(node.orelse, env, d)
        if isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)):
            return any(t(e, env, d) for e in node.elts)
        if isinstance(node, nodes.Dict):
            return any(t(v, env, d) for _, v in node.items)
        if isinstance(node, nodes.Starred):
            return t(node.value, env, d)
        if isinstance(node, (nodes.ListComp, nodes.GeneratorExp, nodes.SetComp)):
            return t(node.elt, env, d)
        if isinstance(node, nodes.DictComp):
            return t(node.value, env, d)
        if isinstance(node, nodes.NamedExpr):
            return t(node.value, env, d)
        return False

    def _binding_is_tensor(self, b: nodes.NodeNG, use: nodes.Name, env: Env, d: int) -> bool:
        t = self.is_tensor
        if not isinstance(b, nodes.AssignName):
            return False
        stmt = b.assign_type()
        if isinstance(stmt, nodes.Arguments):
            func = stmt.parent
            if (id(func), b.name) in env:
                return True
            if any(fid == id(func) for fid, _ in env):
                return False  # followed call: only the bound params are tensors
            if isinstance(func, nodes.FunctionDef):
                names = [a.name for a in stmt.args]
                if names and names[0] == b.name and self.is_legacy_loop_fn(func):
                    return False  # the module object itself
                ann = stmt.annotations[names.index(b.name)] if b.name in names else None
                if ann is not None and (self.qualname(ann) or "") == "torch.Tensor":
                    return True
                return self.param_is(use, lambda a, dd: t(a, Env(), dd), d, legacy_index=-99)
            return False
        if isinstance(stmt, (nodes.Assign, nodes.AnnAssign)):
            return stmt.value is not None and t(stmt.value, env, d)
        if isinstance(stmt, nodes.AugAssign):
            return t(stmt.value, env, d)
        if isinstance(stmt, (nodes.For, nodes.Comprehension)):
            it = stmt.iter
            if isinstance(it, nodes.Call) and self.is_builtin(it.func, "enumerate") and \
                    isinstance(stmt.target, nodes.Tuple) and stmt.target.elts and \
                    stmt.target.elts[0] is b:
                return False  # the enumerate counter
            target = stmt.target
            if isinstance(target, nodes.Tuple) and isinstance(it, nodes.Call) and \
                    self.is_builtin(it.func, "zip") and len(target.elts) == len(it.args):
                for elt, arg in zip(target.elts, it.args):
                    if b in elt.nodes_of_class(nodes.AssignName):
                        return not (isinstance(arg, nodes.Call) and self.is_builtin(
                            arg.func, "range")) and (self.is_xla_loader(arg) or t(arg, env, d))
            if isinstance(target, nodes.Tuple) and isinstance(it, nodes.Call) and \
                    isinstance(it.func, nodes.Attribute) and it.func.attrname == "items" and \
                    target.elts and target.elts[0] is b:
                return False  # a dict key
            if self.is_xla_loader(it):
                # (index, batch) pairs of legacy loaders: the index is a Python int.
                return not (isinstance(target, nodes.Tuple) and len(target.elts) == 2 and
                            target.elts[0] is b and (b.name in INDEX_NAMES or isinstance(
                                target.elts[1], nodes.Tuple)))
            if isinstance(it, nodes.Call) and isinstance(it.func, nodes.Attribute) and \
                    it.func.attrname in ("items", "values") and t(it.func.expr, env, d):
                return True
            if isinstance(it, nodes.Call) and isinstance(it.func, nodes.Attribute) and \
                    it.func.attrname in PARAM_CONTAINERS:
                return True
            return t(it, env, d) if not isinstance(it, nodes.Call) or not self.is_builtin(
                it.func, "range") else False
        if isinstance(stmt, nodes.NamedExpr):
            return t(stmt.value, env, d)
        return False

    def _call_is_tensor(self, call: nodes.Call, env: Env, d: int) -> bool:
        t = self.is_tensor
        func = call.func
        q = self.qualname(func)
        if isinstance(func, nodes.Name) and q in HOST_BUILTINS:
            return False
        if q is not None:
            if q.startswith("torch_xla") and q.rsplit(".", 1)[-1] in (
                    "mesh_reduce", "master_print", "add_step_closure", "is_master_ordinal",
                    "_maybe_convert_to_cpu",
                    "xla_device", "device", "get_ordinal", "xrt_world_size", "world_size"):
                return False
            if q.startswith(("torch.", "torch_xla.")) and "device" in {k.arg for k in
                                                                   call.keywords or ()}:
                return self.is_xla_device(keyword(call, "device"))
            if q.startswith(("numpy.", "math.", "logging.", "os.", "json.", "time.")) or \
                    q.startswith(OBJECT_FACTORIES) or q.rsplit(".", 1)[-1][:1].isupper():
                return False  # optimizers, schedulers, loaders, configs: not tensors
        if isinstance(func, nodes.Attribute):
            name = func.attrname
            if name in HOST_RESULT_METHODS:
                return False
            if name in ("to", "cuda", "cpu", "half", "bfloat16", "float", "train", "eval") and \
                    self.is_module_object(func.expr):
                return False  # the module itself, not a tensor; its calls are model calls
            if name == "to":
                dev = call.args[0] if call.args else keyword(call, "device")
                if dev is not None and self.is_cpu_device(dev):
                    return False
                if dev is not None and self.is_xla_device(dev):
                    return True
                return t(func.expr, env, d)
            if name in PARAM_CONTAINERS and source_key(func.expr) in self.model_keys():
                return True
            if name in ("format", "join") and const_str(func.expr) is not None:
                return False
            if t(func.expr, env, d):
                return True
        if self.is_model_call(call):
            return True
        target = self.resolve_function(func)
        if target is not None and d < MAX_DEPTH:
            bound = self.bind_args(target, call, env, d)
            returns = list(target.nodes_of_class(nodes.Return, skip_klass=(
                nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)))
            return any(t(r.value, bound, d) for r in returns if r.value is not None)
        args = list(call.args) + [k.value for k in call.keywords or ()]
        return any(t(a, env, d) for a in args)

    def bind_args(self, func: nodes.FunctionDef, call: nodes.Call, env: Env, d: int) -> Env:
        """The params of ``func`` that ``call`` binds to lazy XLA tensors."""
        params = [a.name for a in func.args.args or ()]
        if params and params[0] in ("self", "cls") and isinstance(call.func, nodes.Attribute):
            params = params[1:]
        tainted = set()
        for name, arg in zip(params, call.args):
            if not isinstance(arg, nodes.Starred) and self.is_tensor(arg, env, d):
                tainted.add((id(func), name))
        for kw in call.keywords or ():
            if kw.arg and self.is_tensor(kw.value, env, d):
                tainted.add((id(func), kw.arg))
        if not tainted:
            tainted.add((id(func), ""))  # marks the function as followed
        return Env(tainted)

    # ------------------------------------------------------------------ loops
    def walk_shallow(self, node: nodes.NodeNG, *, into_loops: bool = True
                     ) -> Iterator[nodes.NodeNG]:
        """Descendants of ``node`` that run when it runs: skips nested defs, lambdas, classes."""
        for child in node.get_children():
            if isinstance(child, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
                continue
            if not into_loops and isinstance(child, (nodes.For, nodes.While)):
                continue
            yield child
            yield from self.walk_shallow(child, into_loops=into_loops)

    def body_nodes(self, loop: nodes.For | nodes.While, *, into_loops: bool
                   ) -> Iterator[nodes.NodeNG]:
        """Nodes run by each iteration of ``loop`` (its body, not its header or else)."""
        for stmt in loop.body:
            if isinstance(stmt, (nodes.FunctionDef, nodes.ClassDef)):
                continue
            if not into_loops and isinstance(stmt, (nodes.For, nodes.While)):
                continue
            yield stmt
            yield from self.walk_shallow(stmt, into_loops=into_loops)

    def calls_in(self, loop: nodes.For | nodes.While, *, into_loops: bool,
                 depth: int = 0, seen: set[int] | None = None) -> Iterator[nodes.Call]:
        """Calls run per iteration, following same-module functions ``MAX_CALL_DEPTH`` deep."""
        seen = seen if seen is not None else set()
        stack = [(n, depth) for n in self.body_nodes(loop, into_loops=into_loops)]
        while stack:
            n, dep = stack.pop()
            if not isinstance(n, nodes.Call):
                continue
            yield n
            target = self.resolve_function(n.func)
            if target is not None and dep < MAX_CALL_DEPTH and id(target) not in seen and \
                    not self.is_compiled_function(target):
                seen.add(id(target))
                for stmt in target.body:
                    if not into_loops and isinstance(stmt, (nodes.For, nodes.While)):
                        continue
                    stack.append((stmt, dep + 1))
                    stack.extend((s, dep + 1) for s in self.walk_shallow(
                        stmt, into_loops=into_loops))

    def _memo_loop(self, question, loop: nodes.For | nodes.While) -> bool:
        """Answer ``question(loop)`` once per loop."""
        key = (question.__name__, id(loop))
        if key not in self._loop_memo:
            self._loop_memo[key] = question(loop)
        return self._loop_memo[key]

    def is_update_call(self, call: nodes.Call) -> bool:
        """``loss.backward()``, ``optimizer.step()``, ``xm.optimizer_step``, ``scaler.step``."""
        func = call.func
        q = self.qualname(func)
        if q == OPTIMIZER_STEP:
            return True
        if isinstance(func, nodes.Attribute):
            if func.attrname == "backward":
                return True
            if func.attrname == "step" and len(call.args) <= 1 and not call.keywords:
                key = (source_key(func.expr) or "").lower()
                return "optim" in key or key.endswith("opt")
            if func.attrname == "step" and len(call.args) == 1:
                key = (source_key(func.expr) or "").lower()
                return "scaler" in key
        return False

    def is_barrier_call(self, call: nodes.Call) -> bool:
        """``torch_xla.sync()``, ``xm.mark_step()`` or ``xm.optimizer_step(..., barrier=True)``."""
        q = self.qualname(call.func)
        if q is None and isinstance(call.func, nodes.Name):  # mark = xm.mark_step; mark()
            q = next((self.qualname(v) for v in self.values_of(call.func)
                      if isinstance(v, (nodes.Name, nodes.Attribute))), None)
        if q in BARRIER_CALLS:
            return True
        if q == OPTIMIZER_STEP:
            b = keyword(call, "barrier")
            # barrier=<expression>: may be True, so the loop is not known to lack one.
            return b is not None and not (isinstance(b, nodes.Const) and not b.value)
        if self.is_builtin(call.func, "next") and call.args and self.is_xla_loader(call.args[0]):
            return True  # MpDeviceLoader's __next__ marks the step
        target = self.resolve_function(call.func)
        return target is not None and self.is_compiled_function(target)

    def is_training_loop(self, loop: nodes.For | nodes.While) -> bool:
        """Memoised :meth:`_is_training_loop`."""
        return self._memo_loop(self._is_training_loop, loop)

    def _is_training_loop(self, loop: nodes.For | nodes.While) -> bool:
        """A loop that runs backward or an optimizer step itself (not in an inner loop)."""
        return any(self.is_update_call(c) for c in self.calls_in(loop, into_loops=False))

    def has_barrier(self, loop: nodes.For | nodes.While) -> bool:
        """Memoised :meth:`_has_barrier`."""
        return self._memo_loop(self._has_barrier, loop)

    def _has_barrier(self, loop: nodes.For | nodes.While) -> bool:
        """A step barrier runs somewhere in the loop's iterations (inner loops included)."""
        if any(self.is_barrier_call(c) for c in self.calls_in(loop, into_loops=True)):
            return True
        for n in self.body_nodes(loop, into_loops=True):
            if isinstance(n, nodes.With):
                for expr, _ in n.items:
                    if isinstance(expr, nodes.Call) and self.qualname(expr.func) in (
                            "torch_xla.step", "torch_xla.compile",
                            "torch_xla.debug.profiler.StepTrace"):
                        return True
        return False

    def is_step_loop(self, loop: nodes.For | nodes.While) -> bool:
        """Memoised :meth:`_is_step_loop`."""
        return self._memo_loop(self._is_step_loop, loop)

    def _is_step_loop(self, loop: nodes.For | nodes.While) -> bool:
        """A training or evaluation loop whose body runs once per step (batch)."""
        if isinstance(loop, nodes.For):
            if self.is_xla_loader(loop.iter):
                return True
            if self.is_plainly_loader(loop.iter) and any(
                    self.is_model_call(c) for c in self.calls_in(loop, into_loops=False)):
                return True
        if self.is_training_loop(loop):
            return True
        return any(self.is_barrier_call(c) for c in self.calls_in(loop, into_loops=False))

    def step_region(self) -> Iterator[tuple[nodes.NodeNG, Env, bool]]:
        """Every node that runs once per training/evaluation step, with its binding env.

        Yields ``(node, env, per_parameter)``: the nodes of step loops and of the
        same-module functions they call (params bound from the call site), and,
        with ``per_parameter=True``, the nodes of loops and comprehensions over a
        model's parameters or state dict. Code inside step closures, arguments
        of ``xm.add_step_closure`` and callees that have step loops of their own
        are left out. Computed once per module.
        """
        if self._region is None:
            self._closures = self.step_closure_functions()
            region: list[tuple[nodes.NodeNG, Env, bool]] = []
            model_loops = []
            for loop in self.module_nodes((nodes.For, nodes.While)):
                if self.is_step_loop(loop):
                    self._collect(list(self.body_nodes(loop, into_loops=True)), NO_ENV, 0,
                                  region)
                elif isinstance(loop, nodes.For) and self._calls_model(loop):
                    model_loops.append(loop)
            # Loops that run the model once per iteration over something other than a
            # loader (``for k in range(eval_iters): loss = model(*get_batch())``).
            stepped = {id(n) for n, _, _ in region}
            for loop in model_loops:
                if id(loop) in stepped:
                    continue
                before = len(region)
                self._collect(list(self.body_nodes(loop, into_loops=True)), NO_ENV, 0,
                              region)
                self.model_loop_nodes.update(id(n) for n, _, _ in region[before:])
            for holder in self.module_nodes((nodes.For, nodes.Comprehension)):
                if not self.iterates_parameters(holder.iter):
                    continue
                if isinstance(holder, nodes.For):
                    body = list(self.body_nodes(holder, into_loops=True))
                else:
                    comp = holder.parent
                    parts = [comp.key, comp.value] if isinstance(comp, nodes.DictComp) \
                        else [comp.elt]
                    body = [n for p in parts for n in p.nodes_of_class(nodes.NodeNG)]
                region.extend((n, NO_ENV, True) for n in body if not self.in_step_closure(n))
            self._region = region
        yield from self._region

    def _calls_model(self, loop: nodes.For) -> bool:
        """The loop body itself (not an inner loop) calls a model on the XLA device."""
        return any(self.is_model_call(c) for c in self.calls_in(loop, into_loops=False))

    def _collect(self, body: list[nodes.NodeNG], env: Env, depth: int,
                 out: list[tuple[nodes.NodeNG, Env, bool]]) -> None:
        for node in body:
            if self.in_step_closure(node):
                continue
            out.append((node, env, False))
            if isinstance(node, nodes.Call) and depth < MAX_CALL_DEPTH:
                target = self.resolve_function(node.func)
                if target is None or id(target) in self._closures or \
                        self._has_own_step_loop(target):
                    continue
                bound = self.bind_args(target, node, env, 0)
                inner = [n for stmt in target.body for n in [stmt, *self.walk_shallow(stmt)]]
                self._collect(inner, bound, depth + 1, out)

    def iterates_parameters(self, it: nodes.NodeNG, depth: int = 0) -> bool:
        """``model.parameters()``, ``named_parameters()``, ``state_dict()`` (or their items)."""
        if depth > MAX_DEPTH:
            return False
        if isinstance(it, nodes.Call) and isinstance(it.func, nodes.Attribute):
            if it.func.attrname in ("items", "values", "keys"):
                return self.iterates_parameters(it.func.expr, depth + 1)
            return it.func.attrname in PARAM_CONTAINERS
        if isinstance(it, nodes.Name):
            return any(self.iterates_parameters(v, depth + 1) for v in self.values_of(it))
        return False

    def _has_own_step_loop(self, func: nodes.FunctionDef) -> bool:
        """A callee with step loops of its own (an evaluate() run from the training loop).

        Its loops are checked on their own; the code around them runs once per call.
        """
        return any(self.is_step_loop(lp) for lp in func.nodes_of_class(
            (nodes.For, nodes.While), skip_klass=(nodes.FunctionDef, nodes.ClassDef)))

    def in_step_closure(self, node: nodes.NodeNG) -> bool:
        """Inside a step closure: a function handed to ``xm.add_step_closure``.

        The closure's ``args=(...)`` are evaluated now, in the step, so a sync
        there (``args=(loss.item(),)``) is not exempt.
        """
        if self._closures is None:
            self._closures = self.step_closure_functions()
        child, cur = node, node.parent
        while cur is not None:
            if id(cur) in self._closures:
                return True
            if isinstance(cur, nodes.Call) and cur.args and child is cur.args[0] and \
                    self.qualname(cur.func) == STEP_CLOSURE:
                return True
            child, cur = cur, cur.parent
        return False

    def step_closure_functions(self) -> set[int]:
        """ids of FunctionDefs/Lambdas handed to ``xm.add_step_closure``."""
        out: set[int] = set()
        for call in self.module_nodes(nodes.Call):
            if self.qualname(call.func) != STEP_CLOSURE or not call.args:
                continue
            fn = call.args[0]
            if isinstance(fn, nodes.Lambda):
                out.add(id(fn))
            else:
                target = self.resolve_function(fn)
                if target is not None:
                    out.add(id(target))
        return out

    def is_compiled_function(self, func: nodes.FunctionDef) -> bool:
        """Decorated with, or handed to, ``torch_xla.compile``/``torch_xla.step``."""
        for dec in func.decorators.nodes if func.decorators else ():
            target = dec.func if isinstance(dec, nodes.Call) else dec
            if self.qualname(target) in COMPILE_WRAPPERS:
                return True
        for call in self.calls_named("compile") + self.calls_named("step"):
            if self.qualname(call.func) in COMPILE_WRAPPERS and call.args and \
                    self.resolve_function(call.args[0]) is func:
                return True
        return False

    def in_compiled_function(self, node: nodes.NodeNG) -> bool:
        """True when ``node`` sits in a function wrapped by ``torch_xla.compile``/``step``."""
        func = node.frame()
        while isinstance(func, (nodes.FunctionDef, nodes.Lambda)):
            if isinstance(func, nodes.FunctionDef) and self.is_compiled_function(func):
                return True
            parent = func.parent
            func = parent.frame() if parent is not None else None
        return False


class _NoImportBuilder(astroid.builder.AstroidBuilder):
    """An AstroidBuilder whose post-build step never imports or infers anything.

    The stock builder resolves star imports (importing the named module) and
    infers every ``obj.attr = value`` target, which parses whole libraries such
    as transformers and takes minutes. Names bound by ``from x import y`` are
    still registered, so scope lookup works; star imports stay unresolved.
    """

    def _post_build(self, module, builder, encoding):  # type: ignore[no-untyped-def]
        module.file_encoding = encoding
        for from_node, global_names in builder._import_from_nodes:
            if from_node.modname == "__future__":
                module.future_imports.update(name for name, _ in from_node.names)
            for name, asname in from_node.names:
                if name == "*":
                    continue
                local = asname or name
                holder = module if local in global_names else from_node.parent
                holder.set_local(local, from_node)
                holder.scope().locals[local].sort(key=lambda n: n.fromlineno or 0)
        return module


class _ReadOnlyRebuilder(rebuilder.TreeRebuilder):
    """astroid's TreeRebuilder, except that it never changes the ast tree it reads.

    The stock one takes a docstring off by reassigning the ``body`` of the ast
    Module/ClassDef/FunctionDef (``node.body = node.body[1:]``); on flake8's
    tree, which pyflakes and mccabe read after us, that would hide every
    docstring from them. Here it works on a shallow copy of such a node.
    """

    def _get_doc(self, node):  # type: ignore[no-untyped-def]
        return super()._get_doc(copy.copy(node))


class TreeRebuildError(RuntimeError):
    """astroid could parse the text but not rebuild flake8's ast tree of it (a defect)."""


def build_module(source: str, name: str, tree: ast.Module | None = None, *,
                 strict: bool = False) -> nodes.Module:
    """Build an astroid Module of ``source`` without importing or inferring anything.

    ``tree``, when given, is ``source`` already parsed by :mod:`ast` (flake8's
    tree): astroid rebuilds from it instead of parsing the text again, which
    saves about a fifth of the build, and leaves it unchanged
    (:class:`_ReadOnlyRebuilder`). If that fails, astroid parses ``source``
    itself; with ``strict``, that parse succeeding raises :class:`TreeRebuildError`
    instead, so that the crash sweep sees the rebuild fail. Raises
    astroid.AstroidSyntaxError (or another astroid error) on bad input.
    """
    builder = _NoImportBuilder(astroid.MANAGER, apply_transforms=False)
    rebuild_error: Exception | None = None
    if tree is not None:
        try:
            tree_rebuilder = _ReadOnlyRebuilder(astroid.MANAGER, source)
            module = tree_rebuilder.visit_module(tree, name, "<?>", False)
            return builder._post_build(module, tree_rebuilder, "utf-8")
        except Exception as exc:  # noqa: BLE001 - another astroid: let it parse the text
            rebuild_error = exc
    module, tree_rebuilder = builder._data_build(source, name, None)
    if strict and rebuild_error is not None:
        raise TreeRebuildError(f"astroid parsed {name} but could not rebuild flake8's tree: "
                               f"{rebuild_error!r}") from rebuild_error
    return builder._post_build(module, tree_rebuilder, "utf-8")
