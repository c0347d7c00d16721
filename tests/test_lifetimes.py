"""A checked file's analysis is freed by reference counting once the file is done (the
collector never has to find its astroid tree), and memo tables kept with a tree hold
entries of that tree's nodes only (a freed tree's reused ids never hit them)."""

from __future__ import annotations

import ast
import gc
import textwrap
import weakref
from pathlib import Path

import pytest
from astroid import nodes

from flake8_xla import project
from flake8_xla.analysis import Analyzer, build_module
from flake8_xla.analysis.flows import syntax_cache
from flake8_xla.context import Options
from flake8_xla.engine import _release_astroid_refs, lint_source
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


DOCUMENTED = '''\
"""A module docstring."""
import torch
import torch_xla.core.xla_model as xm


class Meter:
    """A class docstring."""

    def update(self, *values, **named):
        """A method docstring."""
        self.values = values


def train(model, loader, optimizer, *args, scale=1.0, **kwargs):
    """A function docstring."""
    for x, y in loader:
        loss = model(x).sum() * scale
        loss.backward()
        optimizer.step()
        xm.mark_step()
'''


def test_nodes_outside_the_children_walk_are_freed_too() -> None:
    """Docstring nodes (``doc_node``) and the names of ``*args``/``**kwargs``
    (``vararg_node``, ``kwarg_node``) are not among any node's children, yet link their
    parent: dismantling must not leave them (and so their function, class or module) in a
    cycle, or every tree would wait for a full collection, and a tree frozen with
    :func:`gc.freeze` would never be freed."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        an = _analyzed(DOCUMENTED)
        assert an.steps.step_loops()
        module = an.module
        funcs = list(module.nodes_of_class(nodes.FunctionDef))
        off_walk = [n for f in funcs for n in (f.doc_node, f.args.vararg_node,
                                                f.args.kwarg_node) if n is not None]
        off_walk += [n.doc_node for n in module.nodes_of_class(nodes.ClassDef)]
        off_walk.append(module.doc_node)
        assert len(off_walk) == 8  # (the walk is the point: none of them is a child)
        refs = [weakref.ref(n) for n in [module, *funcs, *off_walk]]
        del funcs, off_walk
        _release_astroid_refs()
        dismantle(None, [an], module)
        del an, module
        assert [r() for r in refs if r() is not None] == []
    finally:
        if enabled:
            gc.enable()


HELPER = '''\
"""Helper {i}."""


def step_{i}(model, batch, *args, **kwargs):
    """One step."""
    loss = model(batch).sum()
    loss.backward()
    return loss
'''


def test_checked_projects_leave_no_garbage_for_the_collector(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After each checked file the engine collects and freezes what is left
    (``engine._settle_collector``): the project's other modules' trees, built for the
    cross-module analysis and let go of by the tree cache, must be freed by reference
    counting, or they would stay frozen for the life of the process."""
    from flake8_xla.project import link

    monkeypatch.setenv("FLAKE8_XLA_CACHE_DIR", str(tmp_path / "user-cache"))
    monkeypatch.setattr(link, "TREE_CACHE", 2)  # (so that trees are evicted)
    project.reset()
    (tmp_path / "pyproject.toml").write_text("")
    names = [f"helper{i}" for i in range(6)]
    for i, name in enumerate(names):
        (tmp_path / f"{name}.py").write_text(HELPER.format(i=i))
    train = tmp_path / "train.py"
    train.write_text(textwrap.dedent('''\
        """The training script."""
        import torch_xla.core.xla_model as xm
        {imports}


        def main(model, loader, optimizer, *args):
            """Train."""
            for batch in loader:
                {calls}
                optimizer.step()
                print(loss.item())
                xm.mark_step()
        ''').format(imports="\n".join(f"import {n}" for n in names),
                     calls="\n        ".join(f"loss = {n}.step_{i}(model, batch)"
                                             for i, n in enumerate(names))))
    saved = gc.get_debug()
    gc.collect()  # (what earlier tests left)
    try:
        for path in [train, *(tmp_path / f"{n}.py" for n in names)]:
            lint_source(path.read_text(), str(path), Options(target="auto", version=(2, 9)),
                        strict=True)
        gc.unfreeze()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, nodes.NodeNG)]
        assert left == []
    finally:
        gc.set_debug(saved)
        gc.garbage.clear()
        project.reset()
