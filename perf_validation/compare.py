"""Figures of a run, claim verdicts and pair verdicts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .cases import Case
from .claims import Claim, ClaimError, Condition
from .runner import ScriptRun

__all__ = [
    "FIGURES",
    "ClaimVerdict",
    "PairResult",
    "SideVerdict",
    "evaluate_pair",
    "exit_status",
    "fallback_ops",
    "figures",
    "metric_value",
]

SIDES: tuple[str, str] = ("flagged", "fixed")

#: The headline figures of a run: (key, label in the field's terms).
FIGURES: tuple[tuple[str, str], ...] = (
    ("UncachedCompile", "graph compilations (UncachedCompile)"),
    ("CachedCompile", "compilation cache hits (CachedCompile)"),
    ("CompileTime", "XLA compiles timed (CompileTime samples)"),
    ("CompileTime.total_s", "compile time, s (CompileTime total)"),
    ("ExecuteTime", "graph executions (ExecuteTime samples)"),
    ("TransferFromDeviceTime", "device-to-host transfers (TransferFromDeviceTime samples)"),
    ("aten::_local_scalar_dense", "scalar reads to host, .item() etc. (aten::_local_scalar_dense)"),
    ("MarkStep", "step barriers (MarkStep: torch_xla.sync / mark_step)"),
    ("fallback_ops", "CPU fallback ops, distinct, scalar reads aside (executed_fallback_ops)"),
    ("TensorsGraphSize", "graphs traced (TensorsGraphSize samples)"),
    ("TensorsGraphSize.max", "largest graph, IR nodes (TensorsGraphSize max)"),
    ("script_s", "script time, s (after torch_xla import)"),
    ("wall_s", "wall time, s (whole subprocess)"),
)

#: Counters and metrics torch_xla may legitimately never set in a run.
KNOWN_NAMES: frozenset[str] = frozenset({
    "UncachedCompile", "CachedCompile", "MarkStep", "ExecuteComputation",
    "aten::_local_scalar_dense", "CompileTime", "ExecuteTime", "TransferFromDeviceTime",
    "TransferToDeviceTime", "TensorsGraphSize", "PersistentCacheHit", "PersistentCacheMiss",
    "DeviceDataCacheMiss", "ExecuteReplicated",
})
#: Derived names a claim may use besides counters and metrics.
DERIVED_NAMES: frozenset[str] = frozenset(
    {"fallback_ops", "step_barriers", "wall_s", "script_s", "CompileTime.total_s"}
)
_METRIC_FIELDS = ("count", "total", "max")


def _probe(run: ScriptRun) -> dict[str, Any]:
    return run.probe or {}


#: CPU fallback ops that are counted on their own row: ``aten::_local_scalar_dense`` is
#: the scalar read (``.item()``, ``if t:``), shown as "scalar reads", not as a fallback.
NOT_FALLBACKS = frozenset({"aten::_local_scalar_dense"})


def fallback_ops(probe: dict[str, Any]) -> list[str]:
    """The distinct CPU fallback ops of a probe document, without the scalar read
    (:data:`NOT_FALLBACKS`), which has its own figure."""
    return [op for op in probe.get("fallback_ops") or [] if op not in NOT_FALLBACKS]


def _lookup(run: ScriptRun, metric: str) -> tuple[int | float, bool]:
    """Value of *metric* in *run* and whether the name was recorded there."""
    probe = _probe(run)
    counters: dict[str, int] = probe.get("counters") or {}
    metrics: dict[str, dict[str, Any]] = probe.get("metrics") or {}
    if metric == "fallback_ops":
        return len(fallback_ops(probe)), True
    if metric == "step_barriers":
        return int(probe.get("step_barriers") or 0), True
    if metric == "wall_s":
        return round(run.wall_s, 3), True
    if metric == "script_s":
        return round(float(probe.get("script_s") or 0.0), 3), True
    if metric == "CompileTime.total_s":
        total = (metrics.get("CompileTime") or {}).get("total") or 0.0
        return round(total / 1e9, 3), True
    if metric in metrics:
        return int(metrics[metric].get("count") or 0), True
    if metric in counters:
        return int(counters[metric]), True
    base, _, part = metric.rpartition(".")
    if base and part in _METRIC_FIELDS:
        data = metrics.get(base)
        if data is not None:
            value = data.get(part)
            return (value if value is not None else 0), True
        return 0, False
    return 0, False


def metric_value(run: ScriptRun, metric: str) -> int | float | str:
    """The value of *metric* (as a claim names it) in *run*.

    ``outcome`` gives ``"ok"``/``"error"``/``"timeout"``; a metric name gives its
    sample count; ``NAME.count``/``NAME.total``/``NAME.max`` a metric's field (times in
    nanoseconds); other names are counters.  A name never set reads as 0.
    """
    if metric == "outcome":
        return run.outcome
    return _lookup(run, metric)[0]


def is_recorded(runs: Iterable[ScriptRun], metric: str) -> bool:
    """True when *metric* is a known name or was recorded by one of *runs*."""
    base = metric.rpartition(".")[0] if "." in metric else metric
    if metric in ("outcome", *DERIVED_NAMES) or metric in KNOWN_NAMES or base in KNOWN_NAMES:
        return True
    return any(_lookup(run, metric)[1] for run in runs)


def figures(run: ScriptRun) -> dict[str, int | float]:
    """The headline figures (:data:`FIGURES`) of *run*; never-set values are 0."""
    return {key: metric_value(run, key) for key, _ in FIGURES}  # type: ignore[misc]


@dataclass
class SideVerdict:
    """A claim's condition checked against one script.

    Attributes:
        condition: the condition as written.
        value: the measured value (None when the run could not be judged).
        expected: the expected value with ``steps`` substituted (None if unknown).
        holds: True/False, or None when unverified.
        note: why it is unverified, or a warning.
    """

    condition: str
    value: int | float | str | None
    expected: int | float | str | None
    holds: bool | None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serializable dict."""
        return {"condition": self.condition, "value": self.value, "expected": self.expected,
                "holds": self.holds, "note": self.note}


