"""Names: qualified names of imported objects, and small syntax helpers.

:class:`QualNames` resolves a Name or Attribute chain to the qualified name of the
imported object it refers to (``xm.mark_step`` -> ``torch_xla.core.xla_model.mark_step``),
through astroid's scope lookup, so that a local variable that shadows an import is not
taken for it. The helpers below are syntax only.
"""

from __future__ import annotations

import builtins
import re

from astroid import nodes

from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.imports import ImportTable, canonical, import_module_target


def source_key(node: nodes.NodeNG) -> str | None:
    """Dotted spelling of a Name/Attribute chain (``self.model``), else None.

    Assignment targets (``AssignName``, ``AssignAttr``) are spelled the same way.
    """
    if isinstance(node, (nodes.Name, nodes.AssignName)):
        return node.name
    if isinstance(node, (nodes.Attribute, nodes.AssignAttr)):
        base = source_key(node.expr)
        return f"{base}.{node.attrname}" if base else None
    return None


def const_str(node: nodes.NodeNG | None) -> str | None:
    """The value of a string literal, else None."""
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        return node.value
    return None


def is_none(node: nodes.NodeNG | None) -> bool:
    """``node`` is the constant ``None``."""
    return isinstance(node, nodes.Const) and node.value is None


def callee_name(func: nodes.NodeNG) -> str | None:
    """The callee's last name: ``f`` of ``f(...)`` and of ``obj.f(...)``, else None."""
    if isinstance(func, nodes.Name):
        return func.name
    return func.attrname if isinstance(func, nodes.Attribute) else None


def chain_root(node: nodes.NodeNG) -> nodes.NodeNG:
    """The base of an attribute and subscript chain: ``ids`` of ``ids[0]`` and of
    ``batch["x"].data``."""
    while isinstance(node, (nodes.Attribute, nodes.Subscript)):
        node = node.expr if isinstance(node, nodes.Attribute) else node.value
    return node


def is_main_test(test: nodes.NodeNG) -> bool:
    """``__name__ == "__main__"`` (either way round): the test of a script's main block."""
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and
            test.ops[0][0] == "=="):
        return False
    sides = (test.left, test.ops[0][1])
    return any(isinstance(s, nodes.Name) and s.name == "__name__" for s in sides) and \
        any(const_str(s) == "__main__" for s in sides)


def keyword(call: nodes.Call, name: str) -> nodes.NodeNG | None:
    """The value passed to keyword ``name`` of ``call``, else None."""
    for kw in call.keywords or ():
        if kw.arg == name:
            return kw.value
    return None


def has_star_kwargs(call: nodes.Call) -> bool:
    """The call passes ``**kwargs`` (so any keyword may be set)."""
    return any(k.arg is None for k in call.keywords or ())


def argument(call: nodes.Call, index: int, name: str | None = None) -> nodes.NodeNG | None:
    """Positional argument ``index`` of ``call``, else keyword ``name``, else None."""
    args = [a for a in call.args if not isinstance(a, nodes.Starred)]
    if len(args) == len(call.args) and 0 <= index < len(args):
        return args[index]
    return keyword(call, name) if name else None


_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


def words_of(node: nodes.NodeNG) -> set[str]:
    """Lower-case words of the identifiers and string literals under ``node``.

    ``args.use_tpu`` gives {args, use, tpu}; ``torch.cuda.is_available()`` gives
    {torch, cuda, is, available}; ``num_samples`` does not contain "amp". Upper-case
    constants (``'TPU'`` as returned by ``xm.xla_device_hw()``) give ``xla_hw_`` words.
    """
    cached = getattr(node, "_xla_words", None)
    if cached is not None:
        return set(cached)
    out: set[str] = set()
    for sub in nodes_of(node, (nodes.Name, nodes.Attribute, nodes.Const, nodes.AssignName,
                                    nodes.AssignAttr)):
        if isinstance(sub, (nodes.Name, nodes.AssignName)):
            text = sub.name
        elif isinstance(sub, (nodes.Attribute, nodes.AssignAttr)):
            text = sub.attrname
        else:
            text = sub.value if isinstance(sub.value, str) else ""
        if isinstance(sub, nodes.Const) and text.isupper():
            out.update("xla_hw_" + w.lower() for w in _WORD_SPLIT.split(text) if w)
            continue
        out.update(w.lower() for w in _WORD_SPLIT.split(text) if w)
    node._xla_words = frozenset(out)  # memoised on the node: trees are not edited
    return out


def words_of_text(text: str) -> set[str]:
    """Lower-case words of one identifier (``is_main_process`` -> {is, main, process})."""
    return {w.lower() for w in _WORD_SPLIT.split(text) if w}


def mentions(node: nodes.NodeNG, *words: str) -> bool:
    """True when a word of ``node`` (see :func:`words_of`) is one of ``words`` or its plural."""
    found = words_of(node)
    return any(w in found or w + "s" in found for w in words)


