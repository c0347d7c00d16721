"""Run the rules on one file: the single entry point of the plugin and the CLI.

Speed. Most files a linter sees cannot hold any XLA hazard, and building the
astroid tree costs more than flake8's own checks of the file. So before a rule
runs, the engine asks its *gate*: one pass over flake8's ast tree collects the
file's identifiers (names, attributes, keywords, parameters, imported names),
its short string literals and whether it has loops
(:class:`~flake8_xla.filefacts.FileFacts`), and each rule class's
:meth:`~flake8_xla.rules.base.Rule.precondition` says whether the rule could
possibly fire given those facts. The astroid tree is built only when some rule
passes its gate, and only those rules run.

A gate must be a *necessary* condition of its rule: it may let a file through
for nothing, never hide a finding (see :mod:`flake8_xla.filefacts`).
``tests/test_robustness.py`` checks that gated and ungated runs give the same
findings on every eval file, check pair and corpus script, and
``benchmarks/crash_sweep.py --verify-gates`` does on 25,000 library files;
``FLAKE8_XLA_NO_GATES=1`` switches the gates off.

While the rules run, the cyclic garbage collector is paused (astroid trees are
large and young); after a checked file, its garbage is collected and what is left is
frozen (:func:`_settle_collector`). astroid gets an empty ``builtins`` module instead of
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
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from flake8_xla.context import Finding, ModuleContext, Options
from flake8_xla.filefacts import FileFacts
from flake8_xla.project.xlause import mentions_xla
from flake8_xla.testcode import in_spans, is_test_file, reported_in_tests

if TYPE_CHECKING:
    from flake8_xla.rules import Rule

STRICT_ENV = "FLAKE8_XLA_STRICT"
NO_GATES_ENV = "FLAKE8_XLA_NO_GATES"
RECURSION_LIMIT = 10_000
_MAX_STRING = 80  # longer string literals are prose, never a device or a strategy


Gate = Callable[[FileFacts], bool]


def gate_for(rule_cls: type[Rule]) -> Gate | None:
    """The precondition the rule class declares (see :mod:`flake8_xla.filefacts`).

    A table-driven rule (XLA507/508) that declares none gets one from the last parts of
    its table's qualified names. None for a rule with neither (a test forbids that).
    """
    from flake8_xla.rules.base import Rule

    if getattr(rule_cls.precondition, "__func__", None) is not Rule.precondition.__func__:
        return rule_cls.precondition
    own = getattr(rule_cls, "gate", None)
    if callable(own):
        return own
    words = _table_words(rule_cls)
    if words is not None:
        return lambda f: f.any_ident(words)
    return None


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

    def file_facts(ctx: ModuleContext) -> FileFacts | None:
        try:
            # (the project index's, stored on disk, when it holds them for this text)
            return ctx.stored_facts() or FileFacts(tree)
        except Exception:  # the gates only save time: run every rule instead
            if strict:
                raise
            return None

    test_file = is_test_file(filename)
    if gates and (options.target == "all" or mentions_xla(source)):
        facts = file_facts(ctx)
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
    if gates and facts is None:
        facts = file_facts(ctx)  # XLA code by its project: a helper that never names XLA
    if facts is not None and ctx.crosses_modules:
        # values and step regions cross into this file: the preconditions read the
        # facts of every module its check may analyse (None: run every rule)
        facts = ctx.gate_facts(facts)
    if rules is None:
        from flake8_xla.rules import ALL_RULES
        rules = ALL_RULES
    selected = [r for r in rules if not r.opt_in or options.opts_in(r.code)]
    if torchtpu_only:
        selected = [r for r in selected if getattr(r, "torchtpu_code", False)]
    if facts is not None:
        try:
            selected = [r for r in selected if _passes_gate(r, facts)]
        except Exception:  # the gates only save time: run every rule instead
            if strict:
                raise
            selected = [r for r in rules if not r.opt_in or options.opts_in(r.code)]
        if not selected:
            return []
        if test_file:
            selected = _outside_tests_gate(ctx, tree, selected)
            if not selected:
                return []
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
    # The astroid tree is ~100k young objects with parent links: collecting while it
    # is built rescans it again and again (about a quarter of the plugin's time).
    # Paused here, and resumed once nothing refers to the file's analysis any more, so
    # that one young collection frees the tree (collected while still referred to, it
    # would survive into an older generation and be scanned a second time there).
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        findings = _run_rules(ctx, selected, strict, test_file)
        # (the spans the analysis marked, or computed now for a file without one)
        test_spans = ctx.unit_tests if findings and test_file else ()
    finally:
        built = "analyzer" in vars(ctx)  # astroid was loaded and a tree built
        if built:
            _release_astroid_refs()
            try:
                _dismantle(ctx)
            except Exception:  # only memory and time: the collector frees it instead
                if strict:
                    raise
        del ctx
        if gc_enabled:
            gc.enable()
        sys.setrecursionlimit(old_limit)
    if gc_enabled and built:
        _settle_collector()
    if test_spans:
        findings = [f for f in findings
                    if reported_in_tests(f.code) or not in_spans(f.line, test_spans)]
    return sorted(set(findings))


def _outside_tests_gate(ctx: ModuleContext, tree: ast.Module,
                        selected: list[type[Rule]]) -> list[type[Rule]]:
    """``selected`` less the rules that report nothing inside unit tests
    (:func:`~flake8_xla.testcode.reported_in_tests`) and whose precondition fails on the
    test file's code outside them: its top-level statements that are no unit test, with
    the facts of the modules its check may analyse (:meth:`ModuleContext.gate_facts`).
    The unit tests' own code is analysed only where a rule that reports inside them
    needs it. A failure to compute the facts keeps every rule."""
    spans = ctx.unit_tests
    if not spans:
        return selected
    body = [s for s in tree.body if not in_spans(s.lineno, spans)]
    reduced: FileFacts | None = FileFacts(ast.Module(body=body, type_ignores=[]))
    if ctx.crosses_modules:
        reduced = ctx.gate_facts(reduced)
    if reduced is None:
        return selected
    return [r for r in selected if reported_in_tests(r.code) or _passes_gate(r, reduced)]


def _passes_gate(rule_cls: type[Rule], facts: FileFacts) -> bool:
    """The rule declares no gate, or its gate holds on ``facts``."""
    gate = gate_for(rule_cls)
    return gate is None or gate(facts)


def _run_rules(ctx: ModuleContext, selected: list[type[Rule]], strict: bool,
               test_file: bool = False) -> list[Finding]:
    """The findings of ``selected`` on ``ctx``; a rule's exception is no finding (or,
    when ``strict``, raised). In a ``test_file``, a rule whose findings are dropped
    inside unit tests does not look for them there (:meth:`Analyzer.rule_nodes`)."""
    findings: list[Finding] = []
    with stub_builtins():
        for rule_cls in selected:
            if test_file:
                ctx.hidden_spans = () if reported_in_tests(rule_cls.code) else ctx.unit_tests
            try:
                findings.extend(f for f in rule_cls(ctx).check() if f is not None)
            except Exception:  # unknown is never a finding, never a crash
                if strict:
                    raise
    return findings


def _dismantle(ctx: ModuleContext) -> None:
    """Break the reference cycles of a checked file's analysis, so that reference counting
    frees it the moment the engine lets go of ``ctx``.

    Left to the collector, the file's astroid tree (every node links its parent) and the
    memo tables of its analyzers (an Analyzer, its Evaluator, Steps and name table refer
    to each other, and to the project link's analyzers of other modules) are all young
    objects that the next young collection must traverse to find them unreachable. A
    tree that the per-process tree cache keeps for other files' analyses is left whole
    (see :func:`flake8_xla.project.link.dismantle`).
    """
    from flake8_xla.project.link import dismantle

    an = vars(ctx).get("analyzer")
    dismantle(vars(ctx).get("project_session"), [an] if an is not None else [],
              an.module if an is not None else None, evicted=True)


def _release_astroid_refs() -> None:
    """Drop what astroid's process-wide objects still hold of the file just checked.

    Two of them keep its whole astroid tree alive past the file (through the nodes'
    parent links): the ``lru_cache`` of scope lookups (``LookupMixIn.lookup``, 128
    entries keyed by node, never reused across files) and the object models shared by
    every node of a class (``ClassDef.special_attributes`` and the like remember the
    last node they were read from). A tree kept alive survives the young collection
    that should free it and is scanned again by older ones: over the pytorch/xla
    repository that was most of the collector's work (550,000 objects collected in the
    middle generation instead of the youngest).
    """
    try:
        from astroid.nodes import _base_nodes, scoped_nodes
    except ImportError:  # another astroid layout: only slower
        return
    lookup = getattr(_base_nodes.LookupMixIn, "lookup", None)
    if hasattr(lookup, "cache_clear"):
        lookup.cache_clear()
    for klass in (scoped_nodes.Module, scoped_nodes.FunctionDef, scoped_nodes.Lambda,
                  scoped_nodes.ClassDef):
        model = vars(klass).get("special_attributes")
        if model is not None and hasattr(model, "_instance"):
            model._instance = None


#: Checked files (whose analysis built an astroid tree) between two reclaims of the objects
#: :func:`_settle_collector` froze (see there).
RECLAIM_EVERY = 1024
_settled = 0


def _settle_collector() -> None:
    """After a checked file whose analysis built an astroid tree: collect the garbage, then
    move every object still alive to the collector's permanent generation
    (:func:`gc.freeze`).

    What is alive then is almost all there for good: the modules of astroid and of the
    rules, the API model, astroid's stub of ``builtins``, flake8's own state, the project
    index and the per-process caches of other modules' astroid trees and of their step
    calls. Left in the collector's generations, those objects are rescanned by every
    collection that the astroid trees of later files trigger: at the root of pytorch/xla
    the collector spent about twice as long with ``--xla-target=auto`` as with ``file``,
    and more than with flake8 alone. Frozen objects are still freed by reference
    counting (a tree the cache lets go of is dismantled first, see
    :func:`flake8_xla.project.link.dismantle`); only an object that later becomes part of
    a reference cycle no one refers to would stay. So every :data:`RECLAIM_EVERY` files
    the frozen objects are handed back to the collector first, and such garbage is
    reclaimed by that file's collection: memory stays bounded however many files one
    process checks.
    """
    global _settled
    if not hasattr(gc, "freeze"):
        return
    if _settled and _settled % RECLAIM_EVERY == 0:
        gc.unfreeze()
    _settled += 1
    gc.collect()
    gc.freeze()


def lint_source(source: str, filename: str = "<string>", options: Options | None = None,
                *, gates: bool | None = None, strict: bool | None = None) -> list[Finding]:
    """Parse and lint ``source``. Raises SyntaxError/ValueError when it does not parse."""
    tree = ast.parse(source, filename)
    return lint_tree(tree, source, filename, options or Options(), gates=gates, strict=strict)
