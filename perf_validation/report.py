"""The report: report.md, report.json, report.png, and the terminal summary.

The three files are written all-or-nothing: each goes to a temporary file in the
output folder first, then all are moved into place with :func:`os.replace` while
SIGINT/SIGTERM are held back, so an interrupted run leaves the previous report
(or none), never a half-written or mixed one.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.metadata
import io
import json
import math
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .compare import FIGURES, SIDES, ClaimVerdict, PairResult, SideVerdict, fallback_ops, figures
from .runner import ScriptRun

__all__ = [
    "GLOSSARY",
    "REPORT_FILES",
    "SCHEMA_VERSION",
    "render_json",
    "render_markdown",
    "render_png",
    "summary_table",
    "write_atomically",
    "write_report",
]

#: Version of the report.json layout.
SCHEMA_VERSION = 1
#: The files of a report, in the output folder.
REPORT_FILES: tuple[str, str, str] = ("report.md", "report.json", "report.png")

#: What the figures mean, in the terms of the field (shown by --help and in report.md).
GLOSSARY = """\
graph compilations   UncachedCompile: traced graphs that missed the in-memory compilation
                     cache and were compiled by XLA. A new input shape (dynamic padding,
                     a changing batch) or new Python control flow means a new graph. The
                     persistent compilation cache and eager mode are switched off so
                     that none is hidden.
cache hits           CachedCompile: traced graphs found already compiled.
compile time         CompileTime: number of XLA compiles and their total time
                     (nanoseconds in report.json, seconds in tables).
graph executions     ExecuteTime samples: compiled graphs run on the device. More than
                     one per step means something cut the step's graph.
device-to-host       TransferFromDeviceTime samples: copies of device tensors to the
transfers            host; each blocks until the pending graph has executed.
scalar reads         aten::_local_scalar_dense: .item(), int(t), bool(t), `if t:`, i.e.
                     one device-to-host transfer of a single value.
step barriers        MarkStep: torch_xla.sync() / xm.mark_step() (MpDeviceLoader and
                     torch_xla.compile call them): the point where the traced graph is
                     cut, compiled (or found in the cache) and executed. Counters are
                     also recorded after every barrier (per-step snapshots in
                     report.json; executions are asynchronous, so a snapshot may lag by
                     one execution).
CPU fallback ops     met.executed_fallback_ops(): operations without an XLA lowering
                     that ran on the CPU, moving data to the host and back.
largest graph        TensorsGraphSize max: IR nodes in the largest graph traced.
wall time            seconds for the whole subprocess (interpreter start and torch_xla
                     import included); script time excludes the import.
