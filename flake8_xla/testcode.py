"""Unit tests: the functions a test runner collects and runs, which the step rules skip.

A unit test checks values on the host on purpose (``assert y.cpu() == ...``), exercises
the very operations a training step should avoid (``torch.nonzero`` in a test of dynamic
shapes) and runs once, so its speed is not a training step's. The performance rules
(XLA1xx-XLA4xx, XLA501-XLA506, XLA509) therefore do not report inside one, and the step
analysis does not take a loop of one for a training step. The version rules (XLA507,
XLA508), the migration band (XLA6xx) and XLA001 still do: a removed API breaks a test
as surely as a script.

What counts follows pytest's and unittest's default collection: in a file named
``test*.py`` or ``*_test.py``, a module-level function named ``test*``, and a method
named ``test*`` of a class named ``Test*`` or deriving from a ``...TestCase`` class. A
function that its own module calls (``def test(model, loader)`` run by the script's
``main()``, the evaluation pass of a training script) is the module's code, not a test.
A training script that happens to live in ``test/`` (``test_train_mp_mnist.py``) has
no such functions, and is checked as a whole.
"""

from __future__ import annotations

import ast
import bisect
import os
import sys

#: Codes still reported inside unit tests: the file-level XLA001, the version rules
#: and the TorchTPU migration band.
CHECKED_IN_TESTS = ("XLA001", "XLA507", "XLA508", "XLA6")

Span = tuple[int, int]
_END = sys.maxsize


def is_test_file(filename: str) -> bool:
    """A file name pytest or unittest collects by default (``test*.py``, ``*_test.py``)."""
    base = os.path.basename(filename)
    return base.endswith(".py") and (base.startswith("test") or base.endswith("_test.py"))


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):  # Generic[...]-style bases
        return _dotted(node.value)
    return ""


def _test_class(klass: ast.ClassDef) -> bool:
    return klass.name.startswith("Test") or any(
        _dotted(b).endswith("TestCase") for b in klass.bases)


def _first_line(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([func.lineno, *(d.lineno for d in func.decorator_list)])


def unit_test_spans(tree: ast.Module, filename: str) -> tuple[Span, ...]:
    """The ``(first line, last line)`` of every unit test of ``tree`` (decorators included),
    in source order; empty when ``filename`` is not a test file name. Never raises for
    the checked code's sake (a node without an end line is skipped)."""
    if not is_test_file(filename):
        return ()
    candidates: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                stmt.name.startswith("test"):
            candidates.append(stmt)
        elif isinstance(stmt, ast.ClassDef) and _test_class(stmt):
            candidates.extend(m for m in stmt.body if isinstance(
                m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test"))
    if not candidates:
        return ()
    module_level = {f.name for f in candidates if f in tree.body}
    used: set[str] = set()
    if module_level:
        # called or handed on by the module's own code (``main()`` runs ``test(model,
        # loader)``, ``xmp.spawn(test_fn)``): the module's code, not a collected test
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in module_level and \
                    isinstance(node.ctx, ast.Load):
                used.add(node.id)
    spans = [(_first_line(f), f.end_lineno) for f in candidates
             if f.end_lineno is not None and not (f in tree.body and f.name in used)]
    return tuple(sorted(spans))


def in_spans(line: int, spans: tuple[Span, ...]) -> bool:
    """``line`` lies in one of ``spans`` (sorted, not overlapping, as
    :func:`unit_test_spans` gives them)."""
    at = bisect.bisect_right(spans, (line, _END)) - 1
    return at >= 0 and spans[at][0] <= line <= spans[at][1]


def reported_in_tests(code: str) -> bool:
    """A finding of ``code`` is still reported inside a unit test."""
    return code.startswith(CHECKED_IN_TESTS)
