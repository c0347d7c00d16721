"""The cross-module link of the value analysis: one :class:`Session` per checked file.

The checked file's :class:`~flake8_xla.analysis.Analyzer` gets a session as its
``project`` (on the analyzer, its Evaluator and its qualified-name table); without a
project every hook is skipped and the analysis is exactly the single-file one. Through
the session:

- **Names.** A qualified name that the API model does not list and that resolves to a
  module of the project (:meth:`~flake8_xla.project.index.ProjectIndex.resolve_name`)
  stands for what that module defines: a FUNCTION or CLASS value of its definition, or
  the value of a module-level assignment (re-exports and star imports are followed).
  Library copies are not followed (see :mod:`flake8_xla.project.index`).
- **Calls.** A call of another module's function evaluates its arguments in the
  caller's Evaluator (``call_arguments``) and binds them in the callee's own
  (``ctx_for_values``); its return value is the callee's. No node is ever evaluated by
  another module's Evaluator: a node (and a qualified name) of another module is
  answered by that module's Evaluator (:meth:`Session.foreign_value`).
- **Parameters.** A function's parameter with no context also takes the values that
  call sites in other project modules pass (:meth:`Session.param_values`): modules that
  are XLA code, import the function's module and name the function.
- **Steps.** The step questions that follow calls (``calls_in``: is this a training loop,
  does it run a barrier) ask each followed function's own module's
  :class:`~flake8_xla.analysis.steps.Steps`. A step region never takes in another
  module's nodes; it records the calls instead, and the called module makes those
  functions step-region roots of its own (:meth:`Session.step_roots`), so a hazard is
  reported in the file where it is written. The modules asked are those that import the
  module and name its functions, and, for a module that hands one of its functions to
  another (a callback: ``trainer.eval(evaluate)``), the modules it imports.
- **Findings.** A finding whose node lies in another module (a loader built there) is
  placed on the line of this module through which the value came (:meth:`Session.place`),
  and its message names the other module's line.

Every other module's analyzer is built lazily, from a per-process cache of astroid trees
(:data:`TREE_CACHE` trees), with fresh memos for each session, so the findings of a file
never depend on which files the process checked before. At most :data:`MAX_MODULES`
other modules are analyzed per checked file (:data:`MAX_LINKED_BYTES` of source for
the modules the file imports, as much again for all others, none larger than
:data:`MAX_MODULE_BYTES`), :data:`MAX_CALLERS` callers per question, in sorted order:
bounded and deterministic.
"""

from __future__ import annotations

import ast
import os
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from astroid import nodes

from flake8_xla.analysis import values as V
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.analysis.values import UNKNOWN_SET, Kind, Value, join, one
from flake8_xla.filefacts import FileFacts
from flake8_xla.imports import ImportTable
from flake8_xla.project.index import MAX_BYTES, ProjectIndex, _decode, parse_quietly

if TYPE_CHECKING:
    from flake8_xla.analysis import Analyzer
    from flake8_xla.analysis.flows import Ctx, Evaluator
    from flake8_xla.analysis.steps import Steps

#: Other modules analyzed per checked file, at most. The source bytes below bound the
#: cost; the count stays well above what a package's many small modules need (a trainer
#: package whose ``__init__`` re-exports 30 helpers of a few KB each).
MAX_MODULES = 48
#: Source bytes of the other modules analyzed per checked file, at most (once for the
#: modules it imports, once for the rest), and of any one
#: of them: a large library module (a 100 KB ``modeling_utils.py``) stays unknown, so
#: that linting one file never builds and analyses most of its project.
MAX_LINKED_BYTES = 240_000
MAX_MODULE_BYTES = 80_000
#: What a method's parameter takes from call sites in other modules (see
#: :meth:`Session.param_values`): the objects a step runs with, and the callbacks it
#: calls (``trainer.eval(evaluate)``).
_SETUP_KINDS = frozenset({Kind.LOADER, Kind.MODULE, Kind.DEVICE, Kind.OPTIMIZER,
                          Kind.FUNCTION})
#: Callers (modules) consulted for one function's parameters or step roots, at most.
MAX_CALLERS = 6
#: Modules around the checked file asked where its own values go, at most.
MAX_NEIGHBOURS = 8
#: Modules around the checked file looked at (their syntax facts) for that, at most.
MAX_NEIGHBOUR_SCAN = 64
#: Call sites in other modules joined for one parameter, at most (then unknown).
MAX_REMOTE_SITES = 8
#: astroid trees of other modules kept per process. The engine freezes what is alive after
#: each checked file (``engine._settle_collector``), so the collector no longer scans the
#: trees kept, and a tree the cache lets go of is dismantled (:func:`dismantle`) and
#: freed by reference counting. At the root of pytorch/xla, 8 trees built 116 trees of
#: other modules (71 distinct), 16 built 76 and 32 built 68, the distinct ones that the
#: checked files' own trees do not cover; more keep memory for nothing.
TREE_CACHE = 32
#: Modules whose step regions are chained to find step roots, at most.
MAX_ROOT_CHAIN = 3
_MAX_REEXPORT = 6

#: Per process: ``(path, size, mtime) -> (astroid tree, import table, text)`` of project files.
_TREES: OrderedDict[tuple[str, int, int], tuple[nodes.Module, ImportTable, str] | None] = \
    OrderedDict()
#: Per process: the step-region calls of a module into other modules, each computed in
#: a fresh session of its own (so never depending on which file asked first). Nodes are
#: kept as addresses (``(rel, type, line, col, end line, end col)``), so a result outlives
#: the trees it was computed on; it is valid while the files it read are unchanged:
#: ``(root, rel, target) -> (files read with their stat, calls)``.
_STEP_CALLS: dict[tuple[str, str, str], tuple[list[tuple[str, int, int]], list[Any]]] = {}
_STEP_BUSY: set[tuple[str, str, str]] = set()


def _tree_key(index: ProjectIndex, rel: str) -> tuple[str, int, int]:
    """The file as it is now (not as the index scanned it: a long-lived process, such as
    ``--fix`` rounds, may have changed it since)."""
    path = str(index.path(rel))
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1)
    return (path, st.st_size, st.st_mtime_ns)


_TREE_REL: dict[int, tuple[tuple[str, int, int], str]] = {}


def _remember(key: tuple[str, int, int], found: tuple[nodes.Module, ImportTable, str] | None,
              rel: str) -> None:
    _TREES[key] = found
    _TREES.move_to_end(key)
    if found is not None:
        _TREE_REL[id(found[0])] = (key, rel)
    while len(_TREES) > TREE_CACHE:
        _, gone = _TREES.popitem(last=False)
        if gone is not None:
            _TREE_REL.pop(id(gone[0]), None)
            _EVICTED.append(gone[0])


def _shared_rel(module: nodes.Module) -> str | None:
    """The index key of a module tree held in the per-process cache, else None."""
    found = _TREE_REL.get(id(module))
    if found is None:
        return None
    held = _TREES.get(found[0])
    return found[1] if held is not None and held[0] is module else None


#: Trees the per-process cache let go of, still whole: :func:`dismantle` breaks them once
#: no analysis uses them any more.
_EVICTED: list[nodes.Module] = []


def dismantle(session: Session | None, analyzers: list[Analyzer],
              module: nodes.Module | None = None, *, evicted: bool = False) -> None:
    """Break the reference cycles of a finished analysis, so that reference counting frees
    it: the memo tables of ``analyzers`` and of ``session``'s (an Analyzer, its Evaluator,
    Steps and name table refer to each other), the session itself, and the parent links of
    ``module``'s tree and (``evicted``: once a checked file's analysis is over) of the
    trees the cache evicted meanwhile, unless the cache holds them. Nothing of them may
    be used afterwards.

    Left to the collector, these are young objects that every young collection traverses
    to find them unreachable: at the root of pytorch/xla, a tenth of what it traversed
    with the plugin, and most of the excess of its full collections over plain flake8's.
    """
    from flake8_xla.analysis.flows import syntax_cache

    every = [*analyzers, *(a for a in (session.analyzers() if session is not None else ())
                            if a not in analyzers)]
    for a in every:
        for part in (a.steps, a.ev, a.qualname):
            vars(part).clear()
        vars(a).clear()
    if session is not None:
        vars(session).clear()
    trees = {id(t): t for t in [module, *(_EVICTED if evicted else ())]
             if t is not None and _shared_rel(t) is None and "body" in vars(t)}
    if evicted:
        _EVICTED.clear()
    for tree in trees.values():
        # Every node's attributes go, not only its parent link: a node that
        # ``get_children`` does not yield (a docstring's ``doc_node``, the ``vararg_node``
        # of ``*args``) still links its parent, and would keep the tree in a cycle.
        walked = syntax_cache(tree).get("preorder")
        if walked:
            for node in walked[0]:
                vars(node).clear()
        else:
            stack: list[nodes.NodeNG] = [tree]
            while stack:
                node = stack.pop()
                stack.extend(node.get_children())
                vars(node).clear()
        vars(tree).clear()