ratio                flagged / fixed."""

_VERDICT_TEXT = {
    "holds": "every claim holds",
    "fails": "a claim fails",
    "crashed": "a script crashed",
    "timeout": "a script timed out",
    "compared": "compared (no claims)",
}


def _step_hint(result: PairResult) -> str:
    """What to do about a timed-out script: fewer steps or more time."""
    steps = result.steps
    fewer = f"--steps {max(1, steps // 2)}" if steps and steps > 1 else "fewer --steps"
    return (f"it was stopped after {_fmt(result.timeout_s)} s; the figures are those recorded "
            f"until then. Give {fewer}, or more time with --timeout "
            f"{_fmt(2 * result.timeout_s)}")


def _steps_line(result: PairResult) -> str:
    """The step count as the scripts saw it: XLA_CHECK_STEPS only where a script read it."""
    if result.steps is None:
        return "- steps: each script's own count (no XLA_CHECK_STEPS given)"
    readers = {side: (result.runs[side].probe or {}).get("read_xla_check_steps")
               for side in SIDES}
    if all(readers.values()):
        return f"- steps: {result.steps} (XLA_CHECK_STEPS, read by both scripts)"
    ignored = [side for side, read in readers.items() if read is False]
    if ignored:
        return (f"- steps: XLA_CHECK_STEPS={result.steps} was set, but the "
                f"{' and '.join(ignored)} script{'s' if len(ignored) > 1 else ''} never read "
                "it (own step count; see the step barriers)")
    return f"- steps: XLA_CHECK_STEPS={result.steps} (not known whether the scripts read it)"


# -- formatting -------------------------------------------------------------------------
def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.2f}" if abs(value) < 100 else f"{value:.1f}"
    return str(value)


def _ratio(flagged: object, fixed: object) -> float | None:
    """flagged / fixed; None when undefined (both zero, or not numbers); inf for n/0."""
    if isinstance(flagged, bool) or isinstance(fixed, bool):
        return None
    if not isinstance(flagged, (int, float)) or not isinstance(fixed, (int, float)):
        return None
    if fixed == 0:
        return None if flagged == 0 else math.inf
    return flagged / fixed


def _fmt_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    if math.isinf(ratio):
        return "inf"
    return f"{ratio:.2f}x"


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _label(result: PairResult) -> str:
    case = result.case
    return f"{case.name} {case.title}".strip() if case.title and case.title != case.name \
        else case.name


def _claim_count(result: PairResult) -> str:
    if not result.claims:
        return "-"
    held = sum(c.verdict == "holds" for c in result.claims)
    return f"{held}/{len(result.claims)} hold"


def _outcomes(result: PairResult) -> str:
    return "/".join(result.runs[side].outcome for side in SIDES)


# -- terminal summary -------------------------------------------------------------------
_SUMMARY_COLUMNS: tuple[tuple[str, str], ...] = (
    ("UncachedCompile", "compilations"),
    ("CachedCompile", "cache hits"),
    ("ExecuteTime", "executions"),
    ("TransferFromDeviceTime", "D2H transfers"),
    ("fallback_ops", "CPU fallbacks"),
    ("wall_s", "wall s"),
)


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


def summary_table(results: Sequence[PairResult]) -> str:
    """A plain-text table, one row per pair: outcomes, headline figures as
    ``flagged -> fixed``, claims held and the pair's verdict."""
    header = ["pair", "outcome", *(title for _, title in _SUMMARY_COLUMNS), "claims", "verdict"]
    rows = [header]
    for result in results:
        figs = {side: figures(result.runs[side]) for side in SIDES}
        rows.append([
            result.case.name,
            _outcomes(result),
            *(f"{_fmt(figs['flagged'][key])} -> {_fmt(figs['fixed'][key])}"
              for key, _ in _SUMMARY_COLUMNS),
            _claim_count(result),
            result.status,
        ])
    return "\n".join(_table(rows))


# -- report.json ------------------------------------------------------------------------
def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _pair_json(result: PairResult) -> dict[str, Any]:
    case = result.case
    figs = {side: figures(result.runs[side]) for side in SIDES}
    return {
        "name": case.name,
        "rule": case.rule,
        "title": case.title,
        "summary": case.summary,
        "case_file": str(case.case_file) if case.case_file else None,
        "steps": result.steps,
        "timeout_s": result.timeout_s,
        "status": result.status,
        "unexpected_outcomes": list(result.unexpected),
        "figures": figs,
        "ratios": {key: _ratio(figs["flagged"][key], figs["fixed"][key])
                   for key, _ in FIGURES},
        "claims": [c.to_dict() for c in result.claims],
        **{side: result.runs[side].to_dict() for side in SIDES},
    }


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def render_json(results: Sequence[PairResult], exit_status: int,
                settings: Mapping[str, Any]) -> str:
    """report.json: ``{"schema_version": 1, "pairs": [...]}`` with every raw figure.

    Each pair holds its headline ``figures``, ``ratios`` (flagged/fixed, "inf" when
    fixed is 0), claim verdicts, and for each script the outcome, wall time
    (seconds), traceback tail and the probe's raw document: all counters, all metrics
    (``count``, ``total`` in nanoseconds for times, ``max``), CPU fallback ops and the
    per-step snapshots.
    """
    document = {
        "schema_version": SCHEMA_VERSION,
        "tool": "perf_validation",
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "exit_status": exit_status,
        "settings": dict(settings),
        "versions": {"python": sys.version.split()[0], "torch": _version("torch"),
                     "torch_xla": _version("torch_xla")},
        "glossary": GLOSSARY,
        "pairs": [_pair_json(r) for r in results],
    }
    return json.dumps(_json_safe(document), indent=1, allow_nan=False) + "\n"


