"""A checked file's analysis is freed by reference counting once the file is done (the
collector never has to find its astroid tree), and memo tables kept with a tree hold
entries of that tree's nodes only (a freed tree's reused ids never hit them)."""

from __future__ import annotations

import ast
import gc
import weakref

from astroid import nodes

from flake8_xla.analysis import Analyzer, build_module
from flake8_xla.analysis.flows import syntax_cache
from flake8_xla.engine import _release_astroid_refs
from flake8_xla.imports import ImportTable
from flake8_xla.project.link import dismantle

SOURCE = '''\
import torch
import torch_xla.core.xla_model as xm


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x)


def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        print(loss.item())
        xm.mark_step()
'''


def _analyzed(source: str) -> Analyzer:
    tree = ast.parse(source)
    an = Analyzer(build_module(source, "checked", tree), ImportTable(tree))
    an.steps.step_region()  # fills the memo tables, as the rules do
    return an


def test_a_dismantled_analysis_is_freed_without_the_collector() -> None:
    enabled = gc.isenabled()
    gc.disable()
    try:
        an = _analyzed(SOURCE)
        assert an.steps.step_loops()  # the analysis really ran
        module = weakref.ref(an.module)
        loop = weakref.ref(an.module_nodes(nodes.For)[0])
        _release_astroid_refs()  # (astroid's process-wide caches, as the engine does)
        dismantle(None, [an], an.module)
        del an
        assert module() is None and loop() is None
    finally:
        if enabled:
            gc.enable()


def test_without_dismantling_only_the_collector_frees_it() -> None:
    """The control: the tree's parent links and the analyzers' references to each other
    are cycles, so reference counting alone keeps the tree."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        an = _analyzed(SOURCE)
        module = weakref.ref(an.module)
        _release_astroid_refs()
        del an
        assert module() is not None
        gc.collect()
        assert module() is None
    finally:
        if enabled:
            gc.enable()


def test_memo_entries_are_kept_with_their_own_tree() -> None:
    """Asking one module's evaluator about another module's name keeps the answer with
    the other module's tree, never under that node's id in the asking module's table."""
    mine = _analyzed(SOURCE)
    other_src = "def helper(a):\n    b = a\n    return b\n"
    other = build_module(other_src, "other", ast.parse(other_src))
    name = next(n for n in other.nodes_of_class(nodes.Name) if n.name == "b")
    before = set(syntax_cache(mine.module).get("bindings", {}))
    found = mine.ev.bindings(name)
    assert [b.lineno for b in found] == [2]
    assert id(name) in syntax_cache(other).get("bindings", {})
    assert set(syntax_cache(mine.module).get("bindings", {})) == before
