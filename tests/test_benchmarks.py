"""The benchmark scripts' own logic: they must measure the plugin, not something else.

``benchmarks/lint_speed.py`` is run for real on a few files (its children set
flake8 up, check files under the plain/auto/all plugin sets and time imports);
its arithmetic and its consistency check are tested on made-up figures. The
figures themselves are never asserted: timing belongs in the benchmark, not in
tests.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "tests" / "eval_files"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


lint_speed = _load("lint_speed")


def _run(cpu: float, xla: int) -> object:
    return lint_speed.Run(cpu_s=cpu, wall_s=cpu, maxrss_mib=40.0, findings=xla, xla_findings=xla,
                          plugin_cpu_s=0.01)


def _series(corpus: str, figures: dict[str, tuple[float, int]]) -> dict[str, object]:
    series = {}
    for variant, (cpu, xla) in figures.items():
        s = lint_speed.Series(corpus, variant)
        s.runs.append(_run(cpu, xla))
        series[variant] = s
    return series


def test_overhead_adds_the_one_time_cost_and_takes_the_median_round() -> None:
    inter = lint_speed.Interleaved(cpu={"plain": [10.0, 10.0, 20.0], "auto": [10.1, 10.3, 20.0],
                                        "all": [12.0, 13.0, 26.0]},
                                   xla_findings={"plain": 0, "auto": 1, "all": 2},
                                   one_time_s={"auto": 0.1, "all": 0.0})
    assert inter.overheads("auto") == pytest.approx([0.02, 0.04, 0.005])
    assert inter.overhead("auto") == pytest.approx(0.02)
    assert inter.overhead("all") == pytest.approx(0.3)


def test_summarize_checks_targets_and_memory() -> None:
    inter = lint_speed.Interleaved(cpu={"plain": [10.0], "auto": [10.6], "all": [12.0]},
                                   xla_findings={"plain": 0, "auto": 1, "all": 2})
    rows = lint_speed.summarize("transformers", _series(
        "transformers", {"plain": (10.0, 0), "auto": (10.5, 1), "all": (12.0, 2)}), inter)
    by_variant = {r["variant"]: r for r in rows}
    assert by_variant["auto"]["meets_time"] is False  # +6 % against a 5 % target
    assert by_variant["all"]["meets_time"] is True  # +20 % against 30 %
    assert by_variant["auto"]["meets_memory"] is True
    assert "MISSED" in lint_speed.markdown_table(rows)


def test_summarize_refuses_a_harness_that_lost_findings() -> None:
    inter = lint_speed.Interleaved(cpu={"plain": [10.0], "auto": [10.0], "all": [12.0]},
                                   xla_findings={"plain": 0, "auto": 0, "all": 2})
    with pytest.raises(RuntimeError, match="XLA findings"):
        lint_speed.summarize("stdlib", _series(
            "stdlib", {"plain": (10.0, 0), "auto": (10.0, 1), "all": (12.0, 2)}), inter)


def test_a_small_real_run_measures_the_plugin() -> None:
    """The children work end to end: XLA findings only with the plugin, equal in both
    methods; one-time imports are timed; a plain run never loads flake8_xla's rules."""
    files = [EVAL / "XLA201_host_sync.py", ROOT / "benchmarks" / "lint_speed.py"]
    inter = lint_speed.interleave(files, rounds=1, chunk=1)
    series = lint_speed.measure("sample", files, repeats=1, log=False)
    assert inter.xla_findings["plain"] == 0 == series["plain"].runs[0].xla_findings
    assert inter.xla_findings["auto"] > 0
    assert inter.xla_findings["auto"] == series["auto"].runs[0].xla_findings
    assert all(len(inter.cpu[v]) == 1 and inter.cpu[v][0] > 0 for v in lint_speed.VARIANTS)
    lazy = series["auto"].runs[0].lazy_modules
    assert "flake8_xla.rules" in lazy and "astroid" in lazy  # the XLA file needed them
    plugin_s, lazy_s = lint_speed.import_cost(lazy, repeats=1)
    assert 0 < plugin_s and 0 < lazy_s
    rows = lint_speed.summarize("sample", series, inter)
    assert {r["variant"] for r in rows} == set(lint_speed.VARIANTS)


def test_a_variant_that_loads_astroid_is_judged_by_the_larger_figure() -> None:
    """Interleaving cannot see a cost that the plain variant in the same process
    shares, so a variant that does real work must not be judged better than its
    whole processes."""
    inter = lint_speed.Interleaved(cpu={"plain": [10.0], "auto": [10.1], "all": [12.0]},
                                   xla_findings={"plain": 0, "auto": 0, "all": 2})
    series = _series("transformers", {"plain": (10.0, 0), "auto": (10.2, 0), "all": (13.5, 2)})
    series["all"].runs[0].lazy_modules = ("astroid", "flake8_xla.rules")
    rows = {r["variant"]: r for r in lint_speed.summarize("transformers", series, inter)}
    assert rows["all"]["overhead"] == pytest.approx(0.35)
    assert rows["all"]["verdict_from"] == "whole process"
    assert rows["all"]["meets_time"] is False
    assert rows["auto"]["overhead"] == pytest.approx(0.01)  # no astroid: interleaved
    assert rows["auto"]["verdict_from"] == "interleaved"