# -- report.md --------------------------------------------------------------------------
def _side_cell(verdict: SideVerdict | None) -> str:
    if verdict is None:
        return "-"
    mark = {True: "yes", False: "NO", None: "?"}[verdict.holds]
    expected = ""
    if verdict.expected is not None and not isinstance(verdict.expected, str) \
            and _fmt(verdict.expected) not in verdict.condition:
        expected = f" (= {_fmt(verdict.expected)})"
    cell = f"`{verdict.condition}`{expected}: measured **{_fmt(verdict.value)}** {mark}"
    if verdict.note:
        cell += f" ({verdict.note})"
    return _md(cell)


def _claims_md(claims: Sequence[ClaimVerdict]) -> list[str]:
    lines = ["| metric | flagged | fixed | verdict | why |", "|---|---|---|---|---|"]
    for c in claims:
        verdict = c.verdict.upper() if c.verdict != "holds" else c.verdict
        why = c.claim.why + (f" NOTE: {c.note}" if c.note else "")
        lines.append(f"| `{_md(c.claim.metric)}` | {_side_cell(c.sides.get('flagged'))} | "
                     f"{_side_cell(c.sides.get('fixed'))} | {verdict} | {_md(why)} |")
    return lines


def _run_line(side: str, run: ScriptRun) -> str:
    probe = run.probe or {}
    extra = ""
    if probe.get("script_s") is not None:
        extra = f", script {probe['script_s']:.2f} s after a {probe.get('import_s') or 0:.1f} s import"
    code = f", exit status {run.exit_code}" if run.exit_code not in (0, None) else ""
    barriers = int((probe.get("counters") or {}).get("MarkStep") or probe.get("step_barriers")
                   or 0)
    extra += f"; {barriers} step barrier{'s' if barriers != 1 else ''}"
    if probe.get("status") == "running":
        extra += " (figures saved at the last barrier before it was stopped)"
    return f"- {side}: `{run.script}`: **{run.outcome}**{code} in {run.wall_s:.1f} s{extra}"


def _pair_md(result: PairResult) -> list[str]:
    case = result.case
    lines = [f"## {_label(result)}: {result.status}", ""]
    if case.summary:
        lines += [case.summary, ""]
    lines += [_run_line(side, result.runs[side]) for side in SIDES]
    lines.append(_steps_line(result))
    lines.append(f"- timeout: {_fmt(result.timeout_s)} s per script")
    if case.case_file:
        lines.append(f"- case: `{case.case_file}`")
    lines += ["", "| metric | flagged | fixed | ratio |", "|---|---:|---:|---:|"]
    figs = {side: figures(result.runs[side]) for side in SIDES}
    for key, label in FIGURES:
        flagged, fixed = figs["flagged"][key], figs["fixed"][key]
        lines.append(f"| {_md(label)} | {_fmt(flagged)} | {_fmt(fixed)} | "
                     f"{_fmt_ratio(_ratio(flagged, fixed))} |")
    lines.append("")
    for side in SIDES:
        ops = fallback_ops(result.runs[side].probe or {})
        if ops:
            lines.append(f"CPU fallback ops in {side}: {', '.join(f'`{op}`' for op in ops)}")
    if any(fallback_ops(result.runs[side].probe or {}) for side in SIDES):
        lines.append("")
    if result.claims:
        lines += ["### Claims", "", *_claims_md(result.claims), ""]
    for side in SIDES:
        run = result.runs[side]
        probe = run.probe or {}
        for note in [*run.notes, *(probe.get("notes") or [])]:
            lines += [f"Note ({side}): {note}", ""]
        if probe.get("eager_mode_at_exit"):
            note = f"Note ({side}): the script turned eager mode on; compilations may be hidden."
            lines += [note, ""]
        if run.outcome != "ok":
            expected = "unexpected" if side in result.unexpected else "expected by the case"
            lines += [f"### {side} script: {run.outcome} ({expected})", ""]
            if run.outcome == "timeout":
                lines += [f"The {side} script timed out: {_step_hint(result)}.", ""]
            tail = run.traceback_tail or run.stderr_tail[-8:]
            if tail or run.outcome != "timeout":
                lines += ["```text", *(tail or ["(no output)"]), "```", ""]
    return lines


