"""Run the rules on one file: the single entry point of the plugin and the CLI.

Speed. Most files a linter sees cannot hold any XLA hazard, and building the
astroid tree costs more than flake8's own checks of the file. So before a rule
runs, the engine asks a *gate*: one pass over flake8's ast tree collects the
file's identifiers (names, attributes, keywords, parameters, imported names),
its short string literals and whether it has loops (:class:`FileFacts`), and
each rule's gate says whether the rule could possibly fire given those facts.
The astroid tree is built only when some rule passes its gate, and only those
rules run.

A gate must be a *necessary* condition of its rule: it may let a file through
for nothing, never hide a finding. Gates rest on one fact: every qualified name
a rule compares (``torch_xla.core.xla_model.mark_step``) ends with an
identifier that is spelled in the file (in an import, a call or an attribute),
since names are resolved from the file's own imports. A rule without a gate
always runs (and a test fails: add one to :data:`GATES` with the rule).
``tests/test_robustness.py`` checks that gated and ungated runs give the same
findings on every eval file, check pair and corpus script, and
``benchmarks/crash_sweep.py --verify-gates`` does on 25,000 library files;
``FLAKE8_XLA_NO_GATES=1`` switches the gates off.

The same walk hands the context its import table (:func:`prime_import_table`).
While the rules run, the cyclic garbage collector is paused (astroid trees are
large and young) and astroid gets an empty ``builtins`` module instead of
bootstrapping the real one (:func:`stub_builtins`). The rules, and astroid with
them, are imported on the first file that needs them.

Robustness. A rule that raises on code astroid cannot handle contributes no
finding (failure means "unknown", never a guess, never a crash).
``FLAKE8_XLA_STRICT=1`` re-raises instead, so that ``benchmarks/crash_sweep.py``
and tests can count internal errors.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from flake8_xla.context import Finding, ModuleContext, Options

if TYPE_CHECKING:
    from flake8_xla.rules import Rule

STRICT_ENV = "FLAKE8_XLA_STRICT"
NO_GATES_ENV = "FLAKE8_XLA_NO_GATES"
RECURSION_LIMIT = 10_000
_MAX_STRING = 80  # longer string literals are prose, never a device or a strategy


# What DynamicPadding (XLA101) takes for a tokenizer call (mirrors rules/shapes.py).
TOKENIZER_METHODS = frozenset({"pad", "batch_encode_plus", "encode_plus", "prepare_seq2seq_batch",
                               "__call__", "encode", "batch_encode"})
TOKENIZER_KEYWORDS = frozenset({"truncation", "return_tensors", "max_length",
                                "return_attention_mask"})


def _dotted(node: ast.AST) -> str | None:
    """``self.tokenizer`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _is_model_like_call(func: ast.AST) -> bool:
    """A callee :meth:`Analyzer.is_module_object` takes for a model by its name alone.

    ``model(...)``, ``self.net(...)``, ``teacher_model(...)``; objects that are
    modules because a module method is called on them are covered by
    :data:`MODULE_CALLS` instead.
    """
    key = _dotted(func)
    if not key:
        return False
    parts = key.split(".")
    if len(parts) > 2 or (len(parts) == 2 and parts[0] != "self"):
        return False
    last = parts[-1].lower()
    return last in MODEL_NAMES or last.endswith("_model")


def _is_tokenizer_padding(call: ast.Call) -> bool:
    """``padding=`` passed to what DynamicPadding takes for a tokenizer call, or ``tok.pad()``."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "pad" and \
            "tok" in (_dotted(func.value) or "").lower():
        return True
    kws = {k.arg for k in call.keywords}
    if "padding" not in kws:
        return False
    if isinstance(func, ast.Attribute) and func.attr in TOKENIZER_METHODS:
        return True
    return "tok" in (_dotted(func) or "").lower() or not kws.isdisjoint(TOKENIZER_KEYWORDS)


class FileFacts:
    """What the gates ask about one file, from one walk over flake8's ast tree.

    Attributes:
        idents: every identifier spelled in code: names, attribute names, keyword
            argument names, function/class/parameter names, and each dotted part
            of imported modules and names (with their ``as`` names).
        call_attrs: attribute names that are called (``x.step()`` gives ``step``).
        keywords: keyword argument names of calls (also in ``idents``).
        called_names: names that are called directly (``float(x)`` gives ``float``).
        strings: string literals of at most 80 characters (f-string parts included).
        imports: the ``import`` and ``from ... import`` statements, in ast.walk order.
        has_loop: a ``for``/``async for``/``while`` statement exists.
        has_for: a ``for``/``async for`` statement exists.
        model_call: something named like a model is called (see
            :func:`_is_model_like_call`).
        has_comprehension: a comprehension exists.
        tokenizer_padding: a call passes ``padding=`` and looks like a tokenizer call,
            or calls ``<tokenizer>.pad()``.
        legacy_loop_fn: a function ``fn(model, loader, device, context)`` (legacy
            DataParallel loop function) is defined.
    """

    __slots__ = (
        "_lower",
        "call_attrs",
        "called_names",
        "has_comprehension",
        "has_for",
        "has_loop",
        "idents",
        "imports",
        "keywords",
        "legacy_loop_fn",
        "model_call",
        "strings",
        "tokenizer_padding",
    )

    def __init__(self, tree: ast.AST) -> None:
        idents: set[str] = set()
        call_attrs: set[str] = set()
        keywords: set[str] = set()
        called_names: set[str] = set()
        strings: set[str] = set()
        has_loop = has_comprehension = tokenizer_padding = legacy_loop_fn = False
        has_for = model_call = False
        name_t, attr_t, call_t, const_t, node_t = (ast.Name, ast.Attribute, ast.Call,
                                                   ast.Constant, ast.AST)
        loop_ts = (ast.For, ast.AsyncFor, ast.While)
        def_ts = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
        imports: list[ast.stmt] = []
        # A queue over ``_fields`` walks about twice as fast as ast.walk, in the same
        # (breadth-first) order, which the import table depends on.
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
                continue
            if t is attr_t:
                idents.add(node.attr)  # type: ignore[attr-defined]
            elif t is call_t:
                func = node.func  # type: ignore[attr-defined]
                if type(func) is attr_t:
                    call_attrs.add(func.attr)
                elif type(func) is name_t:
                    called_names.add(func.id)
                if not model_call:
                    model_call = _is_model_like_call(func)
                if not tokenizer_padding and _is_tokenizer_padding(node):  # type: ignore[arg-type]
                    tokenizer_padding = True
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
                imports.append(node)  # type: ignore[arg-type]
                if node.module:  # type: ignore[attr-defined]
                    idents.update(node.module.split("."))  # type: ignore[attr-defined]
            elif t is ast.Import:
                imports.append(node)  # type: ignore[arg-type]
            elif t in loop_ts:
                has_loop = True
                if t is not ast.While:
                    has_for = True
            elif t is ast.comprehension:
                has_comprehension = True
            elif t in def_ts:
                idents.add(node.name)  # type: ignore[attr-defined]
                if t is not ast.ClassDef and not legacy_loop_fn:
                    params = [a.arg for a in node.args.args]  # type: ignore[attr-defined]
                    legacy_loop_fn = len(params) >= 4 and params[-2:] == ["device", "context"]
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
        self.has_comprehension = has_comprehension
        self.tokenizer_padding = tokenizer_padding
        self.legacy_loop_fn = legacy_loop_fn
        self.has_for = has_for
        self.model_call = model_call
        self.called_names = frozenset(called_names)
        self.imports = tuple(imports)
        self._lower: frozenset[str] | None = None

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


# Words behind the shared analyses; each mirrors constants of flake8_xla.analysis
# (the last dotted part of their qualified names), see test_gate_words_cover_analysis.
UPDATE_CALLS = frozenset({"backward", "step"})  # loss.backward(), optimizer/scaler.step()
XLA_LOADER_WORDS = frozenset({"MpDeviceLoader", "ParallelLoader", "PerDeviceLoader",
                              "per_device_loader"})
BARRIER_WORDS = frozenset({"mark_step", "_xla_step_marker", "optimizer_step", "StepTrace"})
XLA_BARRIER_WORDS = frozenset({"sync", "step", "compile"})  # torch_xla.sync/step/compile
TORCH_BARRIER_WORDS = frozenset({"compile"})  # torch.compile
SCALAR_SYNC_CALLS = frozenset({"item", "tolist"})
SYNC_BUILTINS = frozenset({"float", "int", "bool"})
PARAM_CALLS = frozenset({"parameters", "named_parameters", "state_dict", "buffers",
                         "named_buffers"})
MODULE_CALLS = frozenset({"parameters", "named_parameters", "train", "eval", "zero_grad",
                          "state_dict", "load_state_dict", "named_modules", "modules"})
MODEL_NAMES = frozenset({"model", "net", "network", "module", "encoder", "decoder",
                         "generator", "discriminator", "backbone", "classifier"})
LAUNCHER_WORDS = frozenset({"spawn", "launch"})
AMP_WORDS = frozenset({"autocast", "GradScaler", "custom_fwd", "custom_bwd"})
TORCH_XLA_PACKAGES = frozenset({"torch_xla", "torch_xla_py"})
TORCH_PACKAGES = TORCH_XLA_PACKAGES | {"torch"}


def may_train(f: FileFacts) -> bool:
    """A loop may run ``backward()``, an optimizer ``step()`` or ``xm.optimizer_step``."""
    return f.has_loop and (not f.call_attrs.isdisjoint(UPDATE_CALLS)
                           or "optimizer_step" in f.idents)


def may_call_model(f: FileFacts) -> bool:
    """Something named like a model, or used like one (``.parameters()`` ...), is called."""
    return f.model_call or not f.call_attrs.isdisjoint(MODULE_CALLS)


def may_have_step_loop(f: FileFacts) -> bool:
    """A loop whose body :meth:`Analyzer.step_region` may take.

    A step loop (:meth:`Analyzer.is_step_loop`) trains, has a barrier
    (``torch_xla.sync``, ``xm.mark_step``, a compiled step, ``next()`` of an XLA
    loader), iterates an XLA loader (or a legacy ``fn(model, loader, device,
    context)``), or iterates something named like a loader while calling a
    model; and a ``for`` loop that calls a model once per iteration counts too.
    """
    if not f.has_loop:
        return False
    if may_train(f) or f.any_ident(BARRIER_WORDS | XLA_LOADER_WORDS):
        return True
    if f.any_ident(XLA_BARRIER_WORDS) and f.any_ident(TORCH_XLA_PACKAGES):
        return True
    if f.any_ident(TORCH_BARRIER_WORDS) and "torch" in f.idents:
        return True
    if f.legacy_loop_fn:
        return True
    return f.has_for and may_call_model(f)


def may_read_per_parameter(f: FileFacts) -> bool:
    """A loop or comprehension over a model's parameters may read a scalar per parameter.

    The per-parameter part of :meth:`Analyzer.step_region`, where XLA201 looks for
    ``.item()``/``.tolist()``/``float()``/``int()``/``bool()``.
    """
    return (f.has_loop or f.has_comprehension) and not f.call_attrs.isdisjoint(PARAM_CALLS) \
        and (not f.call_attrs.isdisjoint(SCALAR_SYNC_CALLS)
             or not f.called_names.isdisjoint(SYNC_BUILTINS))


def may_have_step_region(f: FileFacts) -> bool:
    """:meth:`Analyzer.step_region` may hold a node XLA201 reports."""
    return may_have_step_loop(f) or may_read_per_parameter(f)


def launches(f: FileFacts) -> bool:
    """``xmp.spawn(...)`` or ``torch_xla.launch(...)`` may be called."""
    return f.any_ident(LAUNCHER_WORDS) and f.any_ident(TORCH_XLA_PACKAGES)


_TABLE_WORDS: dict[type, frozenset[str] | None] = {}


def _table_words(rule_cls: type[Rule]) -> frozenset[str] | None:
    """Last parts of the qualified names of a table-driven rule (XLA507/508), computed
    once per class (the tables come from the API facts and hold a hundred names)."""
    if rule_cls in _TABLE_WORDS:
        return _TABLE_WORDS[rule_cls]
    table = getattr(rule_cls, "table", None)
    words = frozenset(str(name).rsplit(".", 1)[-1] for name in table) \
        if isinstance(table, dict) and table else None
    _TABLE_WORDS[rule_cls] = words
    return words


Gate = Callable[[FileFacts], bool]

#: code -> necessary condition for the rule to report anything in a file.
GATES: dict[str, Gate] = {
    "XLA101": lambda f: f.tokenizer_padding or "pad_sequence" in f.idents
    or f.ident_contains("collat"),
    "XLA102": lambda f: ("TrainingArguments" in f.idents or f.ident_contains("dataloader")),
    "XLA103": may_have_step_loop,  # both skip the per-parameter part of the step region
    "XLA104": may_have_step_loop,
    "XLA201": may_have_step_region,
    "XLA301": may_train,
    "XLA302": lambda f: may_train(f) and "DataLoader" in f.idents,
    "XLA401": lambda f: (f.any_ident(AMP_WORDS) and "torch" in f.idents) or "apex" in f.idents,
    "XLA402": lambda f: "GradScaler" in f.idents and "step" in f.call_attrs,
    "XLA403": lambda f: f.has_loop and "step" in f.call_attrs and launches(f),
    "XLA501": lambda f: "cuda" in f.call_attrs or any(s.startswith("cuda") for s in f.strings),
    "XLA502": lambda f: may_train(f) and "step" in f.call_attrs and launches(f),
    "XLA503": lambda f: "save" in f.idents and "torch" in f.idents,
    "XLA504": lambda f: launches(f) and f.ident_contains("distributedsampler"),
    "XLA505": launches,
    "XLA506": lambda f: "TrainingArguments" in f.idents,
    "XLA509": lambda f: f.any_ident(("Trainer", "Seq2SeqTrainer")) and "__main__" in f.strings,
}


def gate_for(rule_cls: type[Rule]) -> Gate | None:
    """The gate of ``rule_cls``: from :data:`GATES`, else the rule's own ``gate``
    (a static method taking :class:`FileFacts`), else from its ``table``, else None."""
    gate = GATES.get(rule_cls.code)
    if gate is not None:
        return gate
    own = getattr(rule_cls, "gate", None)
    if callable(own):
        return own
    words = _table_words(rule_cls)
    if words is not None:
        return lambda f: f.any_ident(words)
    return None


@contextlib.contextmanager
def stub_builtins() -> Iterator[None]:
    """Give astroid an empty ``builtins`` module while the rules run, unless it has one.

    astroid's first builder otherwise "bootstraps": it builds a tree of the whole
    live ``builtins`` module, about 12 MB and a tenth of a second, which with
    astroid's import is most of what the plugin adds to flake8's peak memory. The
    rules never need it: they resolve names by scope lookup without inference,
    and :meth:`Analyzer.qualname` takes a name that resolves nowhere or into
    ``builtins`` alike for a builtin. The stub is removed afterwards, so astroid
    users later in the same process bootstrap as usual; when astroid was already
    bootstrapped (pylint in the same process), the real module is used.
    """
    stub = None
    try:
        from astroid import MANAGER, nodes, raw_building
        builder_cls = raw_building.InspectBuilder
        if not builder_cls.bootstrapped and "builtins" not in MANAGER.astroid_cache:
            stub = nodes.Module("builtins", pure_python=False)
            MANAGER.astroid_cache["builtins"] = stub
            builder_cls.bootstrapped = True
    except Exception:  # noqa: BLE001 - another astroid layout: let it bootstrap itself
        stub = None
    try:
        yield
    finally:
        if stub is not None:
            if MANAGER.astroid_cache.get("builtins") is stub:
                del MANAGER.astroid_cache["builtins"]
            builder_cls.bootstrapped = False


def prime_import_table(ctx: ModuleContext, facts: FileFacts) -> None:
    """Give ``ctx`` its import table built from the import statements ``facts`` found.

    :class:`~flake8_xla.imports.ImportTable` walks the whole tree for them, as
    long again as the gates' own walk; fed a module of just those statements,
    in the same order, it builds the same table. Does nothing when ``ctx`` has
    computed its table already or the table cannot be built that way.
    """
    if "imports" in vars(ctx):
        return
    try:
        from flake8_xla.imports import ImportTable

        table = ImportTable(ast.Module(body=list(facts.imports), type_ignores=[]))
    except Exception:  # noqa: BLE001 - the context then builds it from the tree itself
        return
    vars(ctx)["imports"] = table


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def lint_tree(tree: ast.Module, source: str, filename: str, options: Options,
              rules: Iterable[type[Rule]] | None = None, *, gates: bool | None = None,
              strict: bool | None = None) -> list[Finding]:
    """Findings of ``rules`` in one parsed file, sorted by position.

    Args:
        tree: flake8's ast tree of ``source``.
        source: the file's text.
        filename: for messages only; the file is never opened or imported.
        options: target and torch_xla version.
        rules: the rule classes to run (default: every rule). The rules, and astroid
            with them, are imported on the first file that needs them, so that a
            run over non-XLA code with ``--xla-target=auto`` never loads astroid.
        gates: skip rules whose gate fails (default: on unless ``FLAKE8_XLA_NO_GATES=1``).
        strict: re-raise a rule's exception (default: ``FLAKE8_XLA_STRICT=1``).

    Never raises for the checked code's sake unless ``strict``: a rule that
    fails on code astroid cannot handle contributes no finding.
    """
    if gates is None:
        gates = not _env_flag(NO_GATES_ENV)
    if strict is None:
        strict = _env_flag(STRICT_ENV)
    ctx = ModuleContext(tree, source, filename, options, strict=strict)
    facts: FileFacts | None = None
    if gates and (options.target == "all" or "xla" in source):
        try:
            facts = FileFacts(tree)
            prime_import_table(ctx, facts)
        except Exception:  # the gates only save time: run every rule instead
            if strict:
                raise
            facts = None
    torchtpu_only = False
    try:
        if not ctx.is_xla_code:
            # Under --xla-migrate, a file that already uses only TorchTPU still gets the
            # band's TorchTPU rules (``torchtpu_code``), and only those.
            if not (options.migrate and ctx.is_torchtpu_code):
                return []
            torchtpu_only = True
    except Exception:  # a file we cannot classify is not checked
        if strict:
            raise
        return []
    if rules is None:
        from flake8_xla.rules import ALL_RULES
        rules = ALL_RULES
    selected = list(rules)
    if torchtpu_only:
        selected = [r for r in selected if getattr(r, "torchtpu_code", False)]
    if facts is not None:
        try:
            selected = [r for r in selected if (gate := gate_for(r)) is None or gate(facts)]
        except Exception:  # the gates only save time: run every rule instead
            if strict:
                raise
            selected = list(rules)
        if not selected:
            return []
    findings: list[Finding] = []
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    # The astroid tree is ~100k young objects with parent links: collecting while it
    # is built rescans it again and again (about a quarter of the plugin's time).
    # Paused here, the first allocation after the file frees it in one young pass.
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        with stub_builtins():
            for rule_cls in selected:
                try:
                    findings.extend(rule_cls(ctx).check())
                except Exception:  # unknown is never a finding, never a crash
                    if strict:
                        raise
    finally:
        if gc_enabled:
            gc.enable()
        sys.setrecursionlimit(old_limit)
    return sorted(set(findings))


def lint_source(source: str, filename: str = "<string>", options: Options | None = None,
                *, gates: bool | None = None, strict: bool | None = None) -> list[Finding]:
    """Parse and lint ``source``. Raises SyntaxError/ValueError when it does not parse."""
    tree = ast.parse(source, filename)
    return lint_tree(tree, source, filename, options or Options(), gates=gates, strict=strict)
