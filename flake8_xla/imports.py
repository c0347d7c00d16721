"""Import table: turn every local name of a module into a qualified name.

``import torch_xla.core.xla_model as xm`` makes ``xm.mark_step`` resolve to
``torch_xla.core.xla_model.mark_step``; ``from torch.cuda.amp import GradScaler
as GS`` makes ``GS`` resolve to ``torch.cuda.amp.GradScaler``. Rules compare
qualified names and never raw spellings, so aliases cannot hide a hazard.
"""

from __future__ import annotations

import ast
from functools import lru_cache

# Modules that were renamed or that re-export a public API under a shorter
# path. The key is a prefix of a resolved name, the value what it stands for.
_PREFIX_ALIASES: tuple[tuple[str, str], ...] = (
    # torch_xla 0.x shipped as ``torch_xla_py``.
    ("torch_xla_py.xla_model", "torch_xla.core.xla_model"),
    ("torch_xla_py.data_parallel", "torch_xla.distributed.data_parallel"),
    ("torch_xla_py.parallel_loader", "torch_xla.distributed.parallel_loader"),
    ("torch_xla_py.xla_multiprocessing", "torch_xla.distributed.xla_multiprocessing"),
    ("torch_xla_py.utils", "torch_xla.utils.utils"),
    ("torch_xla_py", "torch_xla"),
    # A torch_xla module's own imports, reached through it (``xm.torch_xla.sync()``):
    # xla_model, parallel_loader and runtime import torch and torch_xla at module level
    # (read off the 2.9 wheel).
    *((f"{mod}.{pkg}.", f"{pkg}.") for mod in (
        "torch_xla.core.xla_model", "torch_xla.distributed.parallel_loader",
        "torch_xla.runtime") for pkg in ("torch_xla", "torch")),
    # Re-exports: the defining module and the public spelling are one thing.
    ("torch.cuda.amp.autocast_mode.autocast", "torch.cuda.amp.autocast"),
    ("torch.cuda.amp.grad_scaler.GradScaler", "torch.cuda.amp.GradScaler"),
    ("torch.amp.autocast_mode.autocast", "torch.autocast"),
    ("torch.amp.autocast", "torch.autocast"),
    ("torch.amp.grad_scaler.GradScaler", "torch.amp.GradScaler"),
    ("torch.GradScaler", "torch.amp.GradScaler"),
    ("torch_xla.amp.syncfree.sgd.SGD", "torch_xla.amp.syncfree.SGD"),
    ("torch_xla.amp.syncfree.adam.Adam", "torch_xla.amp.syncfree.Adam"),
    ("torch_xla.amp.syncfree.adamw.AdamW", "torch_xla.amp.syncfree.AdamW"),
    ("transformers.data.data_collator.", "transformers."),
    ("transformers.tokenization_utils_base.PaddingStrategy", "transformers.utils.PaddingStrategy"),
    ("transformers.utils.generic.PaddingStrategy", "transformers.utils.PaddingStrategy"),
    ("transformers.PaddingStrategy", "transformers.utils.PaddingStrategy"),
    ("transformers.optimization.", "transformers."),
    ("torch.optim.sgd.", "torch.optim."),
    ("torch.optim.adam.", "torch.optim."),
    ("torch.optim.adamw.", "torch.optim."),
    ("torch.utils.data.dataloader.DataLoader", "torch.utils.data.DataLoader"),
    ("torchvision.datasets.mnist.", "torchvision.datasets."),
    ("torchvision.datasets.cifar.", "torchvision.datasets."),
    ("torchvision.datasets.folder.", "torchvision.datasets."),
    ("torch.utils.data.distributed.DistributedSampler", "torch.utils.data.DistributedSampler"),
)


@lru_cache(maxsize=8192)
def canonical(name: str) -> str:
    """Return the public spelling of a qualified name (first matching alias wins;
    memoised: the same names recur in every file)."""
    for prefix, target in _PREFIX_ALIASES:
        if prefix.endswith("."):
            if name.startswith(prefix):
                return target + name[len(prefix):]
        elif name == prefix or name.startswith(prefix + "."):
            return target + name[len(prefix):]
    return name


def import_module_target(callee: str | None, name: object, n_args: int,
                         has_keywords: bool) -> str | None:
    """The module that ``callee(name)`` imports when ``callee`` is
    ``importlib.import_module``, called with one constant absolute name (a ``str``; no
    ``package=``), else None."""
    if callee != "importlib.import_module" or n_args != 1 or has_keywords or \
            not isinstance(name, str) or not name or name.startswith("."):
        return None
    return canonical(name)


def _calls_import_module(call: ast.Call) -> bool:
    """Syntax only: the callee is spelled ``import_module`` or ``<name>.import_module``."""
    func = call.func
    return (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
        isinstance(func, ast.Name) and func.id == "import_module")


#: Fields of the ast nodes that hold statements (or the except handlers and match cases
#: that hold statements): imports are statements, so no other field can hold one.
_STATEMENT_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")