#: Words that name an XLA device or platform in flags and conditions.
XLA_WORDS = ("xla", "tpu", "tpus", "trainium", "neuron", "inferentia")
#: Words that name a non-XLA accelerator path (DeepSpeed runs on CUDA, ROCm, XPU, HPU
#: and NPU, never on an XLA device).
CUDA_WORDS = ("cuda", "gpu", "gpus", "nccl", "cudnn", "apex", "mps", "deepspeed")


#: Python's own builtins: a star import never shadows them in practice.
_BUILTIN_NAMES = frozenset(dir(builtins))

#: the statement lists of a block (``try`` handlers are blocks of their own)
_BLOCKS = ("body", "orelse", "finalbody")
#: The statements that leave their block: nothing after one in the same block runs.
JUMPS = (nodes.Continue, nodes.Break, nodes.Return, nodes.Raise)


def runs_before(stmt: nodes.NodeNG, use: nodes.NodeNG, frame: nodes.NodeNG) -> bool:
    """``stmt`` sits earlier in a block that holds ``use`` (or a statement holding it):
    every path from the frame's entry to ``use`` runs it."""
    cur = use
    while cur is not None and cur is not frame:
        parent = cur.parent
        if parent is stmt.parent and parent is not None and any(
                any(x is stmt for x in getattr(parent, f, ())) and
                any(x is cur for x in getattr(parent, f, ())) for f in _BLOCKS) and \
                stmt.lineno < cur.lineno:
            return True
        cur = parent
    return False


def _jumps_after(stmt: nodes.NodeNG) -> bool:
    """A ``continue``, ``break``, ``return`` or ``raise`` follows ``stmt`` in its block."""
    parent = stmt.parent
    for field in _BLOCKS + ("handlers",):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(x is stmt for x in block):
            after = block[next(i for i, x in enumerate(block) if x is stmt) + 1:]
            return any(isinstance(x, JUMPS) for x in after)
    return False


def lookup(name: nodes.Name) -> list[nodes.NodeNG]:
    """The statements binding ``name`` that may reach it: astroid's scope lookup, except
    past a ``del`` that may be skipped. Raises what astroid's lookup raises on odd code.

    astroid's lookup drops every earlier assignment at any ``del`` of the name, even one
    in a branch that ends the iteration (``if bad: del out, loss; continue``), so the
    use after the branch would resolve to nothing. A ``del`` followed in its block by a
    jump (``continue``, ``break``, ``return``, ``raise``) is on a path that never reaches
    code after that block, so it is ignored; any other ``del`` kills as astroid has it.
    """
    root = name.root()
    table = root.__dict__.get(_LOOKUP_ATTR)
    if table is None:
        table = {}
        setattr(root, _LOOKUP_ATTR, table)
    found = table.get(id(name))
    if found is None:
        found = table[id(name)] = tuple(_lookup(name))
    return list(found)


#: The attribute of an astroid module that memoises :func:`lookup` per Name node: the
#: answer depends on the tree alone, so every analyzer and qualified-name table of the
#: tree (the sessions of a project that link a cached module) shares it.
_LOOKUP_ATTR = "_flake8_xla_lookup"


def _lookup(name: nodes.Name) -> list[nodes.NodeNG]:
    found = _scope_lookup(name)
    if not found:
        # ``global _cache`` then ``try: return _cache`` / ``except NameError: _cache =
        # ...``: astroid finds nothing before the read in the function, but the name is
        # the module's, and an earlier call (this function's or another's) bound it
        scope = name.scope()
        if isinstance(scope, nodes.FunctionDef) and name.name in _declared_global(scope):
            found = list(name.root().locals.get(name.name, ()))
    return found


def _declared_global(func: nodes.FunctionDef) -> frozenset[str]:
    """The names a ``global`` statement of ``func``'s own body declares (memoised on the
    function node: one walk per function, not per unresolved name)."""
    found = func.__dict__.get(_GLOBALS_ATTR)
    if found is None:
        found = frozenset(n for g in nodes_of(func, 
            nodes.Global, skip_klass=(nodes.FunctionDef, nodes.ClassDef)) for n in g.names)
        setattr(func, _GLOBALS_ATTR, found)
    return found


#: The attribute of an astroid function node that memoises :func:`_declared_global`.
_GLOBALS_ATTR = "_flake8_xla_globals"


def _scope_lookup(name: nodes.Name) -> list[nodes.NodeNG]:
    scope = name.scope()
    local = getattr(scope, "locals", {}).get(name.name, ())
    if not any(isinstance(n, nodes.DelName) for n in local):
        return list(name.lookup(name.name)[1])
    kept = [n for n in local if not (isinstance(n, nodes.DelName) and
                                     _jumps_after(n.statement()))]
    if len(kept) == len(local):
        return list(name.lookup(name.name)[1])
    try:
        from astroid.filter_statements import _filter_stmts
        return list(_filter_stmts(name, kept, scope, 0))
    except Exception:  # noqa: BLE001 - another astroid layout: its own lookup
        return list(name.lookup(name.name)[1])


