"""Unit tests are not training steps: what pytest and unittest collect is exempt from the
performance rules, while the version rules still report there (flake8_xla.testcode)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astroid import nodes

from flake8_xla.context import Options
from flake8_xla.engine import lint_source
from flake8_xla.testcode import is_test_file, reported_in_tests, unit_test_spans

SUITE = '''\
import unittest

import torch
import torch_xla
import torch_xla.core.xla_model as xm


def run_steps(model, loader, optimizer):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        print(loss.item())
        xm.mark_step()


class OpsTest(unittest.TestCase):
    def test_nonzero(self):
        device = torch_xla.device()
        t = torch.randn(4, device=device)
        idx = torch.nonzero(t > 0)
        for i in range(3):
            y = t * i
            self.assertTrue(torch.allclose(y.cpu(), y.cpu()))
            torch_xla.sync()

    def test_train(self):
        device = xm.xla_device()
        model = torch.nn.Linear(2, 2).to(device)
        run_steps(model, [], torch.optim.SGD(model.parameters(), lr=0.1))


def test_sync_per_step():
    t = torch.ones(2, device=torch_xla.device())
    for _ in range(3):
        t = t + 1
        torch_xla.sync()
        assert t.sum().item() > 0
'''


def _codes(source: str, filename: str) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(source, filename, Options(target="all"))]


def test_test_file_names_follow_the_runners_defaults() -> None:
    assert is_test_file("tests/test_ops.py") and is_test_file("ops_test.py")
    assert is_test_file("test/tests.py")
    assert not is_test_file("tests/conftest.py") and not is_test_file("latest.py")


def test_spans_cover_collected_tests_only() -> None:
    """A collected test function, or a collected class as a whole."""
    spans = unit_test_spans(ast.parse(SUITE), "test_ops.py")
    lines = SUITE.splitlines()
    starts = [lines[a - 1].strip() for a, _ in spans]
    # a collected class as a whole (its helpers and fixtures run only under the runner)
    assert starts == ["class OpsTest(unittest.TestCase):", "def test_sync_per_step():"]
    # in a file no runner collects, only a test function that takes no argument and that
    # the module never names (run by hand): a TestCase there is not collected either
    spans = unit_test_spans(ast.parse(SUITE), "ops.py")
    assert [lines[a - 1].strip() for a, _ in spans] == ["def test_sync_per_step():"]
    named = SUITE + "\n\nif __name__ == '__main__':\n    run = test_sync_per_step\n    run()\n"
    assert unit_test_spans(ast.parse(named), "ops.py") == ()


def test_a_test_function_the_module_calls_is_its_own_code() -> None:
    src = "def test(model, loader):\n    pass\n\n\ndef main():\n    test(1, 2)\n"
    assert unit_test_spans(ast.parse(src), "test_mnist.py") == ()
    plain = "class Helper:\n    def test_x(self):\n        pass\n"
    assert unit_test_spans(ast.parse(plain), "test_helper.py") == ()


def test_performance_rules_skip_unit_tests_but_not_their_helpers() -> None:
    as_script = _codes(SUITE, "ops.py")
    as_suite = _codes(SUITE, "test_ops.py")
    # the helper's training loop is checked in both
    assert (13, "XLA201") in as_script and (13, "XLA201") in as_suite
    # the tests' own reads and dynamic shapes are reported only outside a test file (a
    # TestCase no runner collects there), except in a test function run by hand
    inside = {(21, "XLA104"), (24, "XLA201")}
    assert inside <= set(as_script)
    assert not (inside | {(38, "XLA201")}) & set(as_suite)
    assert (38, "XLA201") not in as_script
    # version rules still report inside tests
    assert (28, "XLA508") in as_suite


def test_codes_still_reported_in_tests() -> None:
    assert reported_in_tests("XLA508") and reported_in_tests("XLA507")
    assert reported_in_tests("XLA601") and reported_in_tests("XLA001")
    assert not reported_in_tests("XLA201") and not reported_in_tests("XLA104")


def test_a_test_function_handed_to_a_launcher_is_the_modules_code() -> None:
    src = ("import torch_xla.distributed.xla_multiprocessing as xmp\n\n\n"
           "def test_mp(index):\n    pass\n\n\n"
           "if __name__ == '__main__':\n    xmp.spawn(test_mp, args=())\n")
    assert unit_test_spans(ast.parse(src), "test_spawn.py") == ()


def test_only_what_the_runners_collect_is_a_test() -> None:
    # pytest skips a Test* class with __init__, and does not collect tester.py or test.py
    tester = ("class Tester:\n    def __init__(self, model):\n        self.model = model\n\n"
              "    def test(self, loader):\n        pass\n")
    assert unit_test_spans(ast.parse(tester), "tester.py") == ()
    assert unit_test_spans(ast.parse(tester), "test_tools.py") == ()
    evaluation = "def test_epoch(model, loader):\n    pass\n"
    assert unit_test_spans(ast.parse(evaluation), "test.py") == ()
    assert unit_test_spans(ast.parse(evaluation), "test_eval.py") == ((1, 2),)
    # unittest collects TestCase subclasses from test*.py, also through a shared base
    suite = ("from base import XlaShardingTest\n\n\n"
             "class ShardingTest(XlaShardingTest):\n    def test_mesh(self):\n        pass\n")
    assert unit_test_spans(ast.parse(suite), "tests.py") == ((4, 6),)


def test_nested_classes_and_tests_run_by_hand_are_tests() -> None:
    src = ("class TestOuter:\n    class TestInner:\n        def test_a(self):\n"
           "            pass\n\n\ndef test_b():\n    pass\n\n\ndef test_c():\n    test_b()\n\n\n"
           "if __name__ == '__main__':\n    test_b()\n    test_c()\n")
    assert unit_test_spans(ast.parse(src), "test_nested.py") == ((1, 4), (7, 8), (11, 12))


def test_rules_dropped_in_tests_are_not_shown_their_nodes() -> None:
    """A rule whose findings a test file drops inside unit tests is not shown the tests'
    calls (it would only spend time there); a rule still reported there sees them all, and
    the analysis always does (the helper's loop stays a step loop)."""
    from flake8_xla.context import ModuleContext
    from flake8_xla.engine import _run_rules

    shown: dict[str, list[int]] = {}

    class Spy:
        code = ""

        def __init__(self, ctx: ModuleContext) -> None:
            self.ctx = ctx

        def check(self) -> Iterator[object]:
            an = self.ctx.analyzer
            shown[self.code] = [c.lineno for c in an.rule_calls("sync")]
            shown[self.code + "-all"] = [c.lineno for c in an.calls_named("sync")]
            return iter(())

    class Performance(Spy):
        code = "XLA201"

    class Version(Spy):
        code = "XLA508"

    for name, lines in (("test_ops.py", []), ("ops.py", [25, 37])):
        ctx = ModuleContext(ast.parse(SUITE), SUITE, name, Options(target="all"))
        _run_rules(ctx, [Performance, Version], strict=True, test_file=name.startswith("test"))
        assert shown["XLA201"] == lines
        assert shown["XLA508"] == shown["XLA201-all"] == shown["XLA508-all"] == [25, 37]
        assert ctx.analyzer.steps.is_step_loop(ctx.analyzer.module_nodes(nodes.For)[0])


def test_rules_gated_on_the_code_outside_unit_tests() -> None:
    """In a test file, a performance rule whose precondition fails on the code outside its
    unit tests is not run at all (nothing it could report is there); the version rules
    still run, and a rule whose precondition holds outside the tests still runs."""
    from flake8_xla import engine

    ran: list[list[str]] = []
    original = engine._run_rules

    def spy(ctx, selected, *args, **kwargs):  # type: ignore[no-untyped-def]
        ran.append(sorted(r.code for r in selected))
        return original(ctx, selected, *args, **kwargs)

    suite_only = SUITE.replace(SUITE[SUITE.index("def run_steps"):
                                     SUITE.index("class OpsTest")], "")
    engine._run_rules = spy
    try:
        in_tests = _codes(suite_only, "test_ops.py")
        as_script = _codes(suite_only, "ops.py")
        with_helper = _codes(SUITE, "test_ops.py")
    finally:
        engine._run_rules = original
    tests_only, script, helper = ran
    # (the tests' dynamic shape and reads: reported in a script, not in a test file)
    assert {"XLA104", "XLA201", "XLA103"} <= set(script)
    assert not {"XLA104", "XLA201", "XLA103", "XLA101"} & set(tests_only)
    assert "XLA508" in tests_only and any(c == "XLA508" for _, c in in_tests)
    assert not any(c in ("XLA104", "XLA201") for _, c in in_tests)
    assert any(c == "XLA104" for _, c in as_script)
    # the helper's training loop outside the tests keeps the step rules running
    assert "XLA201" in helper and (13, "XLA201") in with_helper
