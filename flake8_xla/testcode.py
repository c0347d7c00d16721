"""Unit tests: the functions a test runner collects and runs, which the step rules skip.

A unit test checks values on the host on purpose (``assert y.cpu() == ...``), exercises
the very operations a training step should avoid (``torch.nonzero`` in a test of dynamic
shapes) and runs once, so its speed is not a training step's. The performance rules
(XLA1xx-XLA4xx, XLA501-XLA506, XLA509) therefore do not report inside one, and the step
analysis does not take a loop of one for a training step. The version rules (XLA507,
XLA508), the migration band (XLA6xx) and XLA001 still do: a removed API breaks a test
as surely as a script.

What counts follows pytest's and unittest's default collection: in a file named
``test_*.py`` or ``*_test.py`` (pytest), a module-level function named ``test*`` and a
class named ``Test*`` without ``__init__``; in a file named ``test*.py`` (unittest) too,
a class deriving from a ``...TestCase`` (also through a base of the module, or a shared
``...Test``/``...TestBase`` base such as pytorch/xla's ``XlaShardingTest``). A collected
class counts as a whole: its ``setUp``, ``setUpClass`` and helper methods run only under
the runner. A function that its own module calls with arguments or hands on (``def
test(model, loader)`` run by the script's ``main()``, ``xmp.spawn(test_fn)``) is the
module's code, not a test; so is a ``Tester`` class with an ``__init__``, and
``test.py``'s functions. In a file no runner collects, a module-level ``test_*``
function that takes no argument and that its module never names is run by hand, and
counts as a unit test too. A training script that happens to live in ``test/``
(``test_train_mp_mnist.py``) has no collected functions outside its ``TestCase``, and
its training code is checked.
"""

from __future__ import annotations

import ast
import bisect
import os
import sys

from flake8_xla.project.xlause import is_main_test

#: Codes still reported inside unit tests: the file-level XLA001, the version rules
#: and the TorchTPU migration band.
CHECKED_IN_TESTS = ("XLA001", "XLA507", "XLA508", "XLA6")

Span = tuple[int, int]
_END = sys.maxsize


def is_test_file(filename: str) -> bool:
    """A file name pytest (``test_*.py``, ``*_test.py``) or unittest (``test*.py``)
    collects by default."""
    base = os.path.basename(filename)
    return base.endswith(".py") and base.startswith("test") or base.endswith("_test.py")


def _pytest_file(filename: str) -> bool:
    base = os.path.basename(filename)
    return base.startswith("test_") and base.endswith(".py") or base.endswith("_test.py")


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):  # Generic[...]-style bases
        return _dotted(node.value)
    return ""


_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _test_class(klass: ast.ClassDef, pytest_file: bool, cases: set[str]) -> bool:
    """A class the runners collect: one deriving from a ``...TestCase`` (also through a
    base of the module, or a base named ``...Test``/``...TestBase`` from a shared test
    module: pytorch/xla's ``XlaShardingTest``), or, in a pytest file, a class named
    ``Test*`` without ``__init__`` (pytest skips classes that have one)."""
    bases = [_dotted(b) for b in klass.bases]
    if any(b.endswith(("TestCase", "Test", "TestBase")) or b in cases for b in bases):
        return True
    return pytest_file and klass.name.startswith("Test") and not any(
        isinstance(m, _FUNCS) and m.name == "__init__" for m in klass.body)


def _used_names(tree: ast.Module, tests: set[int]) -> set[str]:
    """Names the module's own code loads, outside its tests. A bare call in the
    ``__main__`` block (``test_forward()``, a suite runnable by hand) does not count;
    one given arguments or handed on (``test(model, loader)``, ``xmp.spawn(test_fn)``)
    does."""
    used: set[str] = set()
    for stmt in tree.body:
        if id(stmt) in tests:
            continue
        bare: set[int] = set()
        if isinstance(stmt, ast.If) and is_main_test(stmt.test):
            bare = {id(n.func) for n in ast.walk(stmt) if isinstance(n, ast.Call) and
                    not n.args and not n.keywords}
        for node in ast.walk(stmt):
            if isinstance(node, _FUNCS) and id(node) in tests:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                    id(node) not in bare:
                used.add(node.id)
    return used


def unit_test_spans(tree: ast.Module, filename: str) -> tuple[Span, ...]:
    """The ``(first line, last line)`` of every unit test of ``tree`` (decorators included),
    in source order: a collected test function, or a whole collected test class (its
    ``setUp``/``setUpClass`` and helper methods run only under the test runner too).
    Empty when ``filename`` is not a test file name. Never raises for the checked code's
    sake (a node without an end line is skipped)."""
    if not is_test_file(filename):
        return _hand_run_tests(tree)
    pytest_file = _pytest_file(filename)
    cases: set[str] = set()
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    classes: list[ast.ClassDef] = []
    for stmt in tree.body:
        if isinstance(stmt, _FUNCS) and stmt.name.startswith("test") and pytest_file:
            functions.append(stmt)
        elif isinstance(stmt, ast.ClassDef) and _test_class(stmt, pytest_file, cases):
            cases.add(stmt.name)
            classes.append(stmt)
    if not functions and not classes:
        return ()
    used = _used_names(tree, {id(f) for f in functions}) if functions else set()
    return _spans([f for f in functions if f.name not in used] + classes)


def _spans(found: list[ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef]
           ) -> tuple[Span, ...]:
    """``(first line, last line)`` of each definition, decorators included, in source
    order (one without an end line is skipped)."""
    return tuple(sorted((min([f.lineno, *(d.lineno for d in f.decorator_list)]),
                         f.end_lineno) for f in found if f.end_lineno is not None))


def _hand_run_tests(tree: ast.Module) -> tuple[Span, ...]:
    """In a file no runner collects, the module-level ``test_*`` functions that take no
    argument and that the module's own code never names (``def test_double_gradients():``
    beside a training script's code, run by hand): checks on the host that no training
    step runs."""
    functions = [stmt for stmt in tree.body if isinstance(stmt, _FUNCS) and
                 stmt.name.startswith("test_") and not _takes_arguments(stmt)]
    if not functions:
        return ()
    used = _used_names(tree, {id(f) for f in functions})
    return _spans([f for f in functions if f.name not in used])


def _takes_arguments(func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    a = func.args
    return bool(a.posonlyargs or a.args or a.kwonlyargs or a.vararg or a.kwarg)


def in_spans(line: int, spans: tuple[Span, ...]) -> bool:
    """``line`` lies in one of ``spans`` (sorted, not overlapping, as
    :func:`unit_test_spans` gives them)."""
    at = bisect.bisect_right(spans, (line, _END)) - 1
    return at >= 0 and spans[at][0] <= line <= spans[at][1]


def reported_in_tests(code: str) -> bool:
    """A finding of ``code`` is still reported inside a unit test."""
    return code.startswith(CHECKED_IN_TESTS)