def walk_statements(tree: ast.AST) -> list[ast.AST]:
    """The statements of ``tree`` (and its except handlers and match cases), in the order
    :func:`ast.walk` visits them (breadth first), without visiting any expression."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        nxt: list[ast.AST] = []
        for node in todo:
            out.append(node)
            for field in _STATEMENT_FIELDS:
                child = getattr(node, field, None)
                if isinstance(child, list):
                    nxt.extend(child)
        todo = nxt
    return out


#: The names torch_xla's documentation and notebooks import its modules as, with the
#: functions that identify each (read off the 2.9 wheel, and the removed ones of older
#: releases): a module that uses one of them without binding the name runs where a
#: notebook cell imported it (``%run utilities.py``, ``exec`` of a helper file).
NOTEBOOK_ALIASES: dict[str, tuple[str, frozenset[str]]] = {
    "xm": ("torch_xla.core.xla_model", frozenset({
        "xla_device", "optimizer_step", "mark_step", "master_print", "save",
        "is_master_ordinal", "get_ordinal", "xrt_world_size", "get_local_ordinal",
        "rendezvous", "mesh_reduce", "all_reduce", "reduce_gradients", "add_step_closure",
        "wait_device_ops", "xla_device_hw"})),
    "xmp": ("torch_xla.distributed.xla_multiprocessing", frozenset({"spawn"})),
    "met": ("torch_xla.debug.metrics", frozenset({"metrics_report", "short_metrics_report"})),
}


def _free_aliases(tree: ast.AST, wanted: set[str]) -> dict[str, str]:
    """Of the names in ``wanted`` (keys of :data:`NOTEBOOK_ALIASES`), those the module
    uses as ``name.func`` with one of its identifying functions and never binds (no
    assignment, parameter, definition, loop or ``with`` target, nor import), each with
    its module."""
    used: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id in wanted and node.attr in NOTEBOOK_ALIASES[node.value.id][1]:
            used.add(node.value.id)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return {name: NOTEBOOK_ALIASES[name][0] for name in used - bound}


class ImportTable:
    """Maps each name bound by an import anywhere in a module to its qualified name.

    The table is flow-insensitive: an import inside a function or a ``try``
    block counts for the whole module, which is what a reader assumes too.
    Relative imports resolve to ``.name`` and never match a torch name.

    Given the module's ``source``, a conventional torch_xla alias that the module uses
    without binding (``xm.optimizer_step(opt)`` in a helper file that a notebook cell
    runs after ``import torch_xla.core.xla_model as xm``) resolves as that import would
    (:data:`NOTEBOOK_ALIASES`); :attr:`implicit` lists those names.
    """

    def __init__(self, tree: ast.AST, source: str | None = None) -> None:
        self.names: dict[str, str] = {}
        self.modules: set[str] = set()
        self.star_modules: list[str] = []
        dynamic: list[tuple[str, ast.Call]] = []
        for node in walk_statements(tree):
            if isinstance(node, ast.Assign):
                if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                        isinstance(node.value, ast.Call) and _calls_import_module(node.value):
                    dynamic.append((node.targets[0].id, node.value))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    full = canonical(alias.name)
                    self.modules.add(full)
                    if alias.asname:
                        self.names[alias.asname] = full
                    else:
                        # ``import torch_xla.core.xla_model`` binds ``torch_xla``.
                        head = alias.name.split(".", 1)[0]
                        self.names.setdefault(head, canonical(head))
            elif isinstance(node, ast.ImportFrom):
                module = ("." * node.level) + (node.module or "")
                if node.level == 0:
                    self.modules.add(canonical(module))
                for alias in node.names:
                    if alias.name == "*":
                        # (a relative one as spelled, ``.networks``: the project link
                        # resolves it from the importing module)
                        self.star_modules.append(canonical(module) if node.level == 0
                                                 else module)
                        continue
                    full = canonical(f"{module}.{alias.name}" if module else alias.name)
                    self.names[alias.asname or alias.name] = full
                    if node.level == 0:
                        self.modules.add(full)
        for local, call in dynamic:
            target = self.dynamic_import(call)
            if target is not None:
                # ``xm = importlib.import_module("torch_xla.core.xla_model")``: a lazy import
                self.modules.add(target)
                self.names.setdefault(local, target)
        #: conventional torch_xla aliases used unbound (see the class docstring)
        self.implicit: frozenset[str] = frozenset()
        if source is not None:
            wanted = {name for name in NOTEBOOK_ALIASES
                      if name not in self.names and f"{name}." in source}
            if wanted:
                found = _free_aliases(tree, wanted)
                for name, module in found.items():
                    self.names[name] = module
                    self.modules.add(module)
                self.implicit = frozenset(found)

    def dynamic_import(self, call: ast.Call) -> str | None:
        """The module ``importlib.import_module("a.b")`` imports (a constant, absolute
        name), else None."""
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            spelled = f"{self.names.get(func.value.id)}.{func.attr}"
        elif isinstance(func, ast.Name):
            spelled = str(self.names.get(func.id))
        else:
            return None
        first = call.args[0] if call.args else None
        return import_module_target(spelled, first.value if isinstance(first, ast.Constant)
                                    else None, len(call.args), bool(call.keywords))

    def resolve(self, local: str) -> str | None:
        """Qualified name for a local name bound by an import, else None."""
        return self.names.get(local)

    def imports_prefix(self, prefix: str) -> bool:
        """True when any imported module or name starts with ``prefix``."""
        return any(m == prefix or m.startswith(prefix + ".") for m in self.modules)