def render_markdown(results: Sequence[PairResult], exit_status: int,
                    settings: Mapping[str, Any]) -> str:
    """report.md: a summary table, then per pair a figure table (metric, flagged, fixed,
    ratio), the verdict of each claim, and the traceback tail of any failed script."""
    claims = any(r.claims for r in results)
    verdict = {0: "every claim holds" if claims else "no claims (every script ran)",
               1: "a claim fails",
               2: "a script crashed or timed out unexpectedly"}.get(exit_status, "")
    created = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    device = settings.get("pjrt_device", "")
    intro = (f"Created {created}; PJRT_DEVICE={device}; torch_xla {_version('torch_xla')}. "
             f"Exit status {exit_status}: {verdict}.")
    header = ("| pair | outcome (flagged/fixed) | graph compilations | graph executions | "
              "device-to-host transfers | claims | verdict |")
    lines = ["# perf_validation report", "", intro, "", header, "|---|---|---:|---:|---:|---|---|"]
    for result in results:
        figs = {side: figures(result.runs[side]) for side in SIDES}
        cells = [f"{_fmt(figs['flagged'][k])} -> {_fmt(figs['fixed'][k])}"
                 for k in ("UncachedCompile", "ExecuteTime", "TransferFromDeviceTime")]
        lines.append(f"| {_md(_label(result))} | {_outcomes(result)} | {' | '.join(cells)} | "
                     f"{_claim_count(result)} | {result.status} |")
    lines.append("")
    for result in results:
        lines += _pair_md(result)
    lines += ["## What the figures mean", "", "```text", GLOSSARY, "```", ""]
    return "\n".join(lines)


# -- report.png -------------------------------------------------------------------------
def per_step(run: ScriptRun, key: str) -> tuple[list[str], list[int]]:
    """*key* (``UncachedCompile`` or ``ExecuteTime``) per step: the difference between
    consecutive step-barrier snapshots, then what came after the last barrier.

    Returns:
        ``(labels, values)``: labels ``"1"``, ``"2"``... (the step a barrier closed) and
        ``"exit"`` for the rest of the run (the final read, or the whole run of a script
        without barriers); ``"exit"`` is left out when nothing happened there.
    """
    probe = run.probe or {}
    labels: list[str] = []
    values: list[int] = []
    previous = 0
    for snap in probe.get("steps") or []:
        value = int(snap.get(key) or 0)
        labels.append(str(snap["step"]))
        values.append(value - previous)
        previous = value
    if key in (probe.get("metrics") or {}):
        final = int(probe["metrics"][key].get("count") or 0)
    else:
        final = int((probe.get("counters") or {}).get(key) or 0)
    if final - previous or not labels:
        labels.append("exit")
        values.append(max(0, final - previous))
    return labels, values


# Claim metrics in the words of the report's table, for the plot's bar labels.
PLAIN_METRIC_NAMES = {
    "UncachedCompile": "graph compilations",
    "CompileTime": "compilations (timed)",
    "CachedCompile": "cache hits",
    "ExecuteTime": "graph executions",
    "ExecuteComputation": "graph executions",
    "TransferFromDeviceTime": "device-to-host transfers",
    "TransferToDeviceTime": "host-to-device transfers",
    "aten::_local_scalar_dense": "scalar reads (.item())",
    "TensorsGraphSize.max": "largest graph (nodes)",
    "MarkStep": "step barriers",
    "aten::nonzero": "nonzero CPU fallbacks",
    "xla::_to_copy": "dtype casts",
    "wall_s": "wall time (s)",
}
#: The figures of the right panel for a pair without claims.
KEY_FIGURES = ("UncachedCompile", "ExecuteTime", "TransferFromDeviceTime", "wall_s")


