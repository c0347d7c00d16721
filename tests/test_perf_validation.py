"""Tests of perf_validation.

Unmarked tests are fast and never import torch.  Tests marked ``xla`` run real
scripts under torch_xla on the CPU (``PJRT_DEVICE=CPU``); deselect them with
``-m "not xla"``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from perf_validation import cli, probe, report, runner
from perf_validation.cases import Case, UsageError, discover, load_case
from perf_validation.claims import Claim, ClaimError, evaluate_expression, parse_condition
from perf_validation.compare import evaluate_pair, exit_status, figures, metric_value
from perf_validation.runner import ScriptRun, child_env, run_script

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "perf_fixtures"
CHECKS = ROOT / "checks"
HAS_TORCH_XLA = importlib.util.find_spec("torch_xla") is not None
needs_torch_xla = pytest.mark.skipif(not HAS_TORCH_XLA, reason="needs torch_xla (validate extra)")


# -- helpers ----------------------------------------------------------------------------
def make_run(outcome: str = "ok", counters: dict[str, int] | None = None,
             metrics: dict[str, dict[str, Any]] | None = None,
             steps: list[dict[str, Any]] | None = None, script: str = "s.py",
             traceback_tail: list[str] | None = None) -> ScriptRun:
    """A ScriptRun as the runner would build it from a probe document."""
    document = {
        "probe_version": 1,
        "status": {"ok": "ok", "error": "exception", "timeout": "terminated"}[outcome],
        "script_s": 1.5,
        "import_s": 3.0,
        "counters": counters or {},
        "metrics": metrics or {},
        "fallback_ops": ["aten::_local_scalar_dense"],
        "steps": steps or [],
        "step_barriers": len(steps or []),
        "notes": [],
    }
    return ScriptRun(script=script, outcome=outcome, exit_code=0 if outcome == "ok" else 1,
                     wall_s=5.0, probe=document, traceback_tail=traceback_tail or [])


def make_case(tmp_path: Path, toml: str, flagged: str = "pass\n", fixed: str = "pass\n",
              name: str = "XLA999") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True)
    (folder / "flagged.py").write_text(flagged)
    (folder / "fixed.py").write_text(fixed)
    (folder / "case.toml").write_text(textwrap.dedent(toml))
    return folder


def run_cli(*args: str, timeout: float = 300, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ if env is None else env)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [full_env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "-m", "perf_validation", *args], cwd=ROOT, check=False,
                          env=full_env, capture_output=True, text=True, timeout=timeout)


# -- claims -----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "steps", "value", "holds"), [
    (">= steps - 1", 8, 7, True),
    (">= steps - 1", 8, 6, False),
    ("<= 2", None, 2, True),
    ("== 2 * steps", 4, 8, True),
    ("!= 0", None, 0, False),
    ("> steps // 3", 8, 3, True),
    ("< (steps + 1) / 2", 8, 4.4, True),
    ("<= -1 + steps % 3", 8, 1, True),
    ("  >=steps  ", 5, 5, True),
])
def test_numeric_conditions(text: str, steps: int | None, value: float, holds: bool) -> None:
    assert parse_condition(text).holds(value, steps) is holds


def test_bare_number_means_equal() -> None:
    condition = parse_condition(3)
    assert condition.op == "=="
    assert condition.holds(3, None)
    assert not condition.holds(4, None)


@pytest.mark.parametrize("text", ['== "error"', "== 'error'", "error", '"error"'])
def test_outcome_conditions(text: str) -> None:
    condition = parse_condition(text, outcome=True)
    assert condition.is_outcome
    assert condition.holds("error", None)
    assert not condition.holds("ok", None)


def test_outcome_not_equal() -> None:
    assert parse_condition('!= "ok"', outcome=True).holds("timeout", None)


@pytest.mark.parametrize(("text", "message"), [
    ("steps - 1", "starts with one of"),
    (">= ", "missing the expression"),
    (">= step - 1", "unknown name 'step'"),
    (">= __import__('os').getpid()", "Call is not allowed"),
    (">= steps.real", "Attribute is not allowed"),
    (">= 2 ** 10", "Pow is not allowed"),
    (">= 'abc'", "only numbers"),
    (">= True", "only numbers"),
    (">= (lambda: 1)()", "not allowed"),
    (">= [1][0]", "not allowed"),
    (">= 1 if steps else 2", "IfExp is not allowed"),
    (">= 1 +", "not an arithmetic expression"),
    (">= ~steps", "Invert is not allowed"),
])
def test_rejected_conditions(text: str, message: str) -> None:
    with pytest.raises(ClaimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_condition(text)


@pytest.mark.parametrize(("text", "message"), [
    ('>= "error"', "use == or !="),
    ('== "crashed"', "must be one of ok, error, timeout"),
])
def test_rejected_outcome_conditions(text: str, message: str) -> None:
    with pytest.raises(ClaimError, match=message):
        parse_condition(text, outcome=True)


def test_steps_required_when_used() -> None:
    condition = parse_condition(">= steps")
    assert condition.uses_steps
    with pytest.raises(ClaimError, match="no step count is known"):
        condition.holds(3, None)


def test_division_by_zero_is_a_claim_error() -> None:
    with pytest.raises(ClaimError, match="division by zero"):
        parse_condition("<= 1 / (steps - 4)").holds(1, 4)


def test_evaluate_expression_types() -> None:
    tree = parse_condition(">= 2 * steps + 0.5").expected
    assert tree is not None
    assert evaluate_expression(tree, 3) == 6.5


def test_claim_from_table() -> None:
    claim = Claim.from_table({"metric": "UncachedCompile", "flagged": ">= steps - 1",
                              "fixed": "<= 2", "why": " per padded length "})
    assert claim.metric == "UncachedCompile"
    assert claim.uses_steps
    assert claim.why == "per padded length"
    assert claim.condition("fixed") is claim.fixed


@pytest.mark.parametrize(("table", "message"), [
    ({"flagged": ">= 1"}, "'metric' must be"),
    ({"metric": "X"}, "give a 'flagged' or a 'fixed'"),
    ({"metric": "X", "flagged": ">= nope"}, "X: flagged: .*unknown name"),
    ({"metric": "X", "fixed": ">= 1", "fixd": "<= 1"}, "unknown key"),
    ({"metric": "outcome", "flagged": "== 3"}, "outcome: flagged"),
])
def test_claim_from_table_errors(table: dict[str, object], message: str) -> None:
    with pytest.raises(ClaimError, match=message):
        Claim.from_table(table)


# -- cases and discovery ----------------------------------------------------------------
CASE_TOML = """\
rule = "XLA999"
name = "test-case"
summary = "a test"
[[expect]]
code = "XLA999"
line = 3
[run]
steps = 4
timeout = 30
[[claim]]
metric = "UncachedCompile"
flagged = ">= steps"
fixed = "<= 1"
why = "because"
"""


def test_load_case(tmp_path: Path) -> None:
    case = load_case(make_case(tmp_path, CASE_TOML))
    assert (case.name, case.rule, case.title, case.steps, case.timeout) == \
        ("XLA999", "XLA999", "test-case", 4, 30.0)
    assert case.flagged.name == "flagged.py" and case.fixed.name == "fixed.py"
    assert [c.metric for c in case.claims] == ["UncachedCompile"]


def test_load_case_named_scripts(tmp_path: Path) -> None:
    folder = make_case(tmp_path, CASE_TOML.replace("[run]\n", '[run]\nflagged = "a.py"\n'))
    (folder / "a.py").write_text("pass\n")
    assert load_case(folder).flagged.name == "a.py"


@pytest.mark.parametrize(("toml", "message"), [
    ("rule = \n", "invalid TOML"),
    (CASE_TOML.replace("steps = 4", "steps = -4"), "steps must be a positive integer"),
    (CASE_TOML.replace('fixed = "<= 1"', 'fixed = "<= one"'), "claim 1: UncachedCompile: fixed"),
    (CASE_TOML + "[[claim]]\nmetric = 'outcome'\nflagged = '== \"broken\"'\n", "claim 2"),
])
def test_load_case_errors_name_the_file(tmp_path: Path, toml: str, message: str) -> None:
    folder = make_case(tmp_path, toml)
    with pytest.raises(UsageError, match=message) as info:
        load_case(folder)
    assert "case.toml" in str(info.value)


def test_load_case_missing_script(tmp_path: Path) -> None:
    folder = make_case(tmp_path, CASE_TOML)
    (folder / "fixed.py").unlink()
    with pytest.raises(UsageError, match="no fixed.py"):
        load_case(folder)


def test_discover_pair_and_suite(tmp_path: Path) -> None:
    cases = discover([str(FIXTURES / "recompile_flagged.py"), str(FIXTURES / "crash.py")])
    assert len(cases) == 1 and cases[0].claims == [] and cases[0].name == "recompile_flagged"
    make_case(tmp_path / "suite", CASE_TOML, name="XLA102")
    make_case(tmp_path / "suite", CASE_TOML.replace("XLA999", "XLA101"), name="XLA101")
    (tmp_path / "suite" / "XLA103").mkdir()
    notes: list[str] = []
    cases = discover([str(tmp_path / "suite")], notes)
    assert [c.name for c in cases] == ["XLA101", "XLA999"]  # sorted by folder
    assert len(notes) == 1 and "XLA103" in notes[0] and "skipped" in notes[0]


@pytest.mark.parametrize("paths", [
    ["nope/flagged.py", "nope/fixed.py"],
    [str(FIXTURES / "crash.py")],
    [str(FIXTURES / "crash.py"), str(FIXTURES / "hang.py"), str(FIXTURES / "crash.py")],
    [str(FIXTURES)],
    [],
])
def test_discover_usage_errors(paths: list[str]) -> None:
    with pytest.raises(UsageError):
        discover(paths)


# -- evaluation -------------------------------------------------------------------------
def _case(claims: list[Claim], steps: int | None = 4) -> Case:
    return Case(name="XLA999", flagged=Path("f.py"), fixed=Path("x.py"), steps=steps,
                claims=claims)


def test_metric_value_lookup() -> None:
    run = make_run(counters={"UncachedCompile": 5, "aten::_local_scalar_dense": 2},
                   metrics={"CompileTime": {"count": 5, "total": 2.5e9, "max": 1e9},
                            "TensorsGraphSize": {"count": 3, "total": 90, "max": 40.0}})
    assert metric_value(run, "UncachedCompile") == 5
    assert metric_value(run, "CachedCompile") == 0  # never set reads as 0
    assert metric_value(run, "aten::_local_scalar_dense") == 2
    assert metric_value(run, "CompileTime") == 5
    assert metric_value(run, "CompileTime.total") == 2.5e9
    assert metric_value(run, "CompileTime.total_s") == 2.5
    assert metric_value(run, "TensorsGraphSize.max") == 40.0
    assert metric_value(run, "ExecuteTime") == 0
    # aten::_local_scalar_dense is the scalar read (its own figure), not a CPU fallback.
    assert metric_value(run, "fallback_ops") == 0
    run.probe["fallback_ops"] = ["aten::_local_scalar_dense", "aten::nonzero"]
    assert metric_value(run, "fallback_ops") == 1
    assert metric_value(run, "outcome") == "ok"
    assert figures(run)["UncachedCompile"] == 5


def test_evaluate_pair_holds_and_fails() -> None:
    claims = [Claim.from_table({"metric": "UncachedCompile", "flagged": ">= steps - 1",
                                "fixed": "<= 2"}),
              Claim.from_table({"metric": "ExecuteTime", "fixed": ">= steps"})]
    runs = {"flagged": make_run(counters={"UncachedCompile": 4}),
            "fixed": make_run(counters={"UncachedCompile": 1},
                              metrics={"ExecuteTime": {"count": 2, "total": 1.0, "max": 1.0}})}
    result = evaluate_pair(_case(claims), runs, steps=4, timeout_s=10)
    assert [c.verdict for c in result.claims] == ["holds", "fails"]
    assert result.claims[0].sides["flagged"].expected == 3
    assert result.status == "fails"
    assert exit_status([result]) == 1


def test_unexpected_crash_is_exit_2_and_claims_unverified() -> None:
    claims = [Claim.from_table({"metric": "UncachedCompile", "flagged": ">= 1"})]
    runs = {"flagged": make_run("error", traceback_tail=["RuntimeError: boom"]),
            "fixed": make_run()}
    result = evaluate_pair(_case(claims), runs, steps=4, timeout_s=10)
    assert result.unexpected == ["flagged"]
    assert result.claims[0].verdict == "unverified"
    assert result.status == "crashed"
    assert exit_status([result]) == 2


def test_expected_error_is_not_a_crash() -> None:
    claims = [Claim.from_table({"metric": "outcome", "flagged": '== "error"',
                                "fixed": '== "ok"'})]
    runs = {"flagged": make_run("error"), "fixed": make_run()}
    result = evaluate_pair(_case(claims), runs, steps=None, timeout_s=10)
    assert result.unexpected == []
    assert result.status == "holds"
    assert exit_status([result]) == 0
    # The same case with a clean flagged run: the outcome claim fails (exit 1, not 2).
    runs = {"flagged": make_run(), "fixed": make_run()}
    assert exit_status([evaluate_pair(_case(claims), runs, steps=None, timeout_s=10)]) == 1


def test_timeout_without_claims_is_exit_2() -> None:
    runs = {"flagged": make_run("timeout"), "fixed": make_run()}
    result = evaluate_pair(_case([]), runs, steps=None, timeout_s=5)
    assert result.status == "timeout" and exit_status([result]) == 2
    both = {"flagged": make_run("timeout"), "fixed": make_run("error")}
    assert evaluate_pair(_case([]), both, steps=None, timeout_s=5).status == "crashed"
    clean = evaluate_pair(_case([]), {"flagged": make_run(), "fixed": make_run()}, None, 5)
    assert clean.status == "compared" and exit_status([clean]) == 0


def test_unknown_metric_gets_a_note() -> None:
    claims = [Claim.from_table({"metric": "UncachedCompil", "fixed": "<= 2"})]
    result = evaluate_pair(_case(claims), {"flagged": make_run(), "fixed": make_run()}, 4, 5)
    assert result.claims[0].verdict == "holds"
    assert "never recorded" in result.claims[0].note


# -- environment of the child -----------------------------------------------------------
def test_child_env() -> None:
    base = {"XLA_PERSISTENT_CACHE_PATH": "/tmp/cache", "XLA_USE_EAGER_DEBUG_MODE": "1",
            "PATH": "/bin"}
    env = child_env(base, None, 6)
    assert env["PJRT_DEVICE"] == "CPU"
    assert env["XLA_CHECK_STEPS"] == "6"
    assert "XLA_PERSISTENT_CACHE_PATH" not in env and "XLA_USE_EAGER_DEBUG_MODE" not in env
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(ROOT)
    assert child_env({"PJRT_DEVICE": "TPU"}, None, None)["PJRT_DEVICE"] == "TPU"
    assert child_env({"PJRT_DEVICE": "TPU"}, "CUDA", None)["PJRT_DEVICE"] == "CUDA"
    assert "XLA_CHECK_STEPS" not in child_env({}, None, None)


# -- probe hooks (with a fake metrics module) -------------------------------------------
class FakeMetrics:
    """Stands in for torch_xla.debug.metrics."""

    def __init__(self) -> None:
        self.counters: dict[str, int] = {}

    def counter_names(self) -> list[str]:
        return list(self.counters)

    def counter_value(self, name: str) -> int | None:
        return self.counters.get(name)

    def metric_names(self) -> list[str]:
        return ["ExecuteTime"]

    def metric_data(self, name: str) -> tuple[int, float, list[tuple[float, float]]] | None:
        if name != "ExecuteTime":
            return None
        n = self.counters.get("MarkStep", 0)
        return (n, 10.0 * n, [(0.0, 10.0)] * n) if n else None

    def executed_fallback_ops(self) -> list[str]:
        return []


def test_probe_barrier_snapshots_once_per_outermost_call(tmp_path: Path) -> None:
    fake = FakeMetrics()
    state = probe.Probe("script.py", str(tmp_path / "out.json"))
    state.met = fake  # type: ignore[assignment]

    def sync() -> None:
        fake.counters["MarkStep"] = fake.counters.get("MarkStep", 0) + 1
        fake.counters["UncachedCompile"] = 1

    wrapped_sync = state.wrap_barrier(sync)
    mark_step = state.wrap_barrier(lambda: wrapped_sync())  # mark_step calls sync
    assert state.wrap_barrier(wrapped_sync) is wrapped_sync
    wrapped_sync()
    mark_step()
    assert [s["step"] for s in state.steps] == [1, 2]
    assert state.steps[1]["MarkStep"] == 2 and state.steps[1]["ExecuteTime"] == 2
    assert state.steps[0]["CachedCompile"] == 0  # never set reads as 0
    state.write()
    document = json.loads((tmp_path / "out.json").read_text())
    assert document["step_barriers"] == 2
    assert document["counters"] == {"MarkStep": 2, "UncachedCompile": 1}
    assert document["metrics"]["ExecuteTime"] == {"count": 2, "total": 20.0, "max": 10.0,
                                                  "samples": 2}


def test_probe_usage() -> None:
    assert probe.main(["only-one-arg"]) == 2


# -- reports and atomic writing ---------------------------------------------------------
def _results() -> list[Any]:
    claims = [Claim.from_table({"metric": "UncachedCompile", "flagged": ">= steps - 1",
                                "fixed": "<= 2", "why": "one | per length"})]
    steps = [{"step": i, "t": 0.1 * i, "UncachedCompile": i, "CachedCompile": 0,
              "CompileTime": i, "ExecuteTime": i, "TransferFromDeviceTime": 0, "MarkStep": i}
             for i in range(1, 5)]
    runs = {"flagged": make_run(counters={"UncachedCompile": 4}, steps=steps),
            "fixed": make_run("error", counters={"UncachedCompile": 1},
                              traceback_tail=["Traceback (most recent call last):",
                                              "RuntimeError: boom"])}
    case = _case(claims)
    case.title = "test-case"
    return [evaluate_pair(case, runs, steps=4, timeout_s=10)]


def test_render_reports() -> None:
    results = _results()
    settings = {"pjrt_device": "CPU"}
    markdown = report.render_markdown(results, 2, settings)
    assert "| graph compilations (UncachedCompile) | 4 | 1 | 4.00x |" in markdown
    assert "RuntimeError: boom" in markdown and "one \\| per length" in markdown
    assert "### fixed script: error (unexpected)" in markdown
    document = json.loads(report.render_json(results, 2, settings))
    assert document["schema_version"] == report.SCHEMA_VERSION == 1
    pair = document["pairs"][0]
    assert pair["figures"]["flagged"]["UncachedCompile"] == 4
    assert pair["ratios"]["UncachedCompile"] == 4.0
    assert pair["flagged"]["probe"]["steps"][3]["UncachedCompile"] == 4
    assert pair["claims"][0]["verdict"] == "unverified"
    assert pair["status"] == "crashed"
    table = report.summary_table(results)
    assert "4 -> 1" in table and "XLA999" in table


def test_render_png() -> None:
    pytest.importorskip("matplotlib")
    assert report.render_png(_results()).startswith(b"\x89PNG")


def test_write_atomically_replaces_the_set(tmp_path: Path) -> None:
    report.write_atomically(tmp_path, {"a.md": b"old a", "b.json": b"old b"})
    report.write_atomically(tmp_path, {"a.md": b"new a", "b.json": b"new b"}, remove=["c.png"])
    assert (tmp_path / "a.md").read_bytes() == b"new a"
    assert (tmp_path / "b.json").read_bytes() == b"new b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "a.md").stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's 0600


def test_interrupt_before_replace_keeps_previous_report(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    report.write_atomically(tmp_path, {"a.md": b"old a", "b.json": b"old b"})
    calls = []

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 2:  # while the second temporary file is being written
            raise KeyboardInterrupt

    monkeypatch.setattr(report.os, "fsync", fsync)
    with pytest.raises(KeyboardInterrupt):
        report.write_atomically(tmp_path, {"a.md": b"new a", "b.json": b"new b"})
    assert (tmp_path / "a.md").read_bytes() == b"old a"
    assert (tmp_path / "b.json").read_bytes() == b"old b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md", "b.json"]  # no temp left


@pytest.fixture
def ctrl_c() -> Iterator[None]:
    """Ctrl-C as in a terminal: KeyboardInterrupt in this process and the default
    SIGINT action in children, even when pytest was started with SIGINT ignored
    (``nohup pytest &`` in a script), which children would otherwise inherit."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c")
