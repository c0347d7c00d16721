"""Syntax facts of one file, from one walk over flake8's ast tree, for the rules' preconditions.

Each rule class declares a cheap *necessary* condition
(:meth:`~flake8_xla.rules.base.Rule.precondition`) over a :class:`FileFacts`; the
engine builds astroid and runs a rule only when its condition holds. A condition may
let a file through for nothing, never hide a finding. They rest on one fact: every
qualified name a rule compares (``torch_xla.core.xla_model.mark_step``) ends with an
identifier spelled in the file, since names are resolved from the file's own imports.
The word sets below are derived from the API model (``flake8_xla/data/api_model.toml``)
where they name library functions, so the two cannot drift apart.

A file that values and step regions cross into from other modules of its project
(``--xla-target=auto``) is gated on :meth:`FileFacts.merged` facts: its own and those
of every module its check may analyse (:meth:`~flake8_xla.project.index.ProjectIndex.reach`),
which the project index keeps with each module's summary.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

#: Lightning ``LightningModule`` hooks run per batch (``lightning/pytorch/core/module.py``).
LIGHTNING_STEP_HOOKS = frozenset({"training_step", "validation_step", "test_step",
                                  "predict_step"})
LIGHTNING_BATCH_HOOKS = frozenset({"on_train_batch_end", "on_validation_batch_end",
                                   "on_test_batch_end", "on_train_batch_start"})
#: Hugging Face ``Trainer`` methods run per batch (``transformers/trainer.py``; before
#: transformers 3.1 the training step was the private ``_training_step``, and the
#: evaluation step ``_prediction_step`` before 3.1 as well).
HF_TRAINER_HOOKS = frozenset({"compute_loss", "training_step", "prediction_step",
                              "_training_step", "_prediction_step"})
#: The Trainer's logging hook, called after every optimizer step with the running loss
#: (``tr_loss``, a lazy tensor): transformers ``trainer.py`` runs ``xm.mark_step()`` in
#: its own version before reading it; an override reads it mid-step unless it does too.
HF_TRAINER_LOG_HOOKS = frozenset({"_maybe_log_save_evaluate"})
#: Methods a framework calls once per step.
FRAMEWORK_STEP_HOOKS = LIGHTNING_STEP_HOOKS | LIGHTNING_BATCH_HOOKS | HF_TRAINER_HOOKS | \
    HF_TRAINER_LOG_HOOKS

_MAX_STRING = 80  # longer string literals are prose, never a device or a strategy
FORWARD_NAMES = frozenset({"forward", "_forward"})


class FileFacts:
    """What the preconditions ask about one file.

    Attributes:
        idents: every identifier spelled in code: names, attribute names, keyword
            argument names, function/class/parameter names, and each dotted part
            of imported modules and names (with their ``as`` names).
        call_attrs: attribute names that are called (``x.step()`` gives ``step``).
        keywords: keyword argument names of calls (also in ``idents``).
        called_names: names that are called directly (``float(x)`` gives ``float``).
        strings: string literals of at most 80 characters (f-string parts included).
        has_loop: a ``for``/``async for``/``while`` statement exists.
        has_for: a ``for``/``async for`` statement exists.
        loop_outside_forward: a loop exists outside every ``forward`` method.
        has_comprehension: a comprehension exists.
        has_classes: a class statement with a base class exists.
        has_defs: a function definition exists.
        has_dynamic_index: a subscript whose index is not a constant or a slice with
            constant bounds (``x[mask]``, ``x[:n]``, ``x[i]``: what an index of a tensor
            by a tensor's values may look like).
    """

    __slots__ = (
        "_lower",
        "call_attrs",
        "called_names",
        "has_classes",
        "has_comprehension",
        "has_defs",
        "has_dynamic_index",
        "has_for",
        "has_loop",
        "idents",
        "keywords",
        "loop_outside_forward",
        "strings",
    )

    def __init__(self, tree: ast.AST) -> None:
        idents: set[str] = set()
        call_attrs: set[str] = set()
        keywords: set[str] = set()
        called_names: set[str] = set()
        strings: set[str] = set()
        has_loop = has_comprehension = has_for = has_classes = has_defs = False
        has_dynamic_index = False
        loops = 0
        forward_loops = 0
        name_t, attr_t, call_t, const_t, node_t = (ast.Name, ast.Attribute, ast.Call,
                                                   ast.Constant, ast.AST)
        loop_ts = (ast.For, ast.AsyncFor, ast.While)
        def_ts = (ast.FunctionDef, ast.AsyncFunctionDef)
        # A queue over ``_fields`` walks about twice as fast as ast.walk (the walk of
        # flake8_xla.astwalk, inlined: as a generator it made these facts 20 % slower).
        queue: deque[ast.AST] = deque([tree])
        pop, push = queue.popleft, queue.append
        while queue:
            node = pop()
            t = type(node)
            if t is name_t:
                idents.add(node.id)  # type: ignore[attr-defined]
                continue  # a Name has no child but its context
            if t is const_t:
                value = node.value  # type: ignore[attr-defined]
                if type(value) is str and len(value) <= _MAX_STRING:
                    strings.add(value)
                    if value.startswith("torch_xla"):
                        # ``importlib.import_module("torch_xla.core.xla_model")``
                        idents.update(value.split("."))
                continue
            if t is attr_t:
                idents.add(node.attr)  # type: ignore[attr-defined]
            elif t is call_t:
                func = node.func  # type: ignore[attr-defined]
                if type(func) is attr_t:
                    call_attrs.add(func.attr)
                elif type(func) is name_t:
                    called_names.add(func.id)
            elif t is ast.keyword:
                if node.arg:  # type: ignore[attr-defined]
                    keywords.add(node.arg)  # type: ignore[attr-defined]
            elif t is ast.arg:
                idents.add(node.arg)  # type: ignore[attr-defined]
            elif t is ast.alias:
                idents.update(node.name.split("."))  # type: ignore[attr-defined]
                if node.asname:  # type: ignore[attr-defined]
                    idents.add(node.asname)  # type: ignore[attr-defined]
            elif t is ast.ImportFrom:
                if node.module:  # type: ignore[attr-defined]
                    idents.update(node.module.split("."))  # type: ignore[attr-defined]
            elif t in loop_ts:
                has_loop = True
                loops += 1
                if t is not ast.While:
                    has_for = True
            elif t is ast.comprehension:
                has_comprehension = True
            elif t is ast.Subscript and not has_dynamic_index:
                has_dynamic_index = not _static_index(node.slice)  # type: ignore[attr-defined]
            elif t in def_ts:
                has_defs = True
                idents.add(node.name)  # type: ignore[attr-defined]
                if node.name in FORWARD_NAMES:  # type: ignore[attr-defined]
                    forward_loops += sum(1 for n in ast.walk(node) if type(n) in loop_ts)
            elif t is ast.ClassDef:
                idents.add(node.name)  # type: ignore[attr-defined]
                if node.bases:  # type: ignore[attr-defined]
                    has_classes = True
            for field in node._fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    for item in value:
                        if isinstance(item, node_t):
                            push(item)
                elif isinstance(value, node_t):
                    push(value)
        idents |= keywords
        self.idents = frozenset(idents)
        self.call_attrs = frozenset(call_attrs)
        self.keywords = frozenset(keywords)
        self.strings = frozenset(strings)
        self.has_loop = has_loop
        self.has_for = has_for
        self.loop_outside_forward = loops > forward_loops
        self.has_comprehension = has_comprehension
        self.has_classes = has_classes
        self.has_defs = has_defs
        self.has_dynamic_index = has_dynamic_index
        self.called_names = frozenset(called_names)
        self._lower: frozenset[str] | None = None

    _SETS = ("idents", "call_attrs", "keywords", "called_names", "strings")
    _FLAGS = ("has_loop", "has_for", "loop_outside_forward", "has_comprehension",
              "has_classes", "has_defs", "has_dynamic_index")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (see :meth:`from_json`): sorted lists and flags."""
        out: dict[str, Any] = {k: sorted(getattr(self, k)) for k in self._SETS}
        out.update({k: getattr(self, k) for k in self._FLAGS})
        return out

    @classmethod
    def from_json(cls, raw: object) -> FileFacts:
        """The facts stored by :meth:`to_json`. Raises ValueError when ``raw`` is
        malformed (a corrupt cache entry, which the caller then rebuilds)."""
        try:
            if not isinstance(raw, dict):
                raise TypeError("not an object")
            parts: dict[str, Any] = {}
            for k in cls._SETS:
                v = raw.get(k)
                if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                    raise TypeError(k)
                parts[k] = frozenset(v)
            for k in cls._FLAGS:
                if not isinstance(raw.get(k), bool):
                    raise TypeError(k)
                parts[k] = raw[k]
        except TypeError as exc:
            raise ValueError(f"malformed facts: {exc}") from None
        return cls._of(parts)

    @classmethod
    def _of(cls, parts: dict[str, Any]) -> FileFacts:
        facts = cls.__new__(cls)
        for k, v in parts.items():
            setattr(facts, k, v)
        facts._lower = None
        return facts

    @classmethod
    def merged(cls, many: Iterable[FileFacts]) -> FileFacts:
        """The facts of several files read as one: every set united, every flag or-ed
        (a precondition that holds for one of them holds for the union). Raises
        ValueError when ``many`` is empty."""
        many = list(many)
        if not many:
            raise ValueError("no facts to merge")
        if len(many) == 1:
            return many[0]
        parts: dict[str, Any] = {k: frozenset().union(*(getattr(f, k) for f in many))
                                 for k in cls._SETS}
        parts.update({k: any(getattr(f, k) for f in many) for k in cls._FLAGS})
        return cls._of(parts)

    @property
    def lower_idents(self) -> frozenset[str]:
        """``idents`` in lower case (computed on first use)."""
        if self._lower is None:
            self._lower = frozenset(i.lower() for i in self.idents)
        return self._lower

    def any_ident(self, words: Iterable[str]) -> bool:
        """True when one of ``words`` is an identifier of the file."""
        return not self.idents.isdisjoint(words)

    def ident_contains(self, *parts: str) -> bool:
        """True when an identifier contains one of ``parts`` (case-insensitive)."""
        return any(p in i for i in self.lower_idents for p in parts)


def _static_index(index: ast.expr) -> bool:
    """A constant index, or a slice whose bounds are constants (``-1`` included) or
    absent: the indices that select the same elements whatever a tensor holds."""
    if isinstance(index, ast.Constant):
        return True
    if not isinstance(index, ast.Slice):
        return False
    return all(b is None or isinstance(b, ast.Constant) or (
        isinstance(b, ast.UnaryOp) and isinstance(b.operand, ast.Constant))
        for b in (index.lower, index.upper, index.step))


# ---------------------------------------------------------------------- shared words
@lru_cache(maxsize=1)
def words() -> dict[str, frozenset[str]]:
    """Word sets derived from the API model (last dotted part of qualified names)."""
    from flake8_xla.analysis.apimodel import model

    api = model()

    def last(names: Iterable[str]) -> frozenset[str]:
        return frozenset(n.rsplit(".", 1)[-1] for n in names)

    return {
        "barrier": last(api.names_with(barrier=True)) | last(api.names_with(effect="compile")),
        "xla_loader": last(api.names_with(returns_prefix="loader:xla"))
        | last(api.names_with(returns_prefix="loader:parallel"))
        | last(api.names_with(returns_prefix="loader:ignite"))
        | last(api.names_with(returns_prefix="framework:data_parallel"))
        | api.method_names(kinds=("loader",), effect=None) | {"per_device_loader"},
        "update": api.method_names(effect="backward") | api.method_names(
            effect="optimizer_step") | api.method_names(effect="scaler_step")
        | last(api.names_with(effect="optimizer_step")),
        "launch": last(api.names_with(effect="launch")),
        "save": last(api.names_with(effect="save")),
        "dynamic": last(api.names_with(effect="dynamic_shape"))
        | api.method_names(effect="dynamic_shape") | {"where"},
        "scalar_sync": api.method_names(sync="scalar")
        | last(n for n, e in api.calls.items() if e.sync in ("scalar",)),
        "anomaly": last(api.names_with(effect="anomaly")),
    }


def may_update(f: FileFacts) -> bool:
    """``backward()``, an optimizer ``step()`` or ``xm.optimizer_step`` may be called."""
    return not f.call_attrs.isdisjoint(words()["update"]) or "optimizer_step" in f.idents


def may_forward(f: FileFacts) -> bool:
    """A loop outside a ``forward`` method may run a forward pass."""
    return f.loop_outside_forward and bool(f.called_names or f.call_attrs)


#: Packages whose values are tensors, modules and loaders: a file that names none of them
#: (and calls no ``backward()``) holds no tensor the step rules could report.
TENSOR_PACKAGES = frozenset({"torch", "torch_xla", "torch_xla_py", "transformers", "accelerate",
                             "lightning", "pytorch_lightning", "lightning_fabric", "ignite",
                             "timm", "torchvision", "fairseq", "optimum"})


def tensor_world(f: FileFacts) -> bool:
    """The file imports a tensor library, or calls ``backward()`` (a tensor by its use)."""
    return f.any_ident(TENSOR_PACKAGES) or "backward" in f.call_attrs


def may_have_step_region(f: FileFacts) -> bool:
    """:meth:`Steps.step_region` may hold a node: a step loop, a step function or hook,
    or a loop over a model's parameters; and the file can hold tensors at all."""
    if not tensor_world(f):
        return False
    if may_update(f):
        return True
    if f.has_loop and (f.any_ident(words()["barrier"]) or f.any_ident(words()["xla_loader"])):
        return True
    if may_forward(f):
        return True
    if f.has_classes and "forward" in f.idents:
        return True  # a module class's forward runs once per step
    if f.has_classes and not f.idents.isdisjoint(FRAMEWORK_STEP_HOOKS):
        return True  # Lightning / Trainer step hooks run once per step
    return (f.has_loop or f.has_comprehension) and not f.call_attrs.isdisjoint(
        {"parameters", "named_parameters", "state_dict", "buffers", "named_buffers"})


def launches(f: FileFacts) -> bool:
    """``xmp.spawn(...)`` or ``torch_xla.launch(...)`` may be called."""
    return f.any_ident(words()["launch"]) and f.any_ident(("torch_xla", "torch_xla_py"))