@dataclass
class ClaimVerdict:
    """A claim and its verdict: ``"holds"``, ``"fails"`` or ``"unverified"``."""

    claim: Claim
    sides: dict[str, SideVerdict]
    verdict: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serializable dict."""
        return {
            "metric": self.claim.metric,
            "why": self.claim.why,
            "verdict": self.verdict,
            "note": self.note,
            **{side: (self.sides[side].to_dict() if side in self.sides else None)
               for side in SIDES},
        }


@dataclass
class PairResult:
    """A pair's runs, claim verdicts and overall status.

    ``status`` is ``"holds"`` (every claim holds), ``"fails"`` (a claim fails or
    cannot be verified), ``"crashed"`` (a script crashed unexpectedly), ``"timeout"``
    (a script ran out of time and none crashed; its figures until then are kept) or
    ``"compared"`` (no claims, both scripts ran).
    """

    case: Case
    steps: int | None
    timeout_s: float
    runs: dict[str, ScriptRun]
    claims: list[ClaimVerdict] = field(default_factory=list)
    status: str = "compared"
    unexpected: list[str] = field(default_factory=list)


def _outcome_accepted(claims: list[Claim], side: str, outcome: str) -> bool:
    """Whether *outcome* of *side* is what the case expects (``ok`` unless claimed)."""
    conditions = [c.condition(side) for c in claims if c.metric == "outcome"]
    conditions = [c for c in conditions if c is not None]
    if not conditions:
        return outcome == "ok"
    return all(c.holds(outcome, None) for c in conditions)


def _check_side(condition: Condition, claim: Claim, run: ScriptRun, side: str,
                steps: int | None, accepted: bool) -> SideVerdict:
    try:
        expected = condition.expected_value(steps)
    except ClaimError as exc:
        return SideVerdict(condition.text, None, None, None, str(exc))
    if isinstance(expected, float) and expected.is_integer():
        expected = int(expected)
    if claim.metric != "outcome" and not accepted:
        return SideVerdict(condition.text, None, expected, None,
                           f"{side} script ended with {run.outcome}")
    value = metric_value(run, claim.metric)
    try:
        holds = condition.holds(value, steps)
    except ClaimError as exc:
        return SideVerdict(condition.text, value, expected, None, str(exc))
    return SideVerdict(condition.text, value, expected, holds)


def evaluate_pair(case: Case, runs: dict[str, ScriptRun], steps: int | None,
                  timeout_s: float) -> PairResult:
    """Check every claim of *case* against the *runs* (keys ``flagged`` and ``fixed``).

    A side whose outcome is not ``ok`` is unexpected unless an ``outcome`` claim
    accepts it; claims on other metrics of an unexpected side are ``unverified``.
    """
    result = PairResult(case=case, steps=steps, timeout_s=timeout_s, runs=runs)
    accepted = {side: _outcome_accepted(case.claims, side, runs[side].outcome) for side in SIDES}
    result.unexpected = [side for side in SIDES
                         if runs[side].outcome != "ok" and not accepted[side]]
    for claim in case.claims:
        sides: dict[str, SideVerdict] = {}
        for side in SIDES:
            condition = claim.condition(side)
            if condition is not None:
                sides[side] = _check_side(condition, claim, runs[side], side, steps,
                                          accepted[side])
        states = [v.holds for v in sides.values()]
        verdict = "fails" if False in states else "unverified" if None in states else "holds"
        note = ""
        if claim.metric != "outcome" and not is_recorded(runs.values(), claim.metric):
            note = f"{claim.metric!r} was never recorded by either script (read as 0): check the name"
        result.claims.append(ClaimVerdict(claim=claim, sides=sides, verdict=verdict, note=note))
    if result.unexpected:
        timeouts = all(runs[side].outcome == "timeout" for side in result.unexpected)
        result.status = "timeout" if timeouts else "crashed"
    elif any(c.verdict != "holds" for c in result.claims):
        result.status = "fails"
    elif result.claims:
        result.status = "holds"
    else:
        result.status = "compared"
    return result


def exit_status(results: Iterable[PairResult]) -> int:
    """0 when every claim holds, 1 when a claim fails, 2 when a script crashed or timed out
    unexpectedly (2 wins over 1)."""
    statuses = {r.status for r in results}
    if "crashed" in statuses or "timeout" in statuses:
        return 2
    if "fails" in statuses:
        return 1
    return 0
