"""The analysis the rules ask questions of: values, flows, the API model, paths, steps.

- :mod:`~flake8_xla.analysis.values`: abstract values (a lazy XLA tensor, a CPU tensor,
  a host value, a module, an optimizer, a loader, a device, a tokenizer ... or unknown).
- :mod:`~flake8_xla.analysis.flows`: the :class:`~flake8_xla.analysis.flows.Evaluator`
  that gives every expression its value (assignments, tuples, ``self`` attributes,
  returns, calls with their argument values).
- :mod:`~flake8_xla.analysis.apimodel` and ``flake8_xla/data/api_model.toml``: what
  library functions return and do (:mod:`~flake8_xla.analysis.specs` reads the specs).
- :mod:`~flake8_xla.analysis.hooks`: parameters of functions that frameworks call.
- :mod:`~flake8_xla.analysis.paths`: which branches the XLA path takes and which blocks
  run once.
- :mod:`~flake8_xla.analysis.steps`: step loops, step functions and the step region.
- :mod:`~flake8_xla.analysis.build`: the astroid tree, built without imports.

:class:`Analyzer` ties them together for one module. Every answer is memoised; none
raises for the checked code's sake (an astroid failure means "unknown").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from astroid import nodes

from flake8_xla.analysis import values as V
from flake8_xla.analysis.apimodel import ApiModel, Entry, model
from flake8_xla.analysis.build import TreeRebuildError, build_module
from flake8_xla.analysis.flows import Ctx, Evaluator, syntax_cache
from flake8_xla.analysis.names import (
    CUDA_WORDS,
    XLA_WORDS,
    QualNames,
    argument,
    const_str,
    has_star_kwargs,
    keyword,
    mentions,
    source_key,
    words_of,
)
from flake8_xla.analysis.paths import off_xla_path, runs_once, switched_off, xla_truth
from flake8_xla.analysis.steps import Steps
from flake8_xla.analysis.treewalk import preorder
from flake8_xla.analysis.values import Kind, Value
from flake8_xla.imports import ImportTable
from flake8_xla.testcode import in_spans

_T = TypeVar("_T")

__all__ = [
    "CUDA_WORDS",
    "XLA_WORDS",
    "Analyzer",
    "ApiModel",
    "Ctx",
    "Entry",
    "Kind",
    "TreeRebuildError",
    "Value",
    "argument",
    "build_module",
    "const_str",
    "has_star_kwargs",
    "keyword",
    "mentions",
    "off_xla_path",
    "runs_once",
    "source_key",
    "switched_off",
    "words_of",
    "xla_truth",
]

MANAGED_FRAMEWORKS = ("accelerate", "lightning", "pytorch_lightning", "lightning_fabric",
                      "ignite")


class Analyzer:
    """Answers XLA questions about one astroid module; every answer is memoised.

    Attributes:
        module: the astroid Module.
        imports: the module's import table.
        qualname: resolves Name/Attribute chains to imported qualified names.
        ev: the value :class:`~flake8_xla.analysis.flows.Evaluator`.
        steps: the :class:`~flake8_xla.analysis.steps.Steps` questions.
        api: the API model.
    """

    def __init__(self, module: nodes.Module, imports: ImportTable,
                 api: ApiModel | None = None) -> None:
        self.module = module
        self.imports = imports
        self.api = api or model()
        self.qualname = QualNames(imports)
        self.ev = Evaluator(module, self.qualname, self.api)
        self.ev.module_nodes = self.module_nodes
        self.steps = Steps(self)
        #: the walks below depend on the tree alone: shared by every analyzer of it
        self._shared = syntax_cache(module)
        self._by_class: dict[object, list[nodes.NodeNG]] = self._shared.setdefault(
            "by_class", {})
        self._managed: bool | None = None
        #: the cross-module link (:class:`flake8_xla.project.link.Session`), or None
        self.link = None
        #: line spans whose nodes :meth:`rule_nodes` and :meth:`rule_calls` leave out
        #: (the unit tests of a test file, for a rule not reported in them); set by the
        #: engine per rule
        self.hidden_spans: tuple[tuple[int, int], ...] = ()
        self._shown: dict[object, tuple[object, list[Any]]] = {}

    # ------------------------------------------------------------------ nodes
    def module_nodes(self, klass: type | tuple[type, ...]) -> list[nodes.NodeNG]:
        """The module's nodes of ``klass`` in pre-order (one walk, cached per class)."""
        found = self._by_class.get(klass)
        if found is None:
            order, buckets = preorder(self.module)
            wanted = [idx for t, idx in buckets.items() if issubclass(t, klass)]
            if len(wanted) == 1:
                found = [order[i] for i in wanted[0]]
            else:
                found = [order[i] for i in sorted(i for idx in wanted for i in idx)]
            self._by_class[klass] = found
        return found

    def rule_nodes(self, klass: type | tuple[type, ...]) -> list[nodes.NodeNG]:
        """:meth:`module_nodes` less those on a line of :attr:`hidden_spans`: for a rule's
        loop over the nodes it reports at. A question whose answer suppresses or enables a
        finding elsewhere (another assignment that gives a variable the XLA device, a
        launcher call, a collate function) reads :meth:`module_nodes`, as does the
        analysis itself: a unit test's code still counts there."""
        return self._outside_hidden(klass, self.module_nodes(klass))

    def rule_region(self) -> list[tuple[nodes.NodeNG, Ctx | None, bool]]:
        """:meth:`Steps.step_region` less its nodes on a line of :attr:`hidden_spans`: for
        a rule's loop over the region nodes it reports at (a unit test's module classes
        and loops are never asked about, by the rules not reported in tests)."""
        return self._outside_hidden("region", self.steps.step_region(),
                                    at=lambda entry: entry[0])

    def rule_calls(self, name: str) -> list[nodes.Call]:
        """:meth:`calls_named` less the calls on a line of :attr:`hidden_spans`."""
        return self._outside_hidden(("calls", name), self.calls_named(name))

    def _outside_hidden(self, key: object, found: list[_T],
                        at: Callable[[_T], nodes.NodeNG] | None = None) -> list[_T]:
        """``found`` (the list memoised under ``key``) less its items on a hidden line:
        nodes, or entries whose node ``at`` picks."""
        spans = self.hidden_spans
        if not spans:
            return found
        shown = self._shown.get(key)
        if shown is None or shown[0] is not spans:
            shown = self._shown[key] = (spans, [
                x for x in found
                if not in_spans((at(x) if at is not None else x).fromlineno, spans)])
        return shown[1]

    def plain_loader_calls(self) -> list[nodes.Call]:
        """The module's ``DataLoader(...)`` calls (any spelling) whose value is a plain torch
        DataLoader: the loaders built here, whose batches and samplers rules check."""
        return [call for call in self.calls_named("DataLoader")
                if any(v.kind is Kind.LOADER and v.has("plain") for v in self.value(call))]

    def star_keywords(self, call: nodes.Call) -> dict[str, frozenset[Value]] | None:
        """What the ``**kwargs`` of ``call`` pass, by keyword, when each is a dict whose
        every key is known (``TrainingArguments(output_dir=d, **TRAIN_KW)`` with
        ``TRAIN_KW = dict(bf16=True, ...)``); an empty dict for a call without any; None
        when one may hold other keys."""
        out: dict[str, frozenset[Value]] = {}
        for k in call.keywords or ():
            if k.arg is not None:
                continue
            vs = self.value(k.value)
            if len(vs) != 1:
                return None
            (v,) = tuple(vs)
            if v.kind is not Kind.DICT or v.items is None or v.elem is not None:
                return None
            for key, item in v.items:
                out[key] = item
        return out

    def calls_named(self, name: str) -> list[nodes.Call]:
        """Every call in the module whose callee is ``name`` or ``<obj>.name``."""
        return self.ev.calls_named(name)

    def spellings(self, names: Iterable[str]) -> set[str]:
        """``names`` and the local names that ``from m import name as alias`` gives them in
        this module: every way its calls may spell them."""
        wanted = set(names)
        return wanted | {alias for imp in self.module_nodes(nodes.ImportFrom)
                         for name, alias in imp.names if alias and name in wanted}

    # ------------------------------------------------------------------ values
    def value(self, node: nodes.NodeNG | None, ctx: Ctx | None = None) -> frozenset[Value]:
        """The abstract value of ``node`` (see :mod:`~flake8_xla.analysis.values`)."""
        return self.ev.value(node, ctx)

    def is_lazy(self, node: nodes.NodeNG | None, ctx: Ctx | None = None,
                strong: bool = False) -> bool:
        """``node`` may be a lazy XLA tensor (a tensor not known to be on the CPU/CUDA).

        ``strong``: the code runs in a step with XLA evidence (see
        :meth:`Steps.is_strong`), where tensors computed from unknown values count too.
        """
        return V.is_lazy(self.ev.value(node, ctx), strong)

    def holds_lazy(self, node: nodes.NodeNG | None, ctx: Ctx | None = None,
                   strong: bool = False) -> bool:
        """``node`` is or contains (tuple, list, dict) a lazy XLA tensor."""
        return V.holds_lazy(self.ev.value(node, ctx), strong=strong)

    def entries(self, call: nodes.Call, ctx: Ctx | None = None) -> list[Entry]:
        """The API model entries of what ``call`` calls."""
        return self.ev.call_entries(call, ctx)

    def does(self, call: nodes.Call, effect: str, ctx: Ctx | None = None) -> bool:
        """The call has ``effect`` in the API model (``"launch"``, ``"save"`` ...)."""
        return any(e.does(effect) for e in self.ev.call_entries(call, ctx))

    def off_xla_path(self, node: nodes.NodeNG,
                     kinds: tuple[type, ...] = (nodes.If, nodes.IfExp, nodes.While)) -> bool:
        """The XLA path never reaches ``node`` (``kinds``: the branches whose tests count)."""
        return off_xla_path(node, self.ev, kinds)

    def switched_off(self, call: nodes.Call) -> bool:
        """The call's ``enabled=`` switch is false on XLA."""
        return switched_off(call, self.ev)

    def is_builtin(self, node: nodes.NodeNG, name: str) -> bool:
        """True when ``node`` is the unshadowed builtin ``name``."""
        return isinstance(node, nodes.Name) and node.name == name and self.qualname(node) == name

    # ------------------------------------------------------------------ frameworks
    @property
    def managed(self) -> bool:
        """The file drives training with accelerate, Lightning, Fabric or ignite."""
        if self._managed is None:
            self._managed = self._uses_managed_framework()
        return self._managed

    def _uses_managed_framework(self) -> bool:
        if not any(self.imports.imports_prefix(m) for m in MANAGED_FRAMEWORKS):
            return False
        for call in self.module_nodes(nodes.Call):
            q = self.qualname(call.func) or ""
            if q.startswith(MANAGED_FRAMEWORKS) and q.rsplit(".", 1)[-1] in (
                    "Accelerator", "Fabric", "Trainer", "LightningModule", "Engine"):
                return True
        return any(isinstance(c, nodes.ClassDef) and any(
            (self.qualname(b) or "").endswith("LightningModule") for b in c.bases)
            for c in self.module_nodes(nodes.ClassDef))
