"""flake8_xla.analysis.treewalk: nodes_of gives astroid's nodes_of_class answer, in the same
order, whether it walks the subtree or lists it from the module's pre-order list."""
from __future__ import annotations

from pathlib import Path

import pytest
from astroid import nodes

from flake8_xla.analysis.build import build_module
from flake8_xla.analysis.treewalk import nodes_of, preorder, syntax_cache

EVAL = Path(__file__).parent / "eval_files"
QUERIES: list[tuple[type | tuple[type, ...], type | tuple[type, ...] | None]] = [
    (nodes.Call, None),
    (nodes.Name, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)),
    ((nodes.AssignName, nodes.AssignAttr), None),
    (nodes.NodeNG, nodes.FunctionDef),
    ((nodes.Return, nodes.Yield), (nodes.FunctionDef, nodes.Lambda)),
]


def _module(name: str) -> nodes.Module:
    source = (EVAL / name).read_text(encoding="utf-8")
    return build_module(source, "treewalk_test")


@pytest.mark.parametrize("name", ["XLA201_meter_dict_format.py",
                                  "XLA102_dataset_length_from_constructor.py",
                                  "XLA103_data_dependent_control_flow.py"])
def test_listed_matches_astroid(name: str) -> None:
    module = _module(name)
    walked = {(id(n), i): list(nodes_of(n, k, s))
              for n in module.nodes_of_class(nodes.NodeNG) for i, (k, s) in enumerate(QUERIES)}
    preorder(module)  # from here on, answers come from the pre-order list
    assert "ranges" not in syntax_cache(module)
    count = 0
    for n in module.nodes_of_class(nodes.NodeNG):
        for i, (klass, skip) in enumerate(QUERIES):
            expected = list(n.nodes_of_class(klass, skip))
            got = list(nodes_of(n, klass, skip))
            assert [id(x) for x in got] == [id(x) for x in expected], (n, klass, skip)
            assert [id(x) for x in walked[(id(n), i)]] == [id(x) for x in expected]
            count += 1
    assert "ranges" in syntax_cache(module)
    assert count > 500


def test_node_outside_the_list_is_walked() -> None:
    module = _module("XLA201_meter_dict_format.py")
    preorder(module)
    loose = nodes.Call(lineno=1, col_offset=0, parent=None, end_lineno=1, end_col_offset=1)
    loose.postinit(func=nodes.Name("f", 1, 0, loose, end_lineno=1, end_col_offset=1),
                   args=[], keywords=[])
    assert [type(n) for n in nodes_of(loose, nodes.NodeNG)] == [nodes.Call, nodes.Name]