def _tree(index: ProjectIndex, rel: str) -> tuple[nodes.Module, ImportTable, str] | None:
    """The astroid tree and import table of a project file (per-process LRU cache)."""
    from flake8_xla.analysis.build import build_module
    from flake8_xla.analysis.flows import mark_unit_tests
    from flake8_xla.testcode import unit_test_spans

    key = _tree_key(index, rel)
    if key in _TREES:
        _TREES.move_to_end(key)
        return _TREES[key]
    found = None
    try:
        with open(index.path(rel), "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) <= MAX_BYTES:
            text = _decode(raw)
            tree = parse_quietly(text, str(index.path(rel)))
            found = (build_module(text, "flake8_xla_checked", tree), ImportTable(tree, text),
                     text)
            mark_unit_tests(found[0], unit_test_spans(tree, rel))
    except Exception:  # noqa: BLE001 - a module that cannot be built is not followed
        found = None
    _remember(key, found, rel)
    return found


#: The disk-cache records of :meth:`Session._step_calls` (see :mod:`flake8_xla.project.cache`).
STEPS_RECORD = "steps"


# JSON forms of exported values (see Session._export_value): a value is
# [kind, device, qual, text, flags, address, subs]; subs [elts, items, elem, bound].
def _values_to_json(data: tuple) -> list:
    return [_value_to_json(item) for item in data]


def _value_to_json(item: tuple) -> list:
    plain, addr, subs = item
    if not isinstance(plain, Value):
        raise TypeError("not a value")
    enc = None
    if subs is not None:
        elts, items, elem, bound = subs
        enc = [[_values_to_json(e) for e in elts] if elts is not None else None,
               [[k, _values_to_json(e)] for k, e in items] if items is not None else None,
               _values_to_json(elem) if elem is not None else None,
               _values_to_json(bound) if bound is not None else None]
    return [plain.kind.value, plain.device, plain.qual, plain.text, sorted(plain.flags),
            list(addr) if addr is not None else None, enc]


def _values_from_json(raw: list) -> tuple:
    if not isinstance(raw, list):
        raise TypeError("not a list")
    return tuple(_value_from_json(item) for item in raw)


def _opt_str(x: object) -> str | None:
    if x is not None and not isinstance(x, str):
        raise TypeError("not a string")
    return x


def _value_from_json(raw: list) -> tuple:
    kind, device, qual, text, flags, addr, subs = raw
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise TypeError("bad flags")
    plain = Value(Kind(kind), device=_opt_str(device), qual=_opt_str(qual),
                  text=_opt_str(text), flags=frozenset(flags))
    dec = None
    if subs is not None:
        elts, items, elem, bound = subs
        dec = (tuple(_values_from_json(e) for e in elts) if elts is not None else None,
               tuple((k, _values_from_json(e)) for k, e in items) if items is not None
               else None,
               _values_from_json(elem) if elem is not None else None,
               _values_from_json(bound) if bound is not None else None)
    return plain, _addr_from_json(addr), dec


def _addr_from_json(raw: object) -> tuple | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 6 or not isinstance(raw[0], str):
        raise TypeError("bad address")
    return tuple(raw)


def _ctx_to_json(ctx: tuple | None) -> list | None:
    if ctx is None:
        return None
    depth, args = ctx
    return [depth, [[name, _values_to_json(vs)] for name, vs in args]]


def _ctx_from_json(raw: object) -> tuple | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise TypeError("bad context")
    depth, args = raw
    if not isinstance(depth, int):
        raise TypeError("bad depth")
    return depth, tuple((str(name), _values_from_json(vs)) for name, vs in args)


def _setup_value(v: Value) -> bool:
    """An object a step runs with (:data:`_SETUP_KINDS`, or an instance of a project
    class), or a tuple, list or dict that
    holds one (``{"train": DataLoader(...), "val": ...}`` handed to ``engine.fit``)."""
    if v.kind in _SETUP_KINDS or v.kind is Kind.OBJECT and isinstance(v.node, nodes.ClassDef):
        return True  # (an instance of a project class: a trainer handed to its callbacks)
    return v.kind in (Kind.TUPLE, Kind.LIST, Kind.DICT) and any(
        p.kind in _SETUP_KINDS for part in V.parts(v) for p in part)


def _factories(ev: Evaluator, klass: nodes.ClassDef, d: int) -> list[str]:
    """Names of the top-level functions of ``klass``'s module that build an instance of it
    and return it (``def make_loss(cfg): return RegressionLoss(...)``): the modules that
    call one of them hold instances of the class without naming it."""
    found: list[str] = []
    for name in ev.name_uses(klass.name):
        call = name.parent
        if not (isinstance(call, nodes.Call) and call.func is name):
            continue
        func = call.scope()
        if not isinstance(func, nodes.FunctionDef) or not isinstance(func.parent, nodes.Module) \
                or func.name in found:
            continue
        if any(v.kind in (Kind.MODULE, Kind.OBJECT) and v.node is klass
               for v in ev.returns(func, None, d)):
            found.append(func.name)
    return found


def _named_sites(an: Analyzer, attr: str, name: str, method: bool) -> list[nodes.Call]:
    """The calls of a caller module that may run method ``attr`` of the class ``name``:
    calls of ``<obj>.attr`` for a method (``super().attr`` among them), else of the class
    itself and ``super().__init__`` in the module's subclasses of it."""
    from flake8_xla.analysis.flows import is_super_call

    if method:
        return an.calls_named(attr)
    return [*an.calls_named(name), *(c for c in an.calls_named(attr) if is_super_call(c))]


def _position(func: nodes.FunctionDef, param: nodes.AssignName, bound_self: bool
              ) -> tuple[int | None, str] | None:
    """Where a call passes ``param`` of ``func``: ``(position among the call's positional
    arguments or None, keyword)``; None for ``*args``/``**kwargs`` (any argument may)."""
    args = func.args
    if param is args.vararg or param is args.kwarg or param.name in (args.vararg, args.kwarg):
        return None
    names = [a.name for a in [*(args.posonlyargs or ()), *(args.args or ())]]
    if bound_self and names:
        names = names[1:]
    if param.name in names:
        return names.index(param.name), param.name
    return None, param.name  # keyword-only


def _walk_values(vs: Iterable[Value], depth: int = 0) -> Iterable[Value]:
    for v in vs:
        yield v
        if depth >= 3:
            continue
        for part in (*(v.elts or ()), *(s for _, s in v.items or ()), v.elem or (),
                     v.bound or ()):
            yield from _walk_values(part, depth + 1)


def _hands_over_functions(an: Analyzer) -> bool:
    """A call of the module passes one of the module's own functions as an argument: a
    callback that another module's loop may run, a ``def`` or a lambda bound to a name
    (``report = lambda step, loss: print(...)``) (memoised with the tree; a lambda written
    in the call, such as a test's ``lambda x: x + 1`` handed to an assertion helper, is
    not looked for)."""
    from flake8_xla.analysis.flows import bound_lambda, syntax_cache

    table = syntax_cache(an.module)
    found = table.get("hands_over_functions")
    if found is None:
        found = False
        defined = {f.name for f in an.module_nodes(nodes.FunctionDef)} | {
            t.name for a in an.module_nodes(nodes.Assign) if isinstance(a.value, nodes.Lambda)
            for t in a.targets if isinstance(t, nodes.AssignName)}
        for call in an.module_nodes(nodes.Call) if defined else ():
            for arg in (*call.args, *(k.value for k in call.keywords or ())):
                if isinstance(arg, nodes.Name) and arg.name in defined and any(
                        isinstance(b, nodes.FunctionDef) or bound_lambda(b) is not None
                        for b in an.ev.bindings(arg)):
                    found = True
                    break
            if found:
                break
        table["hands_over_functions"] = found
    return found


class Session:
    """The project modules one checked file's analysis reaches (see the module docstring).

    Args:
        index: the project's index.
        rel: the checked file's index key.
        target: ``"auto"`` or ``"all"`` (which modules count as XLA code for callers).
    """

    def __init__(self, index: ProjectIndex, rel: str, target: str, *,
                 nested: bool = False) -> None:
        self.index = index
        self.rel = rel
        self.target = target
        #: a session of :meth:`_step_calls`: its module's step region takes no roots from
        #: calling modules, so that one question cannot fan out over a whole tree of
        #: callers of callers (a step root is one call away from a step region)
        self.nested = nested
        self.current: Analyzer | None = None
        self._by_rel: dict[str, Analyzer | None] = {}
        self._by_module: dict[int, tuple[str, Analyzer]] = {}
        self._entries: dict[int, list[nodes.NodeNG]] = {}
        self._params: dict[tuple[int, str], list[frozenset[Value]]] = {}
        # the call sites in other modules that param_values read, with what each passes,
        # per function and parameter
        self._passed_at: dict[tuple[int, str], list[tuple[str, nodes.Call,
                                                          frozenset[Value]]]] = {}
        #: every call site param_values read, per function and parameter (None: not all)
        self._sites_read: dict[tuple[int, str], list[nodes.Call] | None] = {}
        self._constructions: dict[int, list[tuple[Evaluator, nodes.Call]] | None] = {}
        self._shadows: dict[tuple[int, str], bool] = {}
        self._roots: dict[str, list[tuple[nodes.NodeNG, Ctx | None, str]]] = {}
        self._roots_busy: list[str] = []
        #: id of a step-root function -> the index key of a module whose step calls it
        self.root_callers: dict[int, str] = {}
        self._places: dict[str, dict[tuple, nodes.NodeNG]] = {}
        #: index key -> the module is an imported program (see imported_program)
        self._programs: dict[str, bool] = {}
        self.built = 0
        #: source bytes of the other modules analyzed so far (see MAX_LINKED_BYTES)
        self.linked_bytes = 0
        #: the same for the modules the checked file imports (their own allowance)
        self.direct_bytes = 0
        self._direct: frozenset[str] | None = None
        #: more than one module is linked: only then can a node belong to another module
        self.multi = False

    # ------------------------------------------------------------------ analyzers
    def attach(self, an: Analyzer, rel: str | None = None) -> None:
        """Register ``an`` as the analyzer of ``rel`` (default: the checked file) and link it."""
        rel = self.rel if rel is None else rel
        if rel == self.rel:
            self.current = an
        self._by_rel[rel] = an
        self._by_module[id(an.module)] = (rel, an)
        self.multi = len(self._by_module) > 1
        an.link = self
        an.ev.link = self
        an.qualname.link = self
        an.qualname.module = an.module

    def _direct_imports(self) -> frozenset[str]:
        """Index keys of the project modules that the checked file imports itself."""
        if self._direct is None:
            self._direct = frozenset(self.index.import_targets(self.rel))
        return self._direct

    def analyzers(self) -> list[Analyzer]:
        """The analyzers this session built or attached (its checked module's among them)."""
        return [a for a in self._by_rel.values() if a is not None]

    def analyzer(self, rel: str) -> Analyzer | None:
        """The analyzer of a project module (built on first use; None past the budget, for a
        library copy, or when the file cannot be built)."""
        if rel in self._by_rel:
            return self._by_rel[rel]
        if self.built >= MAX_MODULES or self.index.is_library(rel) or not rel.endswith(".py"):
            return None
        size = self.index.files.get(rel, (0, 0))[0]
        if size > MAX_MODULE_BYTES:
            self._by_rel[rel] = None
            return None
        if rel in self._direct_imports():
            # A module the checked file imports has an allowance of its own: the functions
            # its step loop calls are there, and questions about other modules (callers,
            # constructions elsewhere) must not spend it first.
            if self.direct_bytes + size > MAX_LINKED_BYTES:
                self._by_rel[rel] = None
                return None
            self.direct_bytes += size
        elif self.linked_bytes + size > MAX_LINKED_BYTES:
            self._by_rel[rel] = None
            return None
        else:
            self.linked_bytes += size
        self.built += 1
        found = _tree(self.index, rel)
        an = None
        if found is not None:
            from flake8_xla.analysis import Analyzer
            an = Analyzer(found[0], found[1])
            self.attach(an, rel)
        else:
            self._by_rel[rel] = None
        return an

    def shared_module(self, source: str, tree: ast.Module, imports: ImportTable,
                      strict: bool = False) -> nodes.Module | None:
        """The checked file's astroid tree from the per-process cache (built from flake8's
        ``tree`` and stored there when missing), so that results computed in other sessions
        refer to the same nodes; None when ``source`` is not the file on disk (an editor's
        unsaved buffer): the caller then builds a tree of its own."""
        from flake8_xla.analysis.build import build_module

        if not self.index.holds_text(self.rel, source):
            return None
        key = _tree_key(self.index, self.rel)
        held = _TREES.get(key)
        if held is not None and held[2] == source:
            _TREES.move_to_end(key)
            return held[0]
        module = build_module(source, "flake8_xla_checked", tree, strict=strict)
        if self.index.imported(self.rel, every_module=self.target == "all"):
            # kept only for a module that others import (whose analyses may link it):
            # a tree kept past its file survives the young collection and is scanned
            # again by the older ones
            _remember(key, (module, imports, source), self.rel)
        return module

    def _owner(self, node: nodes.NodeNG) -> tuple[str, Analyzer] | None:
        root = node.root()
        found = self._by_module.get(id(root))
        if found is None and isinstance(root, nodes.Module):
            rel = _shared_rel(root)  # a value from a cached result: link its module here
            if rel is not None and rel not in self._by_rel and self.analyzer(rel) is not None:
                found = self._by_module.get(id(root))
        return found

    def evaluator_of(self, node: nodes.NodeNG) -> Evaluator | None:
        """The Evaluator of the module that holds ``node`` (None: a module not linked)."""
        owner = self._owner(node)
        return owner[1].ev if owner is not None else None

    def analyzer_of(self, node: nodes.NodeNG) -> Analyzer | None:
        """The analyzer of the module that holds ``node`` (None: a module not linked)."""
        owner = self._owner(node)
        return owner[1] if owner is not None else None

    def steps_of(self, func: nodes.NodeNG) -> Steps | None:
        """The Steps of the module that defines ``func``."""
        owner = self._owner(func)
        return owner[1].steps if owner is not None else None

    def neighbour_analyzers(self, hops: int = 2,
                            rank: Callable[[FileFacts], int | None] | None = None
                            ) -> list[Analyzer]:
        """Analyzers of the modules around the checked file, nearest first: those it imports
        or calls into and the XLA-code modules importing it, then theirs, up to ``hops``
        steps away (a loader built in ``data.py``, passed on by ``train.py`` to the loop of
        ``engine.py``); at most :data:`MAX_NEIGHBOURS`, within the session's module budget.
        For questions about where the checked file's own values go.

        ``rank``: how likely a module's syntax facts make it to matter for the question
        (0 first, then 1, ...; None: it cannot matter). The modules within reach are
        ordered by rank, then by distance, so that a script importing many model modules
        does not spend the budget before the module that runs its loop; a module that
        cannot matter is passed through to the next hop but not analyzed.
        """
        return list(self.iter_neighbour_analyzers(hops, rank))

    def iter_neighbour_analyzers(self, hops: int = 2,
                                 rank: Callable[[FileFacts], int | None] | None = None
                                 ) -> Iterator[Analyzer]:
        """:meth:`neighbour_analyzers`, each built only when the caller asks for the next
        (a question answered by the first ones spends no budget on the others)."""
        own = self._by_rel.get(self.rel)
        if own is not None:
            # The checked file's own step region first: the modules its names and calls
            # resolve into come before the neighbours' within the module budget (a
            # neighbour search run first could spend it all, leaving the file's own
            # imports unknown).
            own.steps.step_region()
        every = self.target == "all"
        found: list[tuple[int, int, int, str]] = []
        seen = {self.rel}
        frontier = [self.rel]
        for hop in range(hops):
            nxt: list[str] = []
            for rel in frontier:
                for other in self.index.neighbours(rel, every_module=every):
                    if other in seen:
                        continue
                    seen.add(other)
                    if len(seen) > MAX_NEIGHBOUR_SCAN:
                        break
                    nxt.append(other)
                    level: int | None = 0
                    if rank is not None:
                        facts = self.index.facts(other)
                        level = rank(facts) if facts is not None else 0
                    if level is not None:
                        found.append((level, hop, len(found), other))
            frontier = nxt
        given = 0
        for _, _, _, other in sorted(found):
            if given >= MAX_NEIGHBOURS:
                break
            an = self.analyzer(other)
            if an is not None:
                given += 1
                yield an

    def home_is_xla_code(self, node: nodes.NodeNG) -> bool:
        """``node`` lies in a linked module that is XLA code (a finding there is reported
        when that module is checked)."""
        owner = self._owner(node)
        if owner is None:
            return False
        return self.target == "all" or self.index.is_xla_code(self.index.path(owner[0]))

    def called_from_xla_code(self, ev: Evaluator, func: nodes.NodeNG) -> bool:
        """``func``, a top-level function of ``ev``'s module, is named by another module
        that is XLA code (so it runs on the XLA path whatever its own module does)."""
        rel = self._top_level_home(ev, func)
        return rel is not None and self.index.used_by_xla_code(rel, func.name)

    def method_called_from_xla_code(self, ev: Evaluator, func: nodes.NodeNG) -> bool:
        """``func``, a method of a top-level class of ``ev``'s module, may be run by another
        module that is XLA code: one that names the class (a subclass of it, an instance)
        and calls a method of that name (``ClassificationTrainer(cfg)._do_train(n)`` in the
        replica function of a subclass's module runs the base class's ``_do_train``)."""
        return self._method_spelled(ev, func, called=True)

    def method_named_elsewhere(self, ev: Evaluator, func: nodes.NodeNG) -> bool:
        """``func``, a method of a top-level class of ``ev``'s module, is named by another
        module that is XLA code and names the class, called or handed on as a value
        (``collate_fn=dataset.collate_fn`` with ``dataset = TextMelDataset(...)``)."""
        return self._method_spelled(ev, func, called=False)

    def _method_spelled(self, ev: Evaluator, func: nodes.NodeNG, called: bool) -> bool:
        """An XLA-code module that names the top-level class of ``func`` calls a method of
        its name (``called``) or spells the name at all."""
        klass = func.parent
        if not (isinstance(func, nodes.FunctionDef) and isinstance(klass, nodes.ClassDef) and
                isinstance(klass.parent, nodes.Module)):
            return False
        owner = self._by_module.get(id(ev.module))
        if owner is None:
            return False
        for rel in self.index.callers(owner[0], [klass.name]):
            facts = self.index.facts(rel)
            if facts is not None and func.name in (facts.call_attrs if called else
                                                   facts.idents):
                return True
        return False

    def used_only_here(self, ev: Evaluator, klass: nodes.ClassDef) -> bool:
        """No module that is XLA code names ``klass``, a top-level class of ``ev``'s
        module, and the project decides what is XLA code (``auto``)."""
        if self.target != "auto" or not isinstance(klass.parent, nodes.Module):
            return False
        owner = self._by_module.get(id(ev.module))
        return owner is not None and not self.index.used_by_xla_code(owner[0], klass.name)

    def only_off_xla(self, ev: Evaluator, func: nodes.NodeNG) -> bool:
        """``func``, a top-level function of ``ev``'s module, is called only by modules that
        are not XLA code (see :meth:`~flake8_xla.project.index.ProjectIndex.used_only_off_xla`)."""
        rel = self._top_level_home(ev, func)
        return rel is not None and self.index.used_only_off_xla(rel, func.name)

    def decorated_with(self, ev: Evaluator, deco: nodes.FunctionDef) -> list[nodes.FunctionDef]:
        """The functions that other modules of the project (XLA code that imports ``ev``'s
        module and spells the decorator's name) decorate with ``@deco``, a top-level
        function of ``ev``'s module."""
        from flake8_xla.analysis.flows import _decorated_with

        if not isinstance(deco.parent, nodes.Module):
            return []
        return [f for an in self._spellers(ev, deco.name) for f in _decorated_with(an.ev, deco)]

    def _spellers(self, ev: Evaluator, name: str) -> Iterator[Analyzer]:
        """The analyzers of the other modules that import ``ev``'s module and spell
        ``name`` (see :meth:`_callers`)."""
        owner = self._by_module.get(id(ev.module))
        if owner is None:
            return
        for rel in self._callers(owner[0], [name]):
            an = self.analyzer(rel)
            if an is not None and an.module is not ev.module:
                yield an

    def handed_as(self, ev: Evaluator, func: nodes.NodeNG, keyword: str) -> bool:
        """Another module of the project (one that imports ``ev``'s module and spells the
        name of ``func``, a top-level function) passes ``func`` as ``keyword=`` of a call,
        itself or bound by ``functools.partial`` (``collate_fn=partial(pad_batch, ...)``)."""
        from flake8_xla.analysis.hooks import is_partial

        if not isinstance(func, nodes.FunctionDef) or not isinstance(func.parent, nodes.Module):
            return False
        for an in self._spellers(ev, func.name):
            for kw in an.module_nodes(nodes.Keyword):
                value = kw.value
                if kw.arg != keyword:
                    continue
                if isinstance(value, nodes.Call) and value.args and is_partial(an.ev, value):
                    value = value.args[0]
                if isinstance(value, (nodes.Name, nodes.Attribute)) and any(
                        v.kind is Kind.FUNCTION and v.node is func for v in an.value(value)):
                    return True
        return False

    def never_called(self, ev: Evaluator, func: nodes.NodeNG) -> bool:
        """``func``, a top-level function of ``ev``'s module, which shows no XLA use of its
        own, is named by no other module of the project (see
        :meth:`~flake8_xla.project.index.ProjectIndex.used_nowhere`)."""
        rel = self._top_level_home(ev, func)
        return rel is not None and self.index.used_nowhere(rel, func.name)

    def module_rel(self, module: nodes.Module) -> str | None:
        """The index key of a module tree this session analyses, else None."""
        owner = self._by_module.get(id(module))
        return owner[0] if owner is not None else None

    def named_elsewhere(self, ev: Evaluator, func: nodes.NodeNG) -> bool:
        """Another module of the project may call ``func``, a function or method of
        ``ev``'s module: a module that imports it spells its name (True when its module
        is not known)."""
        owner = self.module_rel(ev.module)
        if owner is None or not isinstance(func, nodes.FunctionDef):
            return True
        return self.index.spelled_elsewhere(owner, func.name)

    def called_only_off_path(self, ev: Evaluator, func: nodes.NodeNG,
                             branch_only: bool = False) -> bool:
        """Every call of ``func`` (a top-level function, or a top-level class or its
        ``__init__``: its constructions) in the XLA-code modules that name it sits off the
        XLA path there (``else: utils.init_distributed_mode(args)  # the GPU path``), and
        there is at least one. ``branch_only``: off the path by a branch around the call
        itself (not because its function is)."""
        from flake8_xla.analysis.paths import BRANCHES, _branch_off_xla, off_xla_path

        found = self.calls_elsewhere(ev, func)
        return bool(found) and all(
            _branch_off_xla(call, an.ev, BRANCHES) if branch_only else off_xla_path(call, an.ev)
            for an, call in found or ())

    def calls_elsewhere(self, ev: Evaluator, func: nodes.NodeNG
                        ) -> list[tuple[Analyzer, nodes.Call]] | None:
        """The calls of ``func`` (a top-level function, or a top-level class or its
        ``__init__``: its constructions) in the other XLA-code modules that name it, each
        with its module's analyzer (``auto`` only); None when they cannot all be known:
        more than :data:`MAX_CALLERS` such modules, one that cannot be analysed, or one that
        also hands ``func`` over as a value (``xmp.spawn(_mp_fn)``)."""
        if self.target != "auto" or not isinstance(func, (nodes.FunctionDef, nodes.ClassDef)):
            return None
        callee: nodes.NodeNG = func
        if func.name == "__init__" and isinstance(func.parent, nodes.ClassDef):
            callee = func.parent
        if not isinstance(callee.parent, nodes.Module):
            return None
        owner = self._by_module.get(id(ev.module))
        if owner is None:
            return None
        callers = self.index.callers(owner[0], [callee.name])
        if len(callers) > MAX_CALLERS:
            return None
        out: list[tuple[Analyzer, nodes.Call]] = []
        for rel in callers:
            an = self.analyzer(rel)
            if an is None:
                return None
            if an.module is ev.module:
                continue
            spelled = an.spellings([callee.name])
            calls = [c for name in sorted(spelled) for c in an.calls_named(name)]
            # (a name read as the object of an attribute is a module or an object of
            # the same name, ``train.train(...)``, not the function handed over)
            uses = [n for n in an.module_nodes((nodes.Name, nodes.Attribute))
                    if (n.name if isinstance(n, nodes.Name) else n.attrname) in spelled and
                    not (isinstance(n.parent, nodes.Attribute) and n.parent.expr is n)]
            if len(uses) > len(calls):
                return None  # also handed over as a value (``xmp.spawn(_mp_fn)``)
            out.extend((an, call) for call in calls if any(
                v.node is callee for v in an.ev.value(call.func)
                if v.kind in (Kind.FUNCTION, Kind.CLASS)))
        return out

    def imported_program(self, ev: Evaluator) -> bool:
        """``ev``'s module is XLA code only because XLA programs import it (``auto``): it
        shows no XLA use itself, and no project module it imports does. Its
        ``if __name__ == "__main__":`` block runs when it is run as a program of its own,
        on no XLA device (``train.py`` for the GPU beside a ``train_tpu.py`` that imports
        its argument parsing)."""
        if self.target != "auto":
            return False
        owner = self._by_module.get(id(ev.module))
        if owner is None:
            return False
        rel = owner[0]
        found = self._programs.get(rel)
        if found is None:
            found = self._programs[rel] = all(
                (s := self.index.summary(m)) is not None and not s.xla
                for m in (rel, *self.index.import_targets(rel)))
        return found

    def _top_level_home(self, ev: Evaluator, func: nodes.NodeNG) -> str | None:
        """The index key of ``ev``'s module when ``func`` is one of its top-level functions
        and the project decides what is XLA code (``auto``), else None."""
        if self.target != "auto" or not isinstance(func, nodes.FunctionDef) or \
                not isinstance(func.parent, nodes.Module):
            return None
        owner = self._by_module.get(id(ev.module))
        return owner[0] if owner is not None else None

    def rel_of(self, an: Analyzer) -> str | None:
        """The index key of a linked analyzer's module."""
        return self.module_rel(an.module)

    # ------------------------------------------------------------------ evaluator hooks
    def foreign_value(self, node: nodes.NodeNG, ctx: Ctx | None, depth: int
                      ) -> frozenset[Value]:
        """The value of a node of another module, from that module's own Evaluator."""
        ev = self.evaluator_of(node)
        return ev.value(node, ctx, depth) if ev is not None else UNKNOWN_SET

    def foreign_binding(self, b: nodes.NodeNG, use: nodes.NodeNG | None, ctx: Ctx | None,
                        d: int) -> frozenset[Value]:
        """The value a binding of another module gives, from that module's Evaluator."""
        ev = self.evaluator_of(b)
        if ev is None:
            return UNKNOWN_SET
        if use is not None and use.root() is not b.root():
            use = None
        return ev.binding_value(b, use, ctx, d)

    def foreign_qualname(self, node: nodes.NodeNG) -> str | None:
        """The qualified name of a node of another module, from its own import table."""
        owner = self._owner(node)
        return owner[1].qualname(node) if owner is not None else None

    def _importer(self, ev: Evaluator) -> tuple[str, Analyzer] | None:
        return self._by_module.get(id(ev.module))

    def resolve(self, ev: Evaluator, q: str, node: nodes.NodeNG | None, d: int,
                hops: int = 0) -> frozenset[Value] | None:
        """What the project defines under the qualified name ``q`` as ``ev``'s module
        spells it, or None (a library name, not a project name, or out of budget)."""
        hit = self._project_member(ev, q) if hops <= _MAX_REEXPORT else None
        if hit is None:
            return None
        target, rest = hit
        an = self.analyzer(target)
        if an is None:
            return None
        found = self._member(an, target, rest[0], d, hops)
        if found is None:
            return None
        for attr in rest[1:]:
            found = ev.attribute(found, attr, None, None, d)
        if node is not None:
            self._record(found, node)
        return found

    def _member(self, an: Analyzer, rel: str, name: str, d: int, hops: int
                ) -> frozenset[Value] | None:
        """Top-level ``name`` of ``an``'s module: its def, class, value or re-export."""
        binds = an.module.locals.get(name, [])
        out: list[frozenset[Value]] = []
        for b in binds:
            if isinstance(b, nodes.FunctionDef):
                out.append(one(Kind.FUNCTION, node=b))
            elif isinstance(b, nodes.ClassDef):
                out.append(one(Kind.CLASS, node=b))
            elif isinstance(b, (nodes.Import, nodes.ImportFrom)):
                q = an.imports.resolve(name)
                if q is None:
                    continue
                inner = self.resolve(an.ev, q, None, d, hops + 1)
                out.append(inner if inner is not None else one(Kind.REF, qual=q))
            elif isinstance(b, nodes.AssignName):
                out.append(an.ev.binding_value(b, None, None, d))
        if not out:
            s = self.index.summary(rel)
            for module, level, names in s.imports if s is not None else ():
                if "*" not in names:
                    continue
                star = self.index.resolve(rel, module, level)
                if star is None or not star.endswith(".py") or self.index.is_library(star):
                    continue
                other = self.analyzer(star)
                if other is not None and hops < _MAX_REEXPORT:
                    found = self._member(other, star, name, d, hops + 1)
                    if found is not None:
                        out.append(found)
                        break
        return join(*out) if out else None

    def star_name(self, module: nodes.Module, star: str, name: str) -> str | None:
        """The qualified name a free ``name`` of ``module`` has when its star import of
        ``star`` (as its import table spells it) is a project module that binds it at its
        top level, or re-exports it from a module of its own (``pkg/__init__.py``:
        ``from .transcriber import OnsetsAndFrames``); else None."""
        owner = self._by_module.get(id(module))
        if owner is None:
            return None
        hit = self.index.resolve_name(owner[0], star)
        if hit is not None and not hit[1] and self._binds(hit[0], name, 0):
            # (a name the module imports from a library keeps the library's name:
            # ``from torch.nn.utils.rnn import pad_sequence`` in ``utils/data_utils.py``)
            return self._library_import(hit[0], name) or f"{star}.{name}"
        return None

    def _library_import(self, rel: str, name: str) -> str | None:
        """The qualified name of ``name`` when the project module ``rel`` imports it by name
        from a module outside the project, else None."""
        from flake8_xla.imports import canonical

        s = self.index.summary(rel)
        if s is None or name in s.defs:
            return None
        for module, level, names in s.imports:
            if name in names and level == 0 and module and \
                    self.index.resolve(rel, module, level) is None:
                return canonical(f"{module}.{name}")
        return None

    def _binds(self, rel: str, name: str, depth: int) -> bool:
        """The project module ``rel`` binds ``name`` at its top level, imports it by name,
        or star-imports a project module that does (``from .net import *``)."""
        if depth > _MAX_REEXPORT or self.index.is_library(rel) or not rel.endswith(".py"):
            return False
        s = self.index.summary(rel)
        if s is None:
            return False
        if name in s.defs or any(name in names for _, _, names in s.imports):
            return True
        for module, level, names in s.imports:
            if "*" in names:
                star = self.index.resolve(rel, module, level)
                if star is not None and self._binds(star, name, depth + 1):
                    return True
        return False

    def call(self, ev: Evaluator, q: str, call: nodes.Call, ctx: Ctx | None, d: int
             ) -> frozenset[Value] | None:
        """The value a call of the project name ``q`` returns, or None (not a project name)."""
        callee = self.resolve(ev, q, call.func, d)
        if callee is None:
            # a function of a module of the project that is not analysed (past the
            # budget, or too big): its result is not known, whatever it is handed (never
            # read as a library function's, which returns the tensors it is given)
            return UNKNOWN_SET if self._unanalysed_member(ev, q) else None
        head, _, last = q.rpartition(".")
        if not V.is_known(callee) and head:
            # ``registry.TRAINERS.get(kind)``: a method of a value the project defines
            base = self.resolve(ev, head, None, d)
            if base is not None and V.is_known(base):
                out = [ev._method_call(v, last, call, ctx, d) for v in base]
                return join(*out) if out else UNKNOWN_SET
        out = [ev._call_of(v, call, ctx, d) for v in callee]
        return join(*out) if out else UNKNOWN_SET

    def _project_member(self, ev: Evaluator, q: str) -> tuple[str, list[str]] | None:
        """``(module, names)`` when the qualified name ``q``, as ``ev``'s module spells it,
        names something (not a module itself, which stays a REF) that a module of the
        project defines; None for a name of the API model or of a library."""
        if ev.api.call(q.lstrip(".")) is not None and not q.startswith(".") and (
                ev.api.exact(q) or not self.shadows_library(ev, q)):
            return None
        importer = self._importer(ev)
        hit = self.index.resolve_name(importer[0], q) if importer is not None else None
        if hit is None or self.index.is_library(hit[0]) or not hit[0].endswith(".py") or \
                not hit[1]:
            return None
        return hit

    def shadows_library(self, ev: Evaluator, q: str) -> bool:
        """The first name of ``q``, as ``ev``'s module spells it, is a module or package of
        the project (not a library copy): ``from datasets.coco import CocoDetection`` in
        a repository with its own ``datasets/`` package imports the project's, whatever
        the API model says of the ``datasets.`` prefix (memoised per module and name)."""
        top = q.split(".", 1)[0]
        key = (id(ev.module), top)
        found = self._shadows.get(key)
        if found is None:
            importer = self._importer(ev)
            hit = self.index.resolve(importer[0], top, 0) if importer is not None and top \
                else None
            found = hit is not None and not self.index.is_library(hit)
            self._shadows[key] = found
        return found

    def _unanalysed_member(self, ev: Evaluator, q: str) -> bool:
        """``q`` names something a module of the project defines, which :meth:`resolve`
        did not analyse."""
        return self._project_member(ev, q) is not None

    def arrived(self, func: nodes.NodeNG, call: nodes.Call, result: frozenset[Value]) -> None:
        """A call of another module's function returned ``result``: remember the call as the
        place where its values entered the caller's module."""
        if func.root() is not call.root():
            self._record(result, call)

    def _record(self, vs: Iterable[Value], anchor: nodes.NodeNG) -> None:
        home = anchor.root()
        for v in _walk_values(vs):
            node = v.node
            if isinstance(node, nodes.NodeNG) and node.root() is not home:
                places = self._entries.setdefault(id(node), [])
                if anchor not in places and len(places) < 8:
                    places.append(anchor)

    def constructions(self, ev: Evaluator, klass: nodes.ClassDef
                      ) -> list[tuple[Evaluator, nodes.Call]] | None:
        """Calls in other project modules that build an instance of ``klass``, a top-level
        class of ``ev``'s module (``DataConfig(root=..., drop_last=True)`` in train.py):
        each with its module's Evaluator. None when a module that names the class cannot
        be analyzed (what it passes is then unknown)."""
        owner = self._by_module.get(id(ev.module))
        if owner is None or not isinstance(klass.parent, nodes.Module):
            return []
        if id(klass) in self._constructions:
            return self._constructions[id(klass)]
        self._constructions[id(klass)] = []  # in progress: a cycle adds nothing
        out: list[tuple[Evaluator, nodes.Call]] | None = []
        for caller in self._callers(owner[0], [klass.name]):
            an = self.analyzer(caller)
            if an is None:
                out = None
                break
            if an.module is ev.module:
                continue
            for call in an.calls_named(klass.name):
                if len(out) >= MAX_REMOTE_SITES:
                    out = None
                    break
                out.append((an.ev, call))
            if out is None:
                break
        self._constructions[id(klass)] = out
        return out

    def param_values(self, ev: Evaluator, func: nodes.NodeNG, param: nodes.AssignName,
                     d: int) -> list[frozenset[Value]]:
        """Values that call sites in other project modules pass for ``param`` of ``func``:
        modules that are XLA code and name the function (a top-level function, or a
        top-level class for its ``__init__``). Past :data:`MAX_REMOTE_SITES` sites, one
        UNKNOWN_SET is added."""
        from flake8_xla.analysis.flows import enclosing_class, enclosing_function, is_super_call

        key = (id(func), param.name)
        if key in self._params:
            return self._params[key]
        self._params[key] = []  # in progress: a cycle adds nothing
        owner = self._by_module.get(id(ev.module))
        exported = self._exported(func)
        found: list[frozenset[Value]] = []
        per_step: list[frozenset[Value]] = []  # a method's values, unfiltered, per site
        read: list[nodes.Call] | None = None if owner is None else []
        if owner is not None and exported is not None:
            name, bound_self = exported
            method = bound_self and func.name != "__init__"
            sites = 0
            names = (name,)
            if method:
                # callers may hold an instance of a subclass (of the same module) that
                # inherits the method
                names += tuple(c.name for c in ev.module_nodes(nodes.ClassDef)
                               if func.name not in c.locals and any(
                                   isinstance(b, nodes.Name) and b.name == name
                                   for b in c.bases))
            callers = self._callers(owner[0], names)
            if method:
                # an instance of a subclass that an importing module defines
                # (``class LMTrainer(BaseTrainer)`` in ``lm_trainer.py``), built and used by
                # that module's importers (``trainer.train(model, loader)``)
                extra: list[str] = []
                for sub in callers:
                    extra += [m for m in self.index.attr_callers(
                        sub, [func.name], every_module=self.target == "all")
                        if m not in callers and m not in extra and m != owner[0]]
                # (only the modules that call the method are analyzed: a subclass's module
                # that never calls it costs no part of the session's budget)
                callers = [m for m in callers
                           if self.index.calls_attr(m, [func.name], unknown=True)] + \
                    extra[:MAX_CALLERS]
                # an object handed over by the module that builds it (dependency injection)
                callers += self._method_callers(owner[0], [func.name], callers)
            for caller in callers:
                an = self.analyzer(caller)
                if an is None:
                    continue
                for call in _named_sites(an, func.name, name, method):
                    if is_super_call(call):
                        # ``super().__init__(model.to(device), opt)`` in a subclass that
                        # another module defines: self is that subclass's instance
                        if not any(m is func for m, _ in an.ev.callees(call, None, d)):
                            continue
                        outer = enclosing_function(call)
                        klass = enclosing_class(outer) if outer is not None else None
                        self_v = an.ev.instance(klass, open_=True) if klass is not None \
                            else V.UNKNOWN_SET
                    elif method:
                        # ``fitter.fit(loader)`` on an instance of the method's class
                        if not isinstance(call.func, nodes.Attribute):
                            continue
                        self_v = frozenset(
                            v for v in an.ev.value(call.func.expr, None, d)
                            if v.kind is Kind.OBJECT and isinstance(v.node, nodes.ClassDef)
                            and (v.node is func.parent or
                                 an.ev.method_of(v.node, func.name) is func))
                        if not self_v:
                            continue  # (an instance of the class, or of a subclass
                            # that inherits the method)
                    else:
                        callee = func if not bound_self else func.parent
                        if not any(v.node is callee for v in an.ev.value(call.func, None, d)
                                   if v.kind in (Kind.FUNCTION, Kind.CLASS)):
                            continue
                        self_v = V.UNKNOWN_SET if bound_self else None
                    sites += 1
                    if sites > MAX_REMOTE_SITES:
                        break
                    if read is not None:
                        read.append(call)
                    passed = an.ev.call_arguments(call, None, d,
                                                  only=_position(func, param, bound_self))
                    bound = ev.ctx_for_values(func, passed, None, 1, d, self_v)
                    value = bound.arg(param.name)
                    if value is not None and method:
                        # Without the caller's context a method's parameters take what
                        # every call site passes at once: only the objects a step runs
                        # with are kept (a loader handed to ``fitter.fit``), never
                        # per-step values (a meter's ``update(value)`` is called with
                        # tensors at one site and floats at another), unless every
                        # site passes tensors on the XLA device (see below)
                        per_step.append(value)
                        value = frozenset(v for v in value if _setup_value(v))
                    if value:
                        found.append(value)
                        self._record(value, param)
                        seen_at = self._passed_at.setdefault((id(func), param.name), [])
                        if all(c is not call for _, c, _ in seen_at):
                            seen_at.append((caller, call, value))
                if sites > MAX_REMOTE_SITES:
                    read = None
                    if not method:
                        found.append(UNKNOWN_SET)
                    break
            if per_step and sites <= MAX_REMOTE_SITES and all(
                    value and all(v.kind is Kind.TENSOR and v.device == "xla" for v in value)
                    for value in per_step):
                # every call of the method passes a tensor on the XLA device
                # (``meter.update(loss.detach(), n)``, the meter's only use): what it
                # stores is lazy wherever it is read
                found += per_step
        self._params[key] = found
        self._sites_read[key] = read
        return found

    def forward_inputs(self, ev: Evaluator, func: nodes.FunctionDef, klass: nodes.ClassDef,
                       param: nodes.AssignName, d: int) -> list[frozenset[Value]]:
        """What the XLA-code modules that name ``klass`` (a top-level torch module class of
        ``ev``'s module), a subclass of its module that keeps this ``forward``, or a factory
        function of its module that returns an instance, pass for ``param`` of its
        ``forward`` when they call an instance (``loss = model(ids, labels)`` in
        ``train.py``): one value set per call, at most :data:`MAX_REMOTE_SITES` and one
        unknown beyond (memoised)."""
        key = (id(func), "forward:" + param.name)
        if key in self._params:
            return self._params[key]
        self._params[key] = []  # in progress: a cycle adds nothing
        owner = self._by_module.get(id(ev.module))
        found: list[frozenset[Value]] = []
        if owner is not None:
            sites = 0
            # (instances of the class, of a subclass of its module that keeps this forward,
            # and those a factory of its module returns)
            inheriting = [sub.name for sub in ev.subclasses(klass)
                          if isinstance(sub.parent, nodes.Module) and
                          ev.method_of(sub, "forward") is func]
            names = (klass.name, *inheriting, *_factories(ev, klass, d))
            for caller in self._callers(owner[0], names):
                an = self.analyzer(caller)
                if an is None or an.module is ev.module:
                    continue
                for call in an.ev.module_calls(klass, func):
                    sites += 1
                    if sites > MAX_REMOTE_SITES:
                        break
                    found.append(an.ev.passed_value(func, call, param.name, True, d))
                if sites > MAX_REMOTE_SITES:
                    found.append(UNKNOWN_SET)
                    break
        self._params[key] = found
        return found

    def subclass_methods(self, ev: Evaluator, klass: nodes.ClassDef, name: str
                         ) -> list[tuple[nodes.FunctionDef, nodes.ClassDef]]:
        """``(method, class)`` for the subclasses of ``klass`` (a top-level class of
        ``ev``'s module) that other modules of the project define, in the XLA-code modules
        that import it by name, with their own method ``name`` (not a stub): the hooks a
        base class's template method runs (``self.train_step(...)`` in the loop of
        ``BaseTrainer.train``, defined by ``XLATrainer`` in ``xla_trainer.py``)."""
        owner = self._by_module.get(id(ev.module))
        if owner is None or not isinstance(klass.parent, nodes.Module):
            return []
        from flake8_xla.analysis.flows import own_hook
        found: list[tuple[nodes.FunctionDef, nodes.ClassDef]] = []
        for subs in self._subclasses_elsewhere(owner[0], klass, method=name):
            for sub in subs or ():
                method = own_hook(sub, name)
                if method is not None and (method, sub) not in found:
                    found.append((method, sub))
        return found

    def _subclasses_elsewhere(self, rel: str, klass: nodes.ClassDef, method: str | None = None
                              ) -> Iterator[list[nodes.ClassDef] | None]:
        """Per module of the project (other than ``rel``, ``klass``'s own) that names
        ``klass``: its classes derived from it, or None when it cannot be analyzed. With
        ``method``, only the modules whose syntax facts spell that name (the others
        define no such method: their trees are not built for the question)."""
        for caller in self._callers(rel, (klass.name,)):
            if caller == rel:
                continue
            if method is not None:
                facts = self.index.facts(caller)
                if facts is not None and method not in facts.idents:
                    continue
            an = self.analyzer(caller)
            yield an.ev.subclasses(klass) if an is not None else None

    def subclasses(self, ev: Evaluator, klass: nodes.ClassDef) -> list[nodes.ClassDef] | None:
        """Every project class derived from ``klass`` (a top-level class of ``ev``'s
        module): its module's and those of the modules that name it; None when one of
        those cannot be analyzed."""
        owner = self._by_module.get(id(ev.module))
        if owner is None or not isinstance(klass.parent, nodes.Module):
            return None
        found = list(ev.subclasses(klass))
        for subs in self._subclasses_elsewhere(owner[0], klass):
            if subs is None:
                return None
            found += [sub for sub in subs if sub not in found]
        return found

    @staticmethod
    def _exported(func: nodes.NodeNG) -> tuple[str, bool] | None:
        """The module-level name callers use for ``func`` (its class's, for a method), and
        whether ``self`` is bound."""
        if not isinstance(func, nodes.FunctionDef):
            return None
        parent = func.parent
        if isinstance(parent, nodes.Module):
            return func.name, False
        if isinstance(parent, nodes.ClassDef) and isinstance(parent.parent, nodes.Module) and \
                (func.name == "__init__" or not func.name.startswith("__")) and not any(
                isinstance(dec, nodes.Name) and dec.name in ("staticmethod", "classmethod",
                                                             "property")
                for dec in (func.decorators.nodes if func.decorators else ())):
            # ``__init__`` through calls of the class, a method through calls on its
            # instances (``fitter.fit(loader)``)
            return parent.name, True
        return None

    def method_called_elsewhere(self, func: nodes.NodeNG) -> bool:
        """Another module of the project calls an attribute named like ``func`` (a method
        of a module's class): a module that imports its module, within three imports
        (:meth:`~flake8_xla.project.index.ProjectIndex.attr_callers`), or one that such
        an importer hands its objects to (``model._freeze_layers(n)`` in ``train.py``)."""
        owner = self._owner(func)
        if owner is None or not isinstance(func, nodes.FunctionDef):
            return False
        rel, name = owner[0], func.name
        found = self.index.attr_callers(rel, [name], every_module=True)
        return any(m != rel for m in found) or any(
            m != rel for m in self.index.method_callers(rel, [name], every_module=True))

    def _method_callers(self, rel: str, methods: Iterable[str], known: list[str]
                        ) -> list[str]:
        """Modules beside ``rel`` that may call methods of its objects handed to them
        (:meth:`~flake8_xla.project.index.ProjectIndex.method_callers`), less ``known``;
        bounded, sorted."""
        found = self.index.method_callers(rel, methods, every_module=self.target == "all")
        return [m for m in found if m not in known][:MAX_CALLERS]

    def _callers(self, rel: str, names: Iterable[str], deep: bool = False) -> list[str]:
        """XLA-code modules that import ``rel`` and spell one of ``names`` (sorted, bounded;
        ``deep``: see :meth:`~flake8_xla.project.index.ProjectIndex.callers`). The checked
        file comes first when it is one of them: its own call sites are never cut by the
        bounds (a helper that ten scripts call with their loaders)."""
        found = self.index.callers(rel, names, every_module=self.target == "all", deep=deep)
        if self.rel in found:
            found = [self.rel] + [m for m in found if m != self.rel]
        return found[:MAX_CALLERS]

    # ------------------------------------------------------------------ steps
    def step_roots(self, an: Analyzer) -> list[tuple[nodes.NodeNG, Ctx | None, str]]:
        """Functions of ``an``'s module that the step regions of other modules call:
        ``(func, ctx, kind)``, kind as in
        :attr:`~flake8_xla.analysis.steps.Steps.foreign_calls`."""
        rel = self.rel_of(an)
        if rel is None or self.nested:
            return []  # a nested session answers for its own module's step region only
        if rel in self._roots:
            return self._roots[rel]
        if rel in self._roots_busy or len(self._roots_busy) >= MAX_ROOT_CHAIN:
            return []
        self._roots_busy.append(rel)
        out: list[tuple[nodes.NodeNG, Ctx | None, str]] = []
        try:
            defs = [n for n, binds in an.module.locals.items()
                    if any(isinstance(b, (nodes.FunctionDef, nodes.ClassDef)) for b in binds)]
            # a table of the module's functions (``LOSSES = {"focal": focal_loss}``), which
            # an importer looks up and calls (``criterion = LOSSES[args.loss]``)
            named = set(defs)
            defs += [n for n, binds in an.module.locals.items() if n not in named and any(
                isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
                isinstance(b.parent.value, (nodes.Dict, nodes.List, nodes.Tuple)) and any(
                    isinstance(x, nodes.Name) and x.name in named
                    for x in nodes_of(b.parent.value, nodes.Name))
                for b in binds)]
            spent = 0
            # (a step region calls from a loop or a function: an import-time call, such
            # as ``FLAGS = args_parse.parse_common_options()``, is never in one)
            callers = self._callers(rel, defs, deep=True)
            methods = {m.name for klass in an.module.body if isinstance(klass, nodes.ClassDef)
                       for m in klass.mymethods() if not m.name.startswith("__")}
            if methods:
                # an object of this module handed to another module's step (a model built
                # by ``train.py`` and run by the loop of ``evaluator.py``)
                callers += self._method_callers(rel, methods, callers)
                # a module that holds an instance of a subclass defined by one of its
                # imports and calls a method the subclass inherits from here
                # (``trainer.log(loss)`` on an ``XlaTrainer(BaseTrainer)``)
                callers += [m for m in self.index.attr_callers(
                    rel, methods, every_module=self.target == "all")
                    if m not in callers][:MAX_CALLERS]
                # a base class of another module whose template method calls an override
                # of this module (``self.step_optimizer()`` in ``Trainer.train_epoch``, run
                # on a ``ClippedTrainer``)
                xla = None if self.target == "all" else self.index.xla_code()
                callers += [m for m in self.index.import_targets(rel)
                            if m not in callers and (xla is None or m in xla) and
                            self.index.calls_attr(m, methods)][:MAX_CALLERS]
            if _hands_over_functions(an):
                # ``trainer.eval(evaluate)``: a function of this module handed to one it
                # imports runs in that module's step loop
                xla = self.index.xla_code()
                callers += [m for m in self.index.import_targets(rel)
                            if m not in callers and (self.target == "all" or m in xla)
                            ][:MAX_CALLERS]
            for caller in callers:
                size = self.index.files.get(caller, (0, 0))[0]
                if size > MAX_MODULE_BYTES or spent + size > MAX_LINKED_BYTES:
                    continue  # a large caller's step region stays unknown (bounded cost)
                spent += size
                calls = self._step_calls(caller)
                if calls is None:
                    other = self.analyzer(caller)
                    if other is None:
                        continue
                    other.steps.step_region()
                    calls = other.steps.foreign_calls
                for func, fctx, kind in calls:
                    if func.root() is an.module and (func, fctx, kind) not in out:
                        out.append((func, fctx, kind))
                        self.root_callers.setdefault(id(func), caller)
                        if fctx is not None:
                            for _, value in fctx.args:
                                self._record(value, func)
        finally:
            self._roots_busy.remove(rel)
        self._roots[rel] = out
        return out

    def _step_calls(self, rel: str) -> list[tuple[nodes.NodeNG, Any, str]] | None:
        """The calls into other modules of ``rel``'s step region, computed once per process
        in a fresh session of ``rel``'s own; None inside a cycle of such computations."""
        from flake8_xla.analysis import Analyzer

        key = (str(self.index.root.path), rel, self.target)
        held = _STEP_CALLS.get(key)
        if held is None:
            held = self._stored_step_calls(rel)
            if held is not None:
                _STEP_CALLS[key] = held
        if held is None or any(_tree_key(self.index, r) != (str(self.index.path(r)), size, m)
                               for r, size, m in held[0]):
            if key in _STEP_BUSY:
                return None
            tree = _tree(self.index, rel)
            if tree is None:
                return []
            _STEP_BUSY.add(key)
            try:
                own = Session(self.index, rel, self.target, nested=True)
                an = Analyzer(tree[0], tree[1])
                own.attach(an, rel)
                an.steps.step_region()
                calls = [(own._address(f), own._export_ctx(c), kind)
                         for f, c, kind in an.steps.foreign_calls]
                read = [(r, *_tree_key(self.index, r)[1:]) for r, a in own._by_rel.items()
                        if a is not None]
                dismantle(own, [an])
            finally:
                _STEP_BUSY.discard(key)
            held = _STEP_CALLS[key] = (read, calls)
            self._store_step_calls(rel, read, calls)
        out = []
        for addr, ctx, kind in held[1]:
            func = self._node_at(addr)
            if func is not None:
                out.append((func, self._import_ctx(ctx, func), kind))
        return out

    def _record_key(self, rel: str) -> str:
        from flake8_xla.project.results import tool_fingerprint
        return f"{tool_fingerprint()}\0{rel}\0{self.target}"

    def _stored_step_calls(self, rel: str) -> tuple[list[tuple[str, int, int]], list[Any]] | None:
        """:meth:`_step_calls`' result for ``rel`` from the disk cache, when it was computed
        by this very linter and every file it read, with the modules each imports, is as it
        was then; else None (recomputed)."""
        try:
            record = self.index.load_record(STEPS_RECORD, self._record_key(rel))
            if record is None:
                return None
            read = []
            for r, size, m, ctime, inode, targets in record["read"]:
                # (the status-change time and inode too: a copy that put the old
                # modification time back is still an edit)
                if r not in self.index.files or self.index.files[r] != (size, m) or \
                        self.index.changes.get(r) != (ctime, inode) or \
                        list(self.index.import_targets(r)) != targets:
                    return None
                read.append((r, size, m))
            calls = [(_addr_from_json(a), _ctx_from_json(c), str(kind))
                     for a, c, kind in record["calls"]]
        except (KeyError, TypeError, ValueError):
            return None  # malformed: recomputed, never trusted
        return read, calls

    def _store_step_calls(self, rel: str, read: list[tuple[str, int, int]],
                          calls: list[Any]) -> None:
        try:
            record = {"read": [[r, size, m, *self.index.changes.get(r, (0, 0)),
                                list(self.index.import_targets(r))] for r, size, m in read],
                      "calls": [[list(a) if a is not None else None, _ctx_to_json(c), kind]
                                for a, c, kind in calls]}
        except (TypeError, ValueError):
            return
        self.index.save_record(STEPS_RECORD, self._record_key(rel), record)

    # ------------------------------------------------------------------ node addresses
    def _address(self, node: Any) -> tuple | None:
        """A node's place, valid in any session: (rel, type, line, col, end line, end col)."""
        if not isinstance(node, nodes.NodeNG):
            return None
        owner = self._owner(node)
        if owner is None:
            return None
        return (owner[0], type(node).__name__, node.lineno, node.col_offset,
                node.end_lineno, node.end_col_offset)

    def _node_at(self, addr: tuple | None) -> nodes.NodeNG | None:
        """The node of this session at an address (None: gone, or past the budget)."""
        if addr is None:
            return None
        an = self.analyzer(addr[0])
        if an is None:
            return None
        table = self._places.get(addr[0])
        if table is None:
            table = self._places[addr[0]] = {
                (type(n).__name__, n.lineno, n.col_offset, n.end_lineno, n.end_col_offset): n
                for n in an.module_nodes(nodes.NodeNG)}
        return table.get(addr[1:])

    def _export_values(self, vs: frozenset[Value], depth: int = 0) -> tuple:
        return tuple(self._export_value(v, depth) for v in vs)

    def _export_value(self, v: Value, depth: int) -> tuple:
        subs = None
        if depth < 4:
            subs = (tuple(self._export_values(e, depth + 1) for e in v.elts)
                    if v.elts is not None else None,
                    tuple((k, self._export_values(e, depth + 1)) for k, e in v.items)
                    if v.items is not None else None,
                    self._export_values(v.elem, depth + 1) if v.elem is not None else None,
                    self._export_values(v.bound, depth + 1) if v.bound is not None else None)
        plain = v.with_(node=None, elts=None, items=None, elem=None, bound=None)
        return (plain, self._address(v.node), subs)

    def _import_values(self, data: tuple) -> frozenset[Value]:
        return frozenset(self._import_value(item) for item in data)

    def _import_value(self, item: tuple) -> Value:
        plain, addr, subs = item
        changes: dict[str, Any] = {}
        if addr is not None:
            changes["node"] = self._node_at(addr)
        if subs is not None:
            elts, items, elem, bound = subs
            if elts is not None:
                changes["elts"] = tuple(self._import_values(e) for e in elts)
            if items is not None:
                changes["items"] = tuple((k, self._import_values(e)) for k, e in items)
            if elem is not None:
                changes["elem"] = self._import_values(elem)
            if bound is not None:
                changes["bound"] = self._import_values(bound)
        return plain.with_(**changes) if changes else plain

    def _export_ctx(self, ctx: Ctx | None) -> tuple | None:
        if ctx is None:
            return None
        return (ctx.depth, tuple((name, self._export_values(vs)) for name, vs in ctx.args))

    def _import_ctx(self, data: tuple | None, func: nodes.NodeNG) -> Ctx | None:
        from flake8_xla.analysis.flows import Ctx
        if data is None:
            return None
        depth, args = data
        return Ctx(func, {name: self._import_values(vs) for name, vs in args}, None, depth)

    # ------------------------------------------------------------------ findings
    def place(self, node: Any) -> tuple[Any, str] | None | bool:
        """Where a finding at ``node`` goes: None for a node of the checked file (it stays);
        ``(anchor, "data.py:41")`` for a node of another module whose value entered the
        checked file at ``anchor``; False when there is no such place (drop it)."""
        if self.current is None or not isinstance(node, nodes.NodeNG):
            return None
        home = self.current.module
        if node.root() is home:
            return None
        owner = self._owner(node)
        if owner is None:
            return False
        anchor = self._anchor(node, home, 0)
        if anchor is None:
            return False
        return anchor, self._where(owner[0], node)

    def _anchor(self, node: nodes.NodeNG, home: nodes.Module, depth: int
                ) -> nodes.NodeNG | None:
        if depth > 6:
            return None
        best = None
        for place in self._entries.get(id(node), []):
            if place.root() is not home:
                place = self._anchor(place, home, depth + 1)
            if place is not None and (best is None or (place.lineno, place.col_offset) <
                                      (best.lineno, best.col_offset)):
                best = place
        return best

    def where(self, node: nodes.NodeNG) -> str | None:
        """``"engine.py:41"``: a linked module's node as a finding's message names it (the
        path relative to the checked file's folder); None for a node of no linked module."""
        owner = self._owner(node)
        return self._where(owner[0], node) if owner is not None else None

    def remote_calls(self, func: nodes.NodeNG, param: str) -> list[nodes.Call] | None:
        """Every call in other modules that :meth:`param_values` read for ``param`` of
        ``func`` (call it first), whatever it passes; None when that was not read to the
        end (past :data:`MAX_REMOTE_SITES`, still in progress, or a module not linked)."""
        return self._sites_read.get((id(func), param))

    def passed_at(self, func: nodes.NodeNG, param: str,
                  keep: Callable[[frozenset[Value]], bool] | None = None) -> list[str]:
        """Where other modules call ``func`` with the values of ``param`` that
        :meth:`param_values` read (``["train.py:429"]``, relative to the checked file's
        folder), only those whose value ``keep`` accepts; empty when none was read."""
        return [self._where(rel, call) for rel, call, value in
                self._passed_at.get((id(func), param), [])
                if (self.current is None or call.root() is not self.current.module) and
                (keep is None or keep(value))]

    def _where(self, rel: str, node: nodes.NodeNG) -> str:
        here = os.path.dirname(self.rel)
        shown = rel[len(here) + 1:] if here and rel.startswith(here + "/") else rel
        return f"{shown}:{node.lineno}"