def test_ctrl_c_during_replace_is_deferred(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    report.write_atomically(tmp_path, {"a.md": b"old a", "b.json": b"old b"})
    real_replace = os.replace

    def replace(src: str, dst: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C between the moves
        real_replace(src, dst)

    monkeypatch.setattr(report.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        report.write_atomically(tmp_path, {"a.md": b"new a", "b.json": b"new b"})
    assert (tmp_path / "a.md").read_bytes() == b"new a"  # the whole set was moved
    assert (tmp_path / "b.json").read_bytes() == b"new b"


def test_write_report_without_matplotlib(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "report.png").write_bytes(b"stale")

    def no_matplotlib(results: object) -> bytes:
        raise ImportError("matplotlib")

    monkeypatch.setattr(report, "render_png", no_matplotlib)
    warnings = report.write_report(tmp_path, _results(), 2, {"pjrt_device": "CPU"})
    assert warnings and "matplotlib" in warnings[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "report.md"]


# -- command line (fast) ----------------------------------------------------------------
def test_help_uses_the_terms_of_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for term in ("graph compilation", "cache hit", "graph execution", "device-to-host",
                 "step barrier", "torch_xla.sync", "mark_step", "CPU fallback", "exit status"):
        assert term in text


def test_missing_path_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main([str(tmp_path / "missing.py"), str(FIXTURES / "crash.py")]) == 2
    err = capsys.readouterr().err
    assert "no such file or directory" in err and "missing.py" in err
    assert "Traceback" not in err


def test_bad_option_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        cli.main(["--device", "GPU", "a.py", "b.py"])
    assert info.value.code == 2
    assert "invalid device" in capsys.readouterr().err


def test_claim_with_steps_needs_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_case(tmp_path, CASE_TOML.replace("steps = 4\n", ""))
    assert cli.main([str(folder)]) == 2
    assert "no [run] steps" in capsys.readouterr().err


def test_missing_torch_xla_in_process(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == "torch_xla" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    code = cli.main([str(FIXTURES / "recompile_flagged.py"), str(FIXTURES / "recompile_fixed.py")])
    assert code == 2
    captured = capsys.readouterr()
    assert captured.err.strip() == cli.MISSING_TORCH_XLA
    assert captured.out == ""


def test_missing_torch_xla_subprocess_never_imports_torch() -> None:
    code = textwrap.dedent(f"""
        import importlib.util, sys
        real = importlib.util.find_spec
        importlib.util.find_spec = lambda n, *a, **k: None if n == "torch_xla" else real(n, *a, **k)
        from perf_validation.cli import main
        status = main([{str(FIXTURES / "recompile_flagged.py")!r},
                       {str(FIXTURES / "recompile_fixed.py")!r}])
        print("torch imported:", "torch" in sys.modules)
        sys.exit(status)
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "perf_validation needs torch_xla: pip install 'flake8-xla[validate]'"]
    assert "torch imported: False" in proc.stdout


def test_missing_path_subprocess() -> None:
    proc = run_cli("does/not/exist", timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip() == \
        "perf_validation: error: no such file or directory: does/not/exist"


# -- end to end under torch_xla (slow) --------------------------------------------------
def _report(out: Path) -> dict[str, Any]:
    assert sorted(p.name for p in out.iterdir()) == sorted(report.REPORT_FILES)
    assert (out / "report.png").read_bytes().startswith(b"\x89PNG")
    return json.loads((out / "report.json").read_text())


@pytest.mark.xla
@needs_torch_xla
def test_xla_plain_pair(tmp_path: Path) -> None:
    out = tmp_path / "report"
    proc = run_cli(str(FIXTURES / "recompile_flagged.py"), str(FIXTURES / "recompile_fixed.py"),
                   "--steps", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[1/2] recompile_flagged flagged ..." in proc.stdout
    assert "[2/2] recompile_flagged fixed ..." in proc.stdout
    assert "compilations" in proc.stdout and "3 -> 1" in proc.stdout
    document = _report(out)
    assert document["schema_version"] == 1 and document["exit_status"] == 0
    pair = document["pairs"][0]
    assert pair["status"] == "compared" and pair["claims"] == []
    flagged, fixed = pair["flagged"], pair["fixed"]
    assert flagged["outcome"] == fixed["outcome"] == "ok"  # fixed ends with sys.exit(0)
    assert pair["figures"]["flagged"]["UncachedCompile"] == 3
    assert pair["figures"]["fixed"]["UncachedCompile"] == 1
    assert pair["figures"]["fixed"]["CachedCompile"] == 2
    assert pair["figures"]["fixed"]["MarkStep"] == 3  # xm.mark_step counted as barriers
    assert [s["UncachedCompile"] for s in flagged["probe"]["steps"]] == [1, 2, 3]
    assert [s["UncachedCompile"] for s in fixed["probe"]["steps"]] == [1, 1, 1]
    assert flagged["probe"]["pjrt_device"] == "CPU"
    assert flagged["probe"]["xla_check_steps"] == "3"
    assert flagged["probe"]["eager_mode_at_exit"] is False
    assert "UncachedCompile" in flagged["probe"]["counters"]  # all counters dumped
    assert flagged["probe"]["metrics"]["CompileTime"]["total"] > 0  # nanoseconds
    markdown = (out / "report.md").read_text()
    assert "| graph compilations (UncachedCompile) | 3 | 1 | 3.00x |" in markdown


@pytest.mark.xla
@needs_torch_xla
def test_xla_crash_and_hang(tmp_path: Path) -> None:
    out = tmp_path / "report"
    started = time.monotonic()
    proc = run_cli(str(FIXTURES / "crash.py"), str(FIXTURES / "hang.py"), "--timeout", "10",
                   "--out", str(out))
    elapsed = time.monotonic() - started
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert elapsed < 60  # the hanging script was killed
    assert "timeout" in proc.stdout and "fixture crash" in proc.stdout
    pair = _report(out)["pairs"][0]
    assert pair["status"] == "crashed"
    assert pair["unexpected_outcomes"] == ["flagged", "fixed"]
    crash, hang = pair["flagged"], pair["fixed"]
    assert crash["outcome"] == "error"
    assert crash["traceback_tail"][-1] == "RuntimeError: fixture crash: batch file not found"
    assert any("load_batch" in line for line in crash["traceback_tail"])
    assert crash["probe"]["step_barriers"] == 1  # figures up to the crash are kept
    assert hang["outcome"] == "timeout" and hang["exit_code"] is None
    markdown = (out / "report.md").read_text()
    assert "### flagged script: error (unexpected)" in markdown
    assert "RuntimeError: fixture crash: batch file not found" in markdown
    assert "### fixed script: timeout (unexpected)" in markdown


@pytest.mark.xla
@needs_torch_xla
def test_xla_expected_crash_and_failing_claim(tmp_path: Path) -> None:
    toml = """\
        rule = "XLA998"
        name = "expected-crash"
        [run]
        steps = 2
        timeout = 120
        [[claim]]
        metric = "outcome"
        flagged = '== "error"'
        fixed = '== "ok"'
        why = "the flagged script dies"
        [[claim]]
        metric = "UncachedCompile"
        fixed = ">= 100 * steps"
        why = "deliberately false"
    """
    folder = make_case(tmp_path, toml, flagged=(FIXTURES / "crash.py").read_text(),
                       fixed=(FIXTURES / "recompile_fixed.py").read_text(), name="XLA998")
    out = tmp_path / "report"
    proc = run_cli(str(folder), "--out", str(out))
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a claim fails, no crash
    pair = _report(out)["pairs"][0]
    assert pair["status"] == "fails" and pair["unexpected_outcomes"] == []
    assert [c["verdict"] for c in pair["claims"]] == ["holds", "fails"]
    assert pair["claims"][1]["fixed"]["value"] == 1
    assert pair["claims"][1]["fixed"]["expected"] == 200
    assert "claim UncachedCompile fails" in proc.stdout


def _kill_leftovers(marker: str) -> None:
    """Test cleanup after a failure: kill whatever still runs ``marker``."""
    for pid in _processes_running(marker):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _processes_running(marker: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline:
                pids.append(int(entry.name))
    return pids


@pytest.mark.xla
@needs_torch_xla
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
@pytest.mark.usefixtures("ctrl_c")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_xla_interrupt_keeps_previous_report_and_kills_script(tmp_path: Path, sig: int) -> None:
    out = tmp_path / "report"
    previous = {name: f"previous {name}".encode() for name in report.REPORT_FILES}
    report.write_atomically(out, previous)
    script = tmp_path / f"hang_{sig}.py"
    script.write_text((FIXTURES / "hang.py").read_text())
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "perf_validation", str(script), str(script),
                             "--out", str(out)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(3)  # the first script is starting under the probe
        children = [pid for pid in _processes_running(str(script)) if pid != proc.pid]
        assert children, "the script should be running under the probe"
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
        alive = _processes_running(str(script))
        _kill_leftovers(str(script))
    assert proc.returncode == cli.INTERRUPTED, stdout + stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == previous
    assert alive == []


@pytest.mark.xla
@needs_torch_xla
def test_xla_missing_path_runs_nothing(tmp_path: Path) -> None:
    out = tmp_path / "report"
    proc = run_cli(str(FIXTURES / "recompile_flagged.py"), str(tmp_path / "gone.py"),
                   "--out", str(out), timeout=60)
    assert proc.returncode == 2
    assert "no such file or directory" in proc.stderr
    assert "[1/" not in proc.stdout and not out.exists()


@pytest.mark.xla
@needs_torch_xla
@pytest.mark.skipif(not (CHECKS / "XLA101" / "case.toml").is_file()
                    or not (CHECKS / "XLA201" / "case.toml").is_file(),
                    reason="checks/XLA101 and checks/XLA201 not written yet")
def test_xla_checks_xla101_xla201(tmp_path: Path) -> None:
    out = tmp_path / "report"
    proc = run_cli(str(CHECKS / "XLA101"), str(CHECKS / "XLA201"), "--steps", "3",
                   "--out", str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for line in ("[1/4] XLA101 flagged ...", "[4/4] XLA201 fixed ..."):
        assert line in proc.stdout
    document = _report(out)
    assert [p["rule"] for p in document["pairs"]] == ["XLA101", "XLA201"]
    for pair in document["pairs"]:
        assert pair["status"] == "holds"
        assert pair["claims"] and all(c["verdict"] == "holds" for c in pair["claims"])
        assert pair["steps"] == 3
    xla101 = document["pairs"][0]
    assert xla101["figures"]["flagged"]["UncachedCompile"] >= 2
    assert xla101["figures"]["fixed"]["UncachedCompile"] <= 2


# -- faults, fast: a stand-in torch_xla makes the probe start in a fraction of a second --
FAKE_TORCH_XLA = {
    "torch_xla/__init__.py": '''\
"""Stand-in for torch_xla in perf_validation's fault tests: the probe's hooks, no device."""
import types

_counters = {"MarkStep": 0}
_XLAC = types.SimpleNamespace()


def sync():
    _counters["MarkStep"] += 1


def device():
    return "xla:0"
''',
    "torch_xla/core/__init__.py": "",
    "torch_xla/core/xla_model.py": "import torch_xla\n\n\ndef mark_step():\n"
                                   "    torch_xla.sync()\n",
    "torch_xla/debug/__init__.py": "",
    "torch_xla/debug/metrics.py": '''\
from torch_xla import _counters


def counter_names():
    return list(_counters)


def counter_value(name):
    return _counters.get(name)


def metric_names():
    return []


def metric_data(name):
    return None


def executed_fallback_ops():
    return []
''',
}


@pytest.fixture
def fake_xla(tmp_path: Path) -> dict[str, str]:
    """The environment of a child that imports the stand-in torch_xla."""
    site = tmp_path / "fake_site"
    for name, text in FAKE_TORCH_XLA.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return child_env(dict(os.environ, PYTHONPATH=str(site)), None, 2)


def _script(tmp_path: Path, text: str, name: str = "script.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def _sleeper(marker: str, new_session: bool = False) -> str:
    """Python source that starts a 300 s sleeper whose command line holds ``marker``."""
    return (f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', "
            f"{marker!r}], start_new_session={new_session})")


def _assert_gone(*markers: str) -> None:
    deadline = time.monotonic() + 5
    while any(_processes_running(m) for m in markers) and time.monotonic() < deadline:
        time.sleep(0.05)
    for marker in markers:
        assert _processes_running(marker) == [], f"orphan processes: {marker}"


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def test_fault_nonzero_exit(tmp_path: Path, fake_xla: dict[str, str]) -> None:
    run = run_script(_script(tmp_path, """\
        import sys
        import torch_xla
        torch_xla.sync()
        sys.exit(3)
        """), fake_xla, 30)
    assert (run.outcome, run.exit_code) == ("error", 3)
    assert run.probe is not None and run.probe["status"] == "exit"
    assert run.probe["step_barriers"] == 1  # figures up to the exit are kept
    assert run.traceback_tail == ["exit status 3"]


def test_fault_hard_exit_and_kill(tmp_path: Path, fake_xla: dict[str, str]) -> None:
    """``os._exit`` and a SIGKILL leave no probe figures: still a clear error."""
    hard = run_script(_script(tmp_path, "import os\nos._exit(7)\n", "hard.py"), fake_xla, 30)
    assert (hard.outcome, hard.exit_code, hard.probe) == ("error", 7, None)
    assert "the probe wrote no figures" in hard.traceback_tail[-1]
    killed = run_script(_script(tmp_path, "import os, signal\nos.kill(os.getpid(), "
                                          "signal.SIGKILL)\n", "killed.py"), fake_xla, 30)
    assert (killed.outcome, killed.exit_code) == ("error", -signal.SIGKILL)


def test_fault_megabytes_of_output(tmp_path: Path, fake_xla: dict[str, str]) -> None:
    """Tens of megabytes on both streams and a huge exception: bounded tails and report."""
    run = run_script(_script(tmp_path, """\
        import sys
        line = "x" * 999 + "\\n"
        for _ in range(20_000):
            sys.stdout.write(line)
        sys.stderr.write("y" * 5_000_000 + "\\n")
        sys.stdout.write("z" * 3_000_000)
        raise RuntimeError("boom " + "w" * 2_000_000)
        """), fake_xla, 60)
    assert run.outcome == "error"
    assert run.traceback_tail[-1].startswith("RuntimeError: boom")
    for tail in (run.traceback_tail, run.stdout_tail, run.stderr_tail):
        assert tail and all(len(line) <= runner.MAX_LINE_CHARS + 100 for line in tail)
    case = Case(name="loud", flagged=Path("a.py"), fixed=Path("b.py"))
    result = evaluate_pair(case, {"flagged": run, "fixed": run}, None, 60)
    assert result.status == "crashed"
    text = report.render_json([result], exit_status([result]), {"pjrt_device": "CPU"})
    assert len(text) < 500_000
    assert "RuntimeError: boom" in report.render_markdown([result], 2, {"pjrt_device": "CPU"})


@needs_proc
def test_fault_children_left_running_are_killed(tmp_path: Path,
                                               fake_xla: dict[str, str]) -> None:
    marker_group, marker_session = f"pv-group-{os.getpid()}", f"pv-session-{os.getpid()}"
    run = run_script(_script(tmp_path, f"""\
        import subprocess, sys
        {_sleeper(marker_group)}
        {_sleeper(marker_session, new_session=True)}
        print("started two sleepers")
        """), fake_xla, 30)
    assert run.outcome == "ok", run.traceback_tail
    assert any("left 2 process(es) running (1 outside its process group)" in n
               for n in run.notes), run.notes
    _assert_gone(marker_group, marker_session)


@needs_proc
def test_fault_hang_with_children_times_out_cleanly(tmp_path: Path,
                                                    fake_xla: dict[str, str]) -> None:
    marker = f"pv-hang-{os.getpid()}"
    script = _script(tmp_path, f"""\
        import multiprocessing, subprocess, sys, time

        def work():
            {_sleeper(marker + "-grandchild", new_session=True)}
            time.sleep(300)

        if __name__ == "__main__":
            {_sleeper(marker)}
            ctx = multiprocessing.get_context("fork")
            workers = [ctx.Process(target=work) for _ in range(2)]
            for w in workers:
                w.start()
            time.sleep(300)
        """, "hang_children.py")
    started = time.monotonic()
    run = run_script(script, fake_xla, 3, grace_s=1)
    assert time.monotonic() - started < 20
    assert run.outcome == "timeout" and run.exit_code is None
    _assert_gone(marker, str(script))


@needs_proc
def test_fault_multiprocessing_pool_ok(tmp_path: Path, fake_xla: dict[str, str]) -> None:
    script = _script(tmp_path, """\
        import multiprocessing
        import torch_xla

        def square(x):
            return x * x

        if __name__ == "__main__":
            with multiprocessing.get_context("spawn").Pool(2) as pool:
                print(sum(pool.map(square, range(10))))
            torch_xla.sync()
        """, "pool.py")
    run = run_script(script, fake_xla, 60)
    assert run.outcome == "ok", run.traceback_tail
    assert run.stdout_tail == ["285"]
    _assert_gone(str(script))


def _cli_env(fake_xla: dict[str, str]) -> dict[str, str]:
    return dict(fake_xla, PYTHONPATH=os.pathsep.join([str(ROOT), fake_xla["PYTHONPATH"]]))


def test_fault_other_pairs_still_run(tmp_path: Path, fake_xla: dict[str, str]) -> None:
    """A crash, a hang and a silent exit in one case; the next case still runs and holds."""
    toml = """\
        rule = "{rule}"
        name = "fault"
        [run]
        timeout = 3
        [[claim]]
        metric = "MarkStep"
        flagged = ">= 1"
        fixed = ">= 1"
        why = "both scripts reach a barrier"
    """
    make_case(tmp_path / "suite", toml.format(rule="XLA901"), name="XLA901",
              flagged="import torch_xla\ntorch_xla.sync()\nraise ValueError('bad batch')\n",
              fixed="import time\ntime.sleep(300)\n")
    make_case(tmp_path / "suite", toml.format(rule="XLA902"), name="XLA902",
              flagged="import torch_xla\ntorch_xla.sync()\n",
              fixed="import torch_xla.core.xla_model as xm\nxm.mark_step()\n")
    out = tmp_path / "report"
    proc = run_cli(str(tmp_path / "suite"), "--out", str(out), env=_cli_env(fake_xla),
                   timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr  # a script crashed
    assert "[4/4] XLA902 fixed" in proc.stdout and "Traceback" not in proc.stderr
    pairs = {p["rule"]: p for p in json.loads((out / "report.json").read_text())["pairs"]}
    assert pairs["XLA901"]["status"] == "crashed"
    assert pairs["XLA901"]["flagged"]["outcome"] == "error"
    assert pairs["XLA901"]["fixed"]["outcome"] == "timeout"
    assert pairs["XLA902"]["status"] == "holds"


@needs_proc
@pytest.mark.usefixtures("ctrl_c")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_fault_interrupt_without_previous_report_leaves_none(
        tmp_path: Path, fake_xla: dict[str, str], sig: int) -> None:
    marker = f"pv-int-{os.getpid()}-{sig}"
    script = _script(tmp_path, f"""\
        import subprocess, sys, time
        import torch_xla
        {_sleeper(marker, new_session=True)}
        torch_xla.sync()
        print("ready", flush=True)
        time.sleep(300)
        """, f"interrupted_{sig}.py")
    out = tmp_path / "report"
    proc = subprocess.Popen([sys.executable, "-m", "perf_validation", str(script), str(script),
                             "--out", str(out)], cwd=ROOT, env=_cli_env(fake_xla), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while not _processes_running(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _processes_running(marker), "the script should be running"
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
    except BaseException:
        _kill_leftovers(marker)
        _kill_leftovers(str(script))
        raise
    finally:
        proc.kill()
    assert proc.returncode == cli.INTERRUPTED, stdout + stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert not out.exists()
    _assert_gone(marker, str(script))


@pytest.mark.xla
@needs_torch_xla
@needs_proc
@pytest.mark.parametrize("hang", [False, True], ids=["returns", "hangs"])
def test_xla_launch_children(tmp_path: Path, hang: bool) -> None:
    """torch_xla.launch runs replicas in child processes: a note, and no orphan either way."""
    script = _script(tmp_path, f"""\
        import time
        import torch
        import torch_xla

        def _mp_fn(index):
            x = torch.ones(4, device=torch_xla.device())
            for _ in range(2):
                x = x * 2
                torch_xla.sync()
            print(f"replica {{index}} sum {{x.sum().item()}}", flush=True)
            if {hang}:
                time.sleep(300)

        if __name__ == "__main__":
            torch_xla.launch(_mp_fn, args=())
        """, f"launch_{'hang' if hang else 'ok'}.py")
    run = run_script(script, child_env(os.environ, None, 2), 30 if hang else 180, grace_s=2)
    if hang:
        assert run.outcome == "timeout"
    else:
        assert run.outcome == "ok", run.traceback_tail
        assert run.stdout_tail[-1] == "replica 0 sum 16.0"
        assert any("child processes" in note for note in run.probe["notes"])
    _assert_gone(str(script))