def _bars(ax: Any, rows: Sequence[tuple[str, float, float]], title: str) -> None:
    """Horizontal bars, flagged (red) over fixed (green), scaled per row, with the values
    and the flagged/fixed ratio."""
    rows = list(rows)[:4]
    for i, (metric, flagged, fixed) in enumerate(rows):
        y = len(rows) - 1 - i
        top = max(flagged, fixed) or 1.0
        ax.barh(y + 0.2, flagged / top, height=0.38, color="#d62728")
        ax.barh(y - 0.2, fixed / top, height=0.38, color="#2ca02c")
        ax.text(flagged / top + 0.03, y + 0.2, f"{_fmt(flagged)}", va="center", fontsize=8)
        ax.text(fixed / top + 0.03, y - 0.2, f"{_fmt(fixed)}", va="center", fontsize=8)
        ax.text(1.62, y, _fmt_ratio(_ratio(flagged, fixed)), va="center", ha="right",
                fontsize=8, fontweight="bold")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([PLAIN_METRIC_NAMES.get(m, m.replace("aten::", ""))[:26]
                        for m, _, _ in reversed(rows)], fontsize=8)
    ax.set_xticks([])
    ax.set_xlim(0, 1.65)
    ax.set_title(title, fontsize=9)
    for spine in ("top", "right", "bottom"):
        ax.spines[spine].set_visible(False)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _claim_bars(ax: Any, result: PairResult) -> None:
    """Right panel: each numeric claim metric, flagged vs fixed, scaled per metric (the
    rule's own evidence); for a pair without claims, the key figures and their ratios."""
    rows = []
    for verdict in result.claims:
        flagged, fixed = verdict.sides.get("flagged"), verdict.sides.get("fixed")
        values = [getattr(flagged, "value", None), getattr(fixed, "value", None)]
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            rows.append((verdict.claim.metric, float(values[0]), float(values[1])))
    if rows:
        _bars(ax, rows, "claims: flagged, fixed, ratio")
        return
    if result.claims:  # outcome claims only
        ax.set_axis_off()
        ax.text(0.5, 0.5, f"outcome\n{_outcomes(result)}", ha="center", va="center",
                fontsize=10)
        return
    figs = {side: figures(result.runs[side]) for side in SIDES}
    _bars(ax, [(key, float(figs["flagged"][key]), float(figs["fixed"][key]))
               for key in KEY_FIGURES], "no claims: key figures, ratio")