def _import_fallback(node: nodes.NodeNG) -> bool:
    """A binding in an ``except ImportError`` / ``ModuleNotFoundError`` handler."""
    cur = node.parent
    while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.ClassDef,
                                                  nodes.Module)):
        if isinstance(cur, nodes.ExceptHandler):
            names = nodes_of(cur.type, nodes.Name) if cur.type is not None else []
            return any(n.name in ("ImportError", "ModuleNotFoundError") for n in names)
        cur = cur.parent
    return False


class QualNames:
    """Qualified names of Name/Attribute chains that refer to imported objects (memoised)."""

    def __init__(self, imports: ImportTable) -> None:
        self.imports = imports
        self._memo: dict[int, str | None] = {}
        #: set with the cross-module link: this table's module, and the link that answers
        #: for nodes of other modules (their own import tables)
        self.module: nodes.Module | None = None
        self.link = None

    def __call__(self, node: nodes.NodeNG) -> str | None:
        """The qualified name ``node`` refers to, or None (a local value, or unknown)."""
        key = id(node)
        if key not in self._memo:
            if self.link is not None and self.link.multi and node.root() is not self.module:
                return self.link.foreign_qualname(node)
            # (None while in progress: ``global model`` then ``model = model.to(device)``
            # in two functions resolve each other's bindings, a cycle that names nothing)
            self._memo[key] = None
            self._memo[key] = self._qualname(node)
        return self._memo[key]

    def _qualname(self, node: nodes.NodeNG) -> str | None:
        if isinstance(node, nodes.Name):
            try:
                assigns = lookup(node)
            except Exception:  # noqa: BLE001 - astroid raises many kinds on odd code
                return None
            if assigns and any(isinstance(a, (nodes.Import, nodes.ImportFrom)) for a in assigns):
                # ``except ImportError: xm = None``: the fallback of a missing package; where
                # the code runs with the package, the name is the import.
                assigns = [a for a in assigns if not _import_fallback(a)]
            if assigns and all(isinstance(a, (nodes.Import, nodes.ImportFrom)) for a in assigns):
                if len(assigns) > 1:
                    # ``if tpu: from torch_xla.amp import autocast`` / ``else: from
                    # torch.cuda.amp import autocast``: ambiguous, so unknown.
                    found = {self.import_qualname(a, node.name) for a in assigns}
                    if len(found) > 1:
                        return None
                return self.imports.resolve(node.name)
            if assigns and all(isinstance(a, nodes.AssignName) for a in assigns):
                # ``xm = importlib.import_module("torch_xla.core.xla_model")``
                found = {self._dynamic_import(a) for a in assigns}
                if len(found) == 1:
                    return found.pop()
            if not assigns and node.name in _BUILTIN_NAMES:
                return node.name  # ``enumerate`` after ``from torch.optim import *``
            if not assigns and self.imports.star_modules:
                # The last star import that may bind the name wins: a project module's
                # (``from onsets_and_frames import *``) when it binds or re-exports it;
                # ``from torch_xla.core.xla_model import *``: a free name may come from it.
                for module in reversed(self.imports.star_modules):
                    if module.startswith(("torch_xla", "torch")):
                        return canonical(f"{module}.{node.name}")
                    if self.link is not None and self.module is not None:
                        found = self.link.star_name(self.module, module, node.name)
                        if found is not None:
                            return found
                return None  # a free name some star import may bind: unknown
            if (assigns or node.name in _BUILTIN_NAMES) and all(
                    a.root().name == "builtins" for a in assigns):
                return node.name  # an unshadowed builtin (astroid's stub or unknown)
            return None
        if isinstance(node, nodes.Attribute):
            base = self(node.expr)
            return canonical(f"{base}.{node.attrname}") if base else None
        return None

    def _dynamic_import(self, binding: nodes.AssignName) -> str | None:
        """The module a binding ``name = importlib.import_module("a.b")`` imports."""
        stmt = binding.parent
        if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1 or \
                not isinstance(stmt.value, nodes.Call):
            return None
        call = stmt.value
        first = call.args[0] if call.args else None
        return import_module_target(self(call.func), first.value if isinstance(
            first, nodes.Const) else None, len(call.args), bool(call.keywords))

    @staticmethod
    def import_qualname(imp: nodes.NodeNG, local: str) -> str | None:
        """The qualified name that one import statement binds to ``local``."""
        for name, asname in imp.names:
            if (asname or name.split(".", 1)[0]) == local:
                if isinstance(imp, nodes.ImportFrom):
                    return canonical(f"{imp.modname}.{name}")
                return canonical(name if asname else name.split(".", 1)[0])
        return None
