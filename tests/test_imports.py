"""The import table: its statement-only walk sees every import, in ast.walk's order."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from flake8_xla.imports import ImportTable, walk_statements

SOURCE = textwrap.dedent("""\
    import os
    try:
        import torch_xla.core.xla_model as xm
    except ImportError:
        import fake_xm as xm
    else:
        from torch_xla import runtime as xr
    finally:
        import gc
    class Trainer:
        from torch.cuda import amp
        def step(self):
            import torch_xla.distributed.parallel_loader as pl
            with open("x") as fh:
                if fh:
                    import numpy as np
                else:
                    from numpy import random as np
            while True:
                break
            else:
                import json as xm
    match os.name:
        case "posix":
            import posixpath as osp
        case _:
            import ntpath as osp
    f = lambda: __import__("torch")
""")


def test_statement_walk_finds_every_import_in_ast_walk_order() -> None:
    tree = ast.parse(SOURCE)
    expected = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    found = [n for n in walk_statements(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert found == expected
    assert len(found) == 12


def test_import_table_binds_nested_imports_and_later_bindings_win() -> None:
    table = ImportTable(ast.parse(SOURCE))
    assert table.resolve("pl") == "torch_xla.distributed.parallel_loader"
    assert table.resolve("xr") == "torch_xla.runtime"
    assert table.resolve("amp") == "torch.cuda.amp"
    # ``xm`` is bound three times; breadth-first, the deepest binding comes last.
    assert table.resolve("xm") == "json"
    assert table.resolve("osp") == "ntpath"
    assert table.imports_prefix("torch_xla")
    assert table.resolve("f") is None


def test_astwalk_matches_ast_walk_and_prunes() -> None:
    """flake8_xla.astwalk.walk yields what ast.walk yields, in the same order (the project
    index's summaries depend on it); a pruned node is yielded without its children."""
    from flake8_xla.astwalk import walk

    source = (Path(__file__).parent.parent / "flake8_xla" / "project" / "summary.py").read_text()
    tree = ast.parse(source)
    assert [id(n) for n in walk(tree)] == [id(n) for n in ast.walk(tree)]
    small = ast.parse("def f():\n    g()\nh()\n")
    names = [n.id for n in walk(small, prune=(ast.FunctionDef,)) if isinstance(n, ast.Name)]
    assert names == ["h"]


def test_a_notebook_alias_used_unbound_resolves_as_the_notebook_imports_it() -> None:
    """``xm.optimizer_step(opt)`` in a file that never binds ``xm`` (a helper that a
    notebook cell runs after importing torch_xla) resolves to torch_xla's xla_model; a
    bound ``xm``, an alias used without one of its module's functions, or a table built
    without the source leaves it alone."""
    helper = "def step(opt):\n    xm.optimizer_step(opt)\n    xmp.foo()\n"
    table = ImportTable(ast.parse(helper), helper)
    assert table.resolve("xm") == "torch_xla.core.xla_model"
    assert table.imports_prefix("torch_xla") and table.implicit == {"xm"}
    assert table.resolve("xmp") is None  # (``foo`` is no xla_multiprocessing function)
    assert ImportTable(ast.parse(helper)).resolve("xm") is None
    bound = "def step(opt, xm):\n    xm.optimizer_step(opt)\n"
    assert ImportTable(ast.parse(bound), bound).resolve("xm") is None
    assigned = "xm = load()\nxm.save(1)\n"
    assert ImportTable(ast.parse(assigned), assigned).implicit == frozenset()