def render_png(results: Sequence[PairResult]) -> bytes:
    """report.png: one panel per pair. Left, graph compilations per step (between step
    barriers; "exit" is what came after the last one), flagged (red) and fixed (green),
    with the totals of compilations and executions in the legend; right, the metrics of
    the pair's claims, or for a pair without claims its key figures with their ratios.

    Raises:
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    count = max(1, len(results))
    ncols = min(2, count)
    nrows = math.ceil(count / ncols)
    fig = Figure(figsize=(7.6 * ncols, 3.6 * nrows), layout="constrained")
    cells = fig.subfigures(nrows, ncols, squeeze=False)
    colors = {"flagged": "#d62728", "fixed": "#2ca02c"}
    for index, cell in enumerate(cells.flat):
        if index >= len(results):
            continue
        result = results[index]
        ax, bars = cell.subplots(1, 2, width_ratios=[3, 2])
        # Executions are asynchronous (a snapshot may miss the step's own), so only their
        # totals are shown; compilations happen in the barrier, per step exactly.
        series = {side: {key: per_step(result.runs[side], key)
                         for key in ("UncachedCompile", "ExecuteTime")} for side in SIDES}
        labels: list[str] = []
        for side in SIDES:
            for key in series[side]:
                for label in series[side][key][0]:
                    if label not in labels:
                        labels.append(label)
        labels.sort(key=lambda text: (text == "exit", int(text) if text.isdigit() else 0))
        position = {label: i for i, label in enumerate(labels)}
        top = 1
        for offset, side in ((-0.2, "flagged"), (0.2, "fixed")):
            run = result.runs[side]
            state = "" if run.outcome == "ok" else f", {run.outcome}"
            if run.probe is not None and not run.probe.get("step_barriers"):
                state += ", no step barrier"
            xs, ys = series[side]["UncachedCompile"]
            executions = sum(series[side]["ExecuteTime"][1])
            ax.bar([position[x] + offset for x in xs], ys, width=0.4, color=colors[side],
                   alpha=0.85, label=f"{side}: {_plural(sum(ys), 'compilation')}, "
                                     f"{_plural(executions, 'execution')}{state}")
            top = max(top, *ys)
        cell.suptitle(f"{_label(result)}: {result.status}", fontsize=11, fontweight="bold")
        ax.set_xticks(range(len(labels)))
        step_labels = labels if len(labels) <= 24 else \
            [label if i % max(1, len(labels) // 12) == 0 or label == "exit" else ""
             for i, label in enumerate(labels)]
        ax.set_xticklabels(step_labels, fontsize=7)
        ax.set_xlabel("step (closed by a step barrier; exit: after the last barrier)")
        ax.set_ylabel("graph compilations per step")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylim(0, top * 1.5 + 0.5)  # headroom for the legend
        ax.grid(axis="y", alpha=0.3)
        ax.legend(loc="upper left", fontsize=7)
        _claim_bars(bars, result)
    if not results:
        cells.flat[0].text(0.5, 0.5, "no pairs", ha="center", va="center")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


# -- writing ----------------------------------------------------------------------------
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold SIGINT/SIGTERM back while the block runs, then deliver them.

    In the main thread the handlers are swapped for ones that only record the
    signal; once the block ends the previous handlers are restored and recorded
    signals raised again (Ctrl-C then raises KeyboardInterrupt after the block).
    Elsewhere (signals cannot be handled there) the block simply runs.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def record(signum: int, frame: object) -> None:
        received.append(signum)

    previous = {sig: signal.signal(sig, record) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            if handler is not None:  # None: set outside Python, cannot be restored
                signal.signal(sig, handler)
        for sig in dict.fromkeys(received):
            signal.raise_signal(sig)


def write_atomically(directory: Path, files: Mapping[str, bytes],
                     remove: Iterable[str] = ()) -> None:
    """Write a set of files into *directory* all-or-nothing.

    Every file is first written (and fsynced) to a temporary file in *directory*; only
    then are all moved into place with :func:`os.replace`, with SIGINT and SIGTERM held
    back, and the names in *remove* deleted.  On any error, or Ctrl-C before the
    moves, the temporary files are deleted and the previous files stay untouched.

    Args:
        directory: created if missing.
        files: file name -> content.
        remove: names to delete as part of the same update (stale files).

    Raises:
        OSError: a file cannot be written (nothing has been replaced then).
    """
    directory.mkdir(parents=True, exist_ok=True)
    temps: dict[str, str] = {}
    try:
        for name, content in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
            temps[name] = tmp
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600 files
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
                fh.flush()
                os.fsync(fh.fileno())
        with _signals_held():
            for name in list(temps):
                os.replace(temps[name], directory / name)
                del temps[name]
            for name in remove:
                with contextlib.suppress(FileNotFoundError):
                    (directory / name).unlink()
        with contextlib.suppress(OSError):
            dir_fd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
    finally:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def write_report(directory: Path, results: Sequence[PairResult], exit_status: int,
                 settings: Mapping[str, Any]) -> list[str]:
    """Render and write report.md, report.json and report.png into *directory*.

    Returns:
        Warnings (e.g. report.png skipped because matplotlib is missing).

    Raises:
        OSError: the files cannot be written; the previous report is left as it was.
    """
    warnings: list[str] = []
    files: dict[str, bytes] = {
        "report.md": render_markdown(results, exit_status, settings).encode("utf-8"),
        "report.json": render_json(results, exit_status, settings).encode("utf-8"),
    }
    remove: list[str] = []
    try:
        files["report.png"] = render_png(results)
    except ImportError:
        warnings.append("report.png skipped: matplotlib is not installed "
                        "(pip install 'flake8-xla[validate]')")
        remove.append("report.png")
    write_atomically(directory, files, remove)
    return warnings
