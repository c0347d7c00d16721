"""``python -m perf_validation explain SCRIPT``: where every compilation, execution and
device-to-host transfer of one run comes from, joined to the script's static findings.

The script runs once under the probe in ``--explain`` mode
(:mod:`perf_validation.explain_probe`).  This module, which never imports torch,
turns the probe's records into events and explains them:

1. :func:`build_events`: one :class:`Event` per graph compilation and execution
   (torch_xla's PT_XLA_DEBUG analysis blocks) and per device-to-host transfer (the
   probe's torch-call records), each with its step (barriers completed before it),
   cause, ``user_line`` (the script's frame nearest the event: where control left the
   script), ``library_frame`` (the innermost frame outside torch, torch_xla and the
   probe), graph hash, and for a graph compiled again what changed in the inputs of
   the step (``shape_change``).
2. :func:`join`: the linter runs in-process (:func:`flake8_xla.engine.lint_source`);
   every event gets ``explained_by`` (a finding's code, or None) by meaning, and every
   finding a ``runtime`` state: ``confirmed``, ``not-triggered`` (its line ran and cost
   nothing) or ``not-run``.
3. :func:`write_explain`: explain.md, explain.json and explain.png, replaced together.
"""

from __future__ import annotations

import ast
import bisect
import datetime as _dt
import hashlib
import io
import json
import linecache
import math
import os
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .report import write_atomically
from .runner import ScriptRun

__all__ = [
    "CAUSES",
    "EXPLAIN_FILES",
    "EXPLAIN_SCHEMA_VERSION",
    "Event",
    "Explanation",
    "FindingState",
    "build_events",
    "explain_run",
    "finding_cost_text",
    "join",
    "lint_script",
    "render_explain_json",
    "render_explain_markdown",
    "render_explain_png",
    "write_explain",
]

#: Version of the explain.json layout.
EXPLAIN_SCHEMA_VERSION = 1
#: The files of an explain report.
EXPLAIN_FILES: tuple[str, str, str] = ("explain.md", "explain.json", "explain.png")
#: Event causes, in the words of the report.
CAUSES: tuple[str, ...] = ("user barrier", "parallel-loader barrier", "host read",
                           "read inside a library", "step closure", "one-time setup")
#: Findings that explain compilations whose step inputs changed shape, by the changed
#: dimension: the batch dimension first names a ragged last batch.
SHAPE_CODES_SEQUENCE = ("XLA101", "XLA104", "XLA102")
SHAPE_CODES_BATCH = ("XLA102", "XLA101", "XLA104")
#: Findings that explain events whose user line is the finding's statement.
LINE_CODES = frozenset({"XLA201", "XLA103", "XLA104", "XLA402", "XLA503"})
#: The finding that explains a graph spanning several steps (no barrier).
GROWTH_CODE = "XLA301"
#: Library files whose host reads a finding explains wherever it is: GradScaler.step
#: reads the found-inf flags of a non-syncfree optimizer (XLA402).
LIBRARY_CODES: dict[str, str] = {
    "torch/amp/grad_scaler.py": "XLA402",
    "torch/cuda/amp/grad_scaler.py": "XLA402",
}
#: torch files that are the machinery of a tensor read (Tensor.__format__, __repr__,
#: the torch function dispatch), not the origin of one.
_TORCH_MECHANISM = ("torch/_tensor.py", "torch/_tensor_str.py", "torch/overrides.py",
                    "torch/utils/_device.py", "torch/_ops.py", "torch/functional.py")
_SITE_RE = re.compile(r"[\\/](?:site|dist)-packages[\\/]")
_PARALLEL_LOADER = ("torch_xla", "distributed", "parallel_loader.py")


# -- frames -----------------------------------------------------------------------------
def short_path(path: str, script: str | None = None) -> str:
    """A frame's file as people read it: ``transformers/masking_utils.py`` for an
    installed package, the base name for the script, else the path as given."""
    if script is not None and os.path.abspath(path) == script:
        return os.path.basename(path)
    parts = _SITE_RE.split(path)
    if len(parts) > 1:
        return parts[-1].replace("\\", "/")
    return path


def _package(path: str) -> str:
    parts = _SITE_RE.split(path)
    if len(parts) > 1:
        return parts[-1].replace("\\", "/").split("/", 1)[0]
    return ""


def _is_mechanism(path: str) -> bool:
    """Frames of torch_xla and of torch's tensor machinery: the mechanism of a read or a
    barrier, not its origin (torch's own libraries, such as torch/amp, are origins)."""
    package = _package(path)
    if package == "torch_xla":
        return True
    return package == "torch" and short_path(path) in _TORCH_MECHANISM


def _is_parallel_loader(path: str) -> bool:
    return tuple(path.replace("\\", "/").split("/")[-3:]) == _PARALLEL_LOADER


def source_line(path: str, line: int) -> str:
    """The stripped source text of ``path:line`` ("" when unknown)."""
    if line <= 0 or path.startswith("<"):
        return ""
    return linecache.getline(path, line).strip()


# -- events -----------------------------------------------------------------------------
@dataclass
class Event:
    """One graph compilation, execution or device-to-host transfer.

    Attributes:
        kind: ``"compile"``, ``"execute"`` or ``"transfer"``.
        step: step barriers completed before the event (0: the first step).
        cause: one of :data:`CAUSES`.
        user_line: line of the script's frame nearest the event, or None when the script
            is not on the stack.
        library_frame: ``file:line`` of the innermost frame outside torch, torch_xla and
            the probe (the script itself when it reads directly), or None.
        library_code: the source text of :attr:`library_frame`.
        graph_hash: torch_xla's graph hash (compilations and executions), or None.
        graph_inputs: number of graph inputs (device data), or None.
        shape_change: for a graph compiled again, the step inputs whose shape or dtype
            differ from every earlier compilation of that graph, e.g.
            ``"input_ids [8, 41] (before: [8, 37], [8, 29])"``; None otherwise.
        role: ``"step"`` (the execution a barrier is for), ``"warm-up"`` (the first
            compilation of a graph), ``"recompile"``, ``"once"`` (its call site is seen
            once), ``"deferred"`` (a step closure) or ``"extra"``.
        spans_forwards: outermost module calls of one module traced into this graph.
        explained_by: the code of the finding that explains the event, or None.
        explained_line: that finding's line.
        compile_s: seconds of this compilation (CompileTime sample), or None.
        torch_cause: torch_xla's own cause text (PT_XLA_DEBUG), "" for transfers.
        func: the torch call that caused it (``item``, ``__bool__``...), "" for barriers.
        frames: ``[function, file, line]``, innermost first.
        seq: order of the probe's records; offset: position in the PT_XLA_DEBUG file.
        inputs: the step inputs of a compilation (name -> ``[shape, dtype]``).
        trigger: ``"barrier"``, ``"loader"``, ``"read"`` or ``"closure"``.
        batch_only: the shape change is in the batch dimension only.
        grows: compiled again in the same step with more graph inputs.
    """

    kind: str
    step: int
    cause: str
    user_line: int | None = None
    library_frame: str | None = None
    library_code: str = ""
    graph_hash: str | None = None
    graph_inputs: int | None = None
    shape_change: str | None = None
    role: str = "extra"
    spans_forwards: int = 0
    explained_by: str | None = None
    explained_line: int | None = None
    compile_s: float | None = None
    torch_cause: str = ""
    func: str = ""
    frames: list[list[Any]] = field(default_factory=list)
    seq: int = 0
    offset: int = 0
    inputs: dict[str, list[Any]] = field(default_factory=dict)
    trigger: str = ""
    batch_only: bool = False
    grows: bool = False

    def site(self) -> tuple[int | None, str | None]:
        """The call site: ``(user_line, library_frame)``."""
        return (self.user_line, self.library_frame)

    def to_dict(self) -> dict[str, Any]:
        """The event as it appears in explain.json."""
        return {
            "kind": self.kind, "step": self.step, "cause": self.cause,
            "user_line": self.user_line, "library_frame": self.library_frame,
            "library_code": self.library_code, "graph_hash": self.graph_hash,
            "graph_inputs": self.graph_inputs, "shape_change": self.shape_change,
            "role": self.role, "spans_forwards": self.spans_forwards,
            "explained_by": self.explained_by, "explained_line": self.explained_line,
            "compile_s": self.compile_s, "torch_cause": self.torch_cause, "func": self.func,
            "frames": [[f[0], f[1], f[2]] for f in self.frames[:8]],
        }


@dataclass
class _Window:
    kind: str  # "barrier" or "read"
    start: int
    end: int
    record: dict[str, Any]


def _user_line(frames: Sequence[Sequence[Any]], script: str) -> int | None:
    for _, path, line in frames:
        if os.path.abspath(path) == script:
            return int(line)
    return None


def _library_frame(frames: Sequence[Sequence[Any]]) -> Sequence[Any] | None:
    for frame in frames:
        if not _is_mechanism(frame[1]):
            return frame
    return frames[0] if frames else None


def _fmt_value(value: Sequence[Any], dtype_differs: bool) -> str:
    shape, dtype = value
    text = "[" + ", ".join(str(d) for d in shape) + "]"
    return f"{dtype}{text}" if dtype_differs else text


def shape_change(current: Mapping[str, Sequence[Any]],
                 earlier: Sequence[Mapping[str, Sequence[Any]]],
                 max_before: int = 3) -> tuple[str | None, bool]:
    """What changed in the step inputs of a compilation, against earlier compilations of
    the same graph.

    Args:
        current: input name -> ``[shape, dtype]`` of this compilation's step.
        earlier: the same for every earlier compilation of that graph, oldest first.
        max_before: earlier values listed per input.

    Returns:
        ``(text, batch_only)``: e.g. ``"input_ids [8, 41] (before: [8, 37], [8, 29])"``
        (inputs joined by ``"; "``, most recent earlier value first), or None when no
        input differs from every earlier value; ``batch_only`` is True when only the
        first (batch) dimension changed.
    """
    parts: list[str] = []
    batch_only = True
    for name, value in current.items():
        seen = [e[name] for e in earlier if name in e]
        if not seen:
            continue
        norm = [[list(v[0]), v[1]] for v in seen]
        now = [list(value[0]), value[1]]
        if now in norm:
            continue
        distinct: list[list[Any]] = []
        for v in reversed(norm):
            if v not in distinct:
                distinct.append(v)
        dtype_differs = any(v[1] != now[1] for v in distinct)
        for v in distinct:
            if v[1] != now[1] or len(v[0]) != len(now[0]) or v[0][1:] != now[0][1:]:
                batch_only = False
        before = ", ".join(_fmt_value(v, dtype_differs) for v in distinct[:max_before])
        if len(distinct) > max_before:
            before += ", …"
        parts.append(f"{name} {_fmt_value(now, dtype_differs)} (before: {before})")
    if not parts:
        return None, False
    return "; ".join(parts), batch_only


def _step_inputs(forwards: Sequence[dict[str, Any]], uploads: Sequence[dict[str, Any]],
                 step: int, seq: int) -> dict[str, list[Any]]:
    """The tensors handed to each module's latest outermost call in *step* before *seq*
    (falling back to host-to-device uploads of the step when it called no module)."""
    latest: dict[str, dict[str, Any]] = {}
    for record in forwards:
        if record.get("step") == step and record.get("seq", 0) < seq:
            latest[record.get("module") or "?"] = record
    out: dict[str, list[Any]] = {}
    for module, record in latest.items():
        for name, value in (record.get("inputs") or {}).items():
            out[name if name not in out else f"{module}.{name}"] = value
    if out:
        return out
    counts: Counter[int | None] = Counter()
    for record in uploads:
        if record.get("step") == step and record.get("seq", 0) < seq:
            line = record.get("line")
            counts[line] += 1
            name = f"upload at line {line}" if line else "upload"
            if counts[line] > 1:
                name += f" #{counts[line]}"
            out[name] = [record.get("shape") or [], record.get("dtype") or ""]
    return out


def build_events(probe: Mapping[str, Any], script: str) -> tuple[list[Event], list[str]]:
    """The events of one explained run, in order, with causes, sites and shape changes.

    Args:
        probe: the probe's JSON document (with its ``explain`` part).
        script: absolute path of the script.

    Returns:
        ``(events, notes)``; notes say what could not be attributed.
    """
    notes: list[str] = []
    data = probe.get("explain") or {}
    barriers = sorted(data.get("barriers") or [], key=lambda r: r.get("seq", 0))
    reads = sorted(data.get("reads") or [], key=lambda r: r.get("seq", 0))
    forwards = data.get("forwards") or []
    uploads = data.get("uploads") or []
    blocks = sorted(data.get("blocks") or [], key=lambda b: b.get("offset", 0))

    # Read windows: [start, end) of the file while the call ran (start: the previous
    # checkpoint when the probe did not stat before the call).
    checkpoints = sorted([(int(b["start"]), b["seq"]) for b in barriers if "start" in b] +
                         [(int(b["end"]), b["seq"]) for b in barriers if "end" in b])
    checkpoint_offsets = [c[0] for c in checkpoints]
    windows: list[_Window] = []
    for record in reads:
        end = int(record.get("end") or 0)
        start = record.get("start")
        if start is None:
            index = bisect.bisect_right(checkpoint_offsets, end) - 1
            start = checkpoint_offsets[index] if index >= 0 else 0
            if windows and windows[-1].end <= end:
                start = max(start, windows[-1].end)
        windows.append(_Window("read", int(start), end, record))
    read_ends = [w.end for w in windows]
    barrier_windows = [_Window("barrier", int(b.get("start", 0)), int(b.get("end", 0)), b)
                       for b in barriers if "end" in b]
    barrier_ends = [w.end for w in barrier_windows]
    all_ends = sorted([(w.end, w.record.get("seq", 0)) for w in windows + barrier_windows])

    def window_of(offset: int) -> _Window | None:
        i = bisect.bisect_right(read_ends, offset)
        if i < len(windows) and windows[i].start <= offset < windows[i].end:
            return windows[i]
        j = bisect.bisect_right(barrier_ends, offset)
        if j < len(barrier_windows) and barrier_windows[j].start <= offset < \
                barrier_windows[j].end:
            return barrier_windows[j]
        return None

    events: list[Event] = []
    for block in blocks:
        offset = int(block.get("offset", 0))
        window = window_of(offset)
        step = bisect.bisect_right(barrier_ends, offset)
        frames = [list(f) for f in block.get("frames") or []]
        if window is not None and (block.get("frames_cut") or not frames or
                                   _user_line(frames, script) is None):
            frames = [list(f) for f in window.record.get("frames") or []] or frames
        if window is not None:
            seq = window.record.get("seq", 0)
        else:
            k = bisect.bisect_right(all_ends, (offset, math.inf)) - 1
            seq = all_ends[k][1] if k >= 0 else 0
        torch_cause = str(block.get("cause") or "")
        if window is not None and window.kind == "barrier":
            trigger = "barrier"
        elif window is not None:
            trigger = "closure" if window.record.get("in_barrier") else "read"
        elif "access tensor value" in torch_cause:
            trigger = "read"
        elif "sync" in torch_cause or "torch_xla.compile" in torch_cause:
            trigger = "barrier"
        else:
            trigger = "read"
        event = Event(kind=str(block.get("kind")), step=step, cause="", frames=frames,
                      seq=seq, offset=offset, graph_hash=block.get("graph_hash") or None,
                      graph_inputs=block.get("inputs"), torch_cause=torch_cause,
                      func=str(window.record.get("func", "")) if window and
                      window.kind == "read" else "", trigger=trigger)
        if trigger == "barrier" and ("parallel loader" in torch_cause or
                                     any(_is_parallel_loader(f[1]) for f in frames)):
            event.trigger = "loader"
        events.append(event)
    for record in reads:
        for _ in range(int(record.get("transfers") or 0)):
            trigger = "closure" if record.get("in_barrier") else "read"
            events.append(Event(kind="transfer", step=int(record.get("step") or 0), cause="",
                                frames=[list(f) for f in record.get("frames") or []],
                                seq=record.get("seq", 0), offset=int(record.get("end") or 0),
                                func=str(record.get("func") or ""), trigger=trigger))
    events.sort(key=lambda e: (e.seq, e.offset, e.kind != "compile"))
    _attribute(events, script)
    _graph_changes(events, forwards, uploads)
    _spans(events, forwards)
    _compile_seconds(events, probe, data, notes)
    _roles(events, barriers_seen=len(barriers))
    _check_counts(events, probe, notes)
    return events, notes


def _attribute(events: Iterable[Event], script: str) -> None:
    """Set user_line, library_frame and cause from each event's frames."""
    for event in events:
        event.user_line = _user_line(event.frames, script)
        frame = _library_frame(event.frames)
        if frame is not None:
            event.library_frame = f"{short_path(frame[1], script)}:{frame[2]}"
            event.library_code = source_line(frame[1], int(frame[2]))
        in_script = frame is not None and os.path.abspath(frame[1]) == script
        event.cause = {
            "barrier": "user barrier",
            "loader": "parallel-loader barrier",
            "closure": "step closure",
        }.get(event.trigger, "host read" if in_script or frame is None
              else "read inside a library")


def _graph_changes(events: Sequence[Event], forwards: Sequence[dict[str, Any]],
                   uploads: Sequence[dict[str, Any]]) -> None:
    """Mark warm-up compilations and recompilations and what changed in their inputs."""
    earlier: dict[tuple[str, int | None, str | None], list[Event]] = defaultdict(list)
    for event in events:
        if event.kind != "compile":
            continue
        event.inputs = _step_inputs(forwards, uploads, event.step, event.seq)
        key = (event.trigger, event.user_line, event.library_frame)
        before = earlier[key]
        if before:
            event.role = "recompile"
            text, batch_only = shape_change(event.inputs, [e.inputs for e in before])
            if text is None and event.inputs and len(before) == 1 and \
                    event.step == before[0].step + 1:
                # The second step's graph differs with the same inputs: state created
                # by the first step (optimizer buffers), compiled once more.
                event.role = "warm-up"
            event.shape_change = text
            event.batch_only = batch_only
            event.grows = (event.graph_inputs is not None and
                           before[-1].graph_inputs is not None and
                           event.graph_inputs > before[-1].graph_inputs and
                           before[-1].step == event.step)
        else:
            event.role = "warm-up"
        before.append(event)


def _spans(events: Sequence[Event], forwards: Sequence[dict[str, Any]]) -> None:
    """How many outermost calls of one module each graph covers (a barrier or an
    execution cuts the graph)."""
    ordered = sorted(forwards, key=lambda r: r.get("seq", 0))
    seqs = [r.get("seq", 0) for r in ordered]
    last_cut = 0
    for event in events:
        if event.kind == "transfer":
            continue
        lo = bisect.bisect_right(seqs, last_cut)
        hi = bisect.bisect_left(seqs, event.seq)
        counts = Counter(r.get("module") for r in ordered[lo:hi])
        event.spans_forwards = max(counts.values()) if counts else 0
        if event.kind == "execute":
            last_cut = event.seq


def _compile_seconds(events: Sequence[Event], probe: Mapping[str, Any],
                     data: Mapping[str, Any], notes: list[str]) -> None:
    samples = list(data.get("compile_seconds") or [])
    compiles = [e for e in events if e.kind == "compile"]
    total = int(((probe.get("metrics") or {}).get("CompileTime") or {}).get("count") or 0)
    if not compiles or not samples:
        return
    if total != len(compiles):
        notes.append(f"{total} XLA compiles timed (CompileTime) but {len(compiles)} compilations "
                     "analysed by PT_XLA_DEBUG: compile seconds are not attributed")
        return
    ordered = sorted(compiles, key=lambda e: e.offset)
    for event, seconds in zip(ordered[len(ordered) - len(samples):], samples):
        event.compile_s = float(seconds)


def _roles(events: Sequence[Event], barriers_seen: int) -> None:
    """Roles, and the cause "one-time setup" for reads before the first barrier whose
    call site never comes back."""
    calls: dict[tuple[int | None, str | None], set[int]] = defaultdict(set)
    last_step: dict[tuple[int | None, str | None], int] = {}
    for event in events:
        calls[event.site()].add(event.seq)
        last_step[event.site()] = max(last_step.get(event.site(), 0), event.step)
    for event in events:
        site = event.site()
        if event.kind == "execute" and event.trigger in ("barrier", "loader"):
            event.role = "step"
        elif event.trigger == "closure":
            event.role = "deferred"
        elif event.kind != "compile" and len(calls[site]) == 1:
            event.role = "once"
        if event.trigger == "read" and event.step == 0 and barriers_seen and \
                last_step[site] == 0:
            event.cause = "one-time setup"
            if event.role == "extra":
                event.role = "once"


def _check_counts(events: Sequence[Event], probe: Mapping[str, Any], notes: list[str]) -> None:
    counters = probe.get("counters") or {}
    compiles = sum(e.kind == "compile" for e in events)
    executions = sum(e.kind == "execute" for e in events)
    transfers = sum(e.kind == "transfer" for e in events)
    measured = {"compile": int(counters.get("UncachedCompile") or 0),
                "execute": int(counters.get("ExecuteComputation") or 0),
                "transfer": int(((probe.get("metrics") or {}).get("TransferFromDeviceTime")
                                 or {}).get("count") or 0)}
    for kind, count, label in (("compile", compiles, "graph compilations (UncachedCompile)"),
                               ("execute", executions, "graph executions (ExecuteComputation)"),
                               ("transfer", transfers,
                                "device-to-host transfers (TransferFromDeviceTime)")):
        if measured[kind] != count:
            notes.append(f"{measured[kind]} {label} counted, {count} attributed")


# -- the linter and the join ------------------------------------------------------------
@dataclass
class FindingState:
    """A static finding of the script and what the run says about it.

    Attributes:
        code, line, col, message: the linter's finding.
        runtime: ``"confirmed"``, ``"not-triggered"`` or ``"not-run"``.
        hits: how many times the finding's statement ran (line events), None if unknown.
        events: the events it explains.
    """

    code: str
    line: int
    col: int
    message: str
    runtime: str = "not-run"
    hits: int | None = None
    events: list[Event] = field(default_factory=list)

    def cost(self) -> dict[str, Any]:
        """Counts of the explained events by kind, compile seconds and steps touched."""
        kinds = Counter(e.kind for e in self.events)
        seconds = [e.compile_s for e in self.events if e.compile_s is not None]
        return {"compilations": kinds.get("compile", 0),
                "recompilations": sum(e.role == "recompile" for e in self.events),
                "executions": kinds.get("execute", 0),
                "transfers": kinds.get("transfer", 0),
                "compile_s": round(sum(seconds), 3) if seconds else None,
                "steps": sorted({e.step for e in self.events})}

    def to_dict(self) -> dict[str, Any]:
        """The finding as it appears in explain.json."""
        return {"code": self.code, "line": self.line, "col": self.col, "message": self.message,
                "runtime": self.runtime, "hits": self.hits, "cost": self.cost(),
                "shape_changes": [e.shape_change for e in self.events if e.shape_change][:5]}


def lint_script(source: str, filename: str) -> tuple[list[FindingState], str | None]:
    """Run the linter in-process on the script (every rule, as XLA code; ``# noqa``
    honoured as flake8 does).

    Returns:
        ``(findings, error)``: error is a message when the script could not be linted.
    """
    try:
        from flake8.defaults import NOQA_INLINE_REGEXP

        from flake8_xla.context import Options, parse_version
        from flake8_xla.engine import lint_source
    except ImportError as exc:
        return [], f"the linter could not be imported: {exc}"
    version = None
    try:
        import importlib.metadata

        version = parse_version(importlib.metadata.version("torch_xla"))
    except Exception:  # noqa: BLE001 - not installed, odd version: the default
        version = None
    options = Options(target="all", version=version) if version else Options(target="all")
    try:
        findings = lint_source(source, filename, options)
    except (SyntaxError, ValueError) as exc:
        return [], f"the linter could not parse {filename}: {exc}"
    lines = source.splitlines()
    out: list[FindingState] = []
    for f in findings:
        text = lines[f.line - 1] if 0 < f.line <= len(lines) else ""
        noqa = NOQA_INLINE_REGEXP.search(text)
        if noqa:
            listed = noqa.group("codes")
            if not listed or any(f.code.startswith(c.strip()) for c in
                                 re.split(r"[,\s]+", listed) if c.strip()):
                continue
        out.append(FindingState(code=f.code, line=f.line, col=f.col, message=f.message))
    return out, None


def statement_spans(source: str) -> dict[int, tuple[int, int]]:
    """line -> ``(first, last)`` line of the innermost statement holding it (for a compound
    statement, its header only).  Empty when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    spans: dict[int, tuple[int, int]] = {}
    nodes = sorted((n for n in ast.walk(tree) if isinstance(n, ast.stmt)),
                   key=lambda n: (n.lineno, -(n.end_lineno or n.lineno)))
    for node in nodes:
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(node.lineno, body[0].lineno - 1)
        else:
            last = node.end_lineno or node.lineno
        for line in range(node.lineno, last + 1):
            spans[line] = (node.lineno, last)
    return spans


def join(events: Sequence[Event], findings: Sequence[FindingState],
         lines_run: Mapping[int, int] | None, spans: Mapping[int, tuple[int, int]]) -> None:
    """Explain events by findings (``explained_by``) and set each finding's ``runtime``.

    By meaning, not only by line:

    - an event whose user line is the statement of an XLA201, XLA103, XLA104, XLA402 or
      XLA503 finding is explained by it (a host read, data-dependent control flow, a
      dynamic-shape op, a GradScaler sync, a torch.save of XLA tensors);
    - a compilation or execution whose graph spans several calls of one module, or a
      graph compiled again with more inputs in the same step, is explained by XLA301
      (no step barrier), wherever its finding is;
    - a recompilation whose step inputs changed shape is explained by XLA101, XLA104 or
      XLA102 (XLA102 first when only the batch dimension changed), wherever the finding
      is: the padding line itself is never on the stack;
    - a recompilation with unchanged inputs in a step where an XLA104 statement ran a
      graph is explained by that XLA104 finding.

    Args:
        events: from :func:`build_events` (updated in place).
        findings: from :func:`lint_script` (updated in place).
        lines_run: script line -> times it ran; None when unknown.
        spans: from :func:`statement_spans`.
    """
    def span(line: int) -> tuple[int, int]:
        return spans.get(line, (line, line))

    by_span: dict[tuple[int, int], list[FindingState]] = defaultdict(list)
    by_code: dict[str, list[FindingState]] = defaultdict(list)
    for finding in findings:
        by_span[span(finding.line)].append(finding)
        by_code[finding.code].append(finding)

    def ran(finding: FindingState) -> int | None:
        if lines_run is None:
            return None
        first, last = span(finding.line)
        return sum(lines_run.get(n, 0) for n in range(first, last + 1))

    def pick(code: str) -> FindingState | None:
        candidates = by_code.get(code) or []
        running = [f for f in candidates if (ran(f) or 0) > 0]
        return (running or candidates or [None])[0]

    def explain(event: Event, finding: FindingState | None) -> bool:
        if finding is None:
            return False
        event.explained_by, event.explained_line = finding.code, finding.line
        finding.events.append(event)
        return True

    dynamic_steps: set[int] = set()
    for event in events:
        if event.trigger != "read":
            continue
        if event.user_line is not None:
            for finding in by_span.get(span(event.user_line), []):
                if finding.code in LINE_CODES:
                    explain(event, finding)
                    if finding.code == "XLA104":
                        dynamic_steps.add(event.step)
                    break
        if event.explained_by:
            continue
        for frame in event.frames:
            code = LIBRARY_CODES.get(short_path(frame[1]))
            if code and explain(event, pick(code)):
                break
    for event in events:
        if event.explained_by or event.kind == "transfer":
            continue
        if (event.spans_forwards > 1 or event.grows) and explain(event, pick(GROWTH_CODE)):
            continue
        if event.kind != "compile" or event.role != "recompile":
            continue
        if event.shape_change:
            order = SHAPE_CODES_BATCH if event.batch_only else SHAPE_CODES_SEQUENCE
            for code in order:
                if explain(event, pick(code)):
                    break
        elif event.step in dynamic_steps:
            explain(event, pick("XLA104"))
    for finding in findings:
        finding.hits = ran(finding)
        if finding.events:
            finding.runtime = "confirmed"
        elif finding.hits:
            finding.runtime = "not-triggered"
        else:
            finding.runtime = "not-run"


# -- the whole explanation --------------------------------------------------------------
@dataclass
class Explanation:
    """Everything an explain report shows.

    Attributes:
        script: the script path as given.
        run: the probed run.
        events: attributed events.
        findings: findings with their run-time state.
        notes: what could not be attributed, linter problems, run remarks.
        settings: the command line (device, steps, timeout).
        lint_error: why the script could not be linted, or None.
    """

    script: str
    run: ScriptRun
    events: list[Event]
    findings: list[FindingState]
    notes: list[str]
    settings: dict[str, Any]
    lint_error: str | None = None
    script_sha256: str | None = None

    @property
    def probe(self) -> dict[str, Any]:
        """The probe's document ({} when it wrote none)."""
        return self.run.probe or {}

    def barriers(self) -> int:
        """Step barriers the script went through (MarkStep, else the probe's count)."""
        counters = self.probe.get("counters") or {}
        return int(counters.get("MarkStep") or self.probe.get("step_barriers") or 0)

    def unexplained(self) -> list[dict[str, Any]]:
        """Unexplained costs grouped by call site and cause, ranked by size.

        The baseline is left out: one execution per step barrier and the first
        compilation of each graph.  Each group: ``cause``, ``user_line``,
        ``library_frame``, ``library_code``, ``counts`` (by kind), ``steps``,
        ``compile_s``, ``shape_changes``, ``once`` and ``text``.
        """
        groups: dict[tuple[Any, ...], list[Event]] = defaultdict(list)
        for event in self.events:
            if event.explained_by or event.role in ("step", "warm-up"):
                continue
            groups[(event.cause, event.user_line, event.library_frame)].append(event)
        out = []
        script = os.path.basename(self.script)
        for (cause, user_line, library), members in groups.items():
            counts = Counter(e.kind for e in members)
            seconds = [e.compile_s for e in members if e.compile_s is not None]
            once = all(e.role in ("once",) for e in members) or cause == "one-time setup"
            changes = [e.shape_change for e in members if e.shape_change]
            item = {"cause": cause, "user_line": user_line, "library_frame": library,
                    "library_code": members[0].library_code,
                    "counts": {k: counts.get(k, 0) for k in ("compile", "execute", "transfer")},
                    "events": len(members), "steps": sorted({e.step for e in members}),
                    "compile_s": round(sum(seconds), 3) if seconds else None,
                    "shape_changes": changes[:3], "once": once}
            item["text"] = _group_text(item, script)
            out.append(item)
        out.sort(key=lambda g: (g["once"], g["cause"] == "step closure", -g["events"],
                                -g["counts"]["compile"]))
        return out


_KIND_WORDS = {"compile": ("recompilation", "recompilations"),
               "execute": ("execution", "executions"),
               "transfer": ("transfer", "transfers")}


def _counts_text(counts: Mapping[str, int], compile_word: str = "recompilation") -> str:
    parts = []
    for kind in ("compile", "execute", "transfer"):
        n = counts.get(kind, 0)
        if n:
            one, many = _KIND_WORDS[kind]
            if kind == "compile":
                one, many = compile_word, compile_word + "s"
            parts.append(f"{n} {one if n == 1 else many}")
    return ", ".join(parts) or "nothing"


def _group_text(group: Mapping[str, Any], script: str) -> str:
    where = group["library_frame"] or "?"
    if group["library_code"]:
        where += f" (`{group['library_code']}`)"
    user = f"{script}:{group['user_line']}" if group["user_line"] else None
    if user and not (group["library_frame"] or "").startswith(f"{script}:"):
        where += f" reached from {user}"
    counts = _counts_text(group["counts"])
    cause = group["cause"]
    if cause == "step closure":
        tail = "reads deferred to a step closure: they wait for the step's graph, no extra execution"
    elif group["once"]:
        tail = f"{cause}, once"
    elif group["shape_changes"]:
        tail = (f"{group['shape_changes'][0]}; no XLA101/XLA102/XLA104 finding explains these "
                "recompilations")
    elif cause == "read inside a library":
        tail = "read inside a library; no static rule sees this"
    elif cause == "host read":
        tail = "host read with no finding on this line"
    else:
        tail = f"{cause}; no finding explains this"
    return f"{counts}: {where}; {tail}"


# -- explain.json -----------------------------------------------------------------------
def _version(package: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def _per_step(explanation: Explanation) -> list[dict[str, Any]]:
    steps: dict[int, dict[str, Any]] = {}
    barrier_nodes = {}
    for record in (explanation.probe.get("explain") or {}).get("barriers") or []:
        barrier_nodes[int(record.get("index", 0))] = record.get("graph_nodes")
    last = max([e.step for e in explanation.events] + [explanation.barriers() - 1, 0])
    for step in range(last + 1):
        steps[step] = {"step": step, "compile": 0, "execute": 0, "transfer": 0,
                       "graph_nodes": barrier_nodes.get(step), "causes": Counter(),
                       "explained_by": Counter()}
    for event in explanation.events:
        row = steps[event.step]
        row[event.kind] += 1
        row["causes"][event.cause] += 1
        if event.explained_by:
            row["explained_by"][event.explained_by] += 1
    out = []
    for step in sorted(steps):
        row = steps[step]
        out.append({**row, "causes": dict(row["causes"]),
                    "explained_by": dict(row["explained_by"])})
    return out


def render_explain_json(explanation: Explanation) -> str:
    """explain.json: ``findings`` (code, line, runtime, cost), ``events`` (kind, step,
    user_line, library_frame, explained_by, shape_change, ...), ``unexplained``
    (ranked groups), ``steps`` (per-step counts), ``run`` and ``notes``."""
    run = explanation.run
    probe = explanation.probe
    counters = probe.get("counters") or {}
    document = {
        "schema_version": EXPLAIN_SCHEMA_VERSION,
        "tool": "perf_validation explain",
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "script": os.path.abspath(explanation.script),
        "script_sha256": explanation.script_sha256,
        "settings": explanation.settings,
        "versions": {"python": sys.version.split()[0], "torch": _version("torch"),
                     "torch_xla": _version("torch_xla"),
                     "transformers": _version("transformers")},
        "run": {"outcome": run.outcome, "exit_code": run.exit_code,
                "wall_s": round(run.wall_s, 3), "script_s": probe.get("script_s"),
                "step_barriers": explanation.barriers(),
                "xla_check_steps": probe.get("xla_check_steps"),
                "compilations": int(counters.get("UncachedCompile") or 0),
                "executions": int(counters.get("ExecuteComputation") or 0),
                "transfers": int(((probe.get("metrics") or {}).get("TransferFromDeviceTime")
                                  or {}).get("count") or 0),
                "traceback_tail": run.traceback_tail},
        "lint_error": explanation.lint_error,
        "findings": [f.to_dict() for f in explanation.findings],
        "events": [e.to_dict() for e in explanation.events],
        "unexplained": explanation.unexplained(),
        "steps": _per_step(explanation),
        "notes": explanation.notes,
    }
    return json.dumps(_json_safe(document), indent=1, allow_nan=False) + "\n"


# -- explain.md -------------------------------------------------------------------------
def _steps_text(steps: Sequence[int]) -> str:
    if not steps:
        return ""
    if len(steps) == 1:
        return f"step {steps[0]}"
    contiguous = steps == list(range(steps[0], steps[-1] + 1))
    if contiguous:
        return f"steps {steps[0]}–{steps[-1]}"
    shown = ", ".join(str(s) for s in steps[:6])
    return f"steps {shown}{', …' if len(steps) > 6 else ''}"


def finding_cost_text(finding: FindingState) -> str:
    """A finding's measured cost in words: counts, sites, compile seconds, steps and the
    last shape change, e.g. ``"7 recompilations (1.18 s compiling) at steps 1–7; last:
    input_ids [4, 10] (before: [4, 9], …)"``."""
    cost = finding.cost()
    counts = {"compile": cost["compilations"], "execute": cost["executions"],
              "transfer": cost["transfers"]}
    word = "recompilation" if any(e.role == "recompile" for e in finding.events) \
        else "compilation"
    text = _counts_text(counts, word)
    sites = Counter(e.library_frame for e in finding.events if e.kind == "compile")
    details = [f"{n} at {site}" for site, n in sites.most_common(3)] if len(sites) > 1 else []
    if cost["compile_s"] is not None:
        details.append(f"{cost['compile_s']:.2f} s compiling")
    if details:
        text += f" ({'; '.join(details)})"
    text += f" at {_steps_text(cost['steps'])}"
    changes = [e.shape_change for e in finding.events if e.shape_change]
    if changes:
        text += f"; last: {changes[-1]}"
    spans = [e.spans_forwards for e in finding.events if e.spans_forwards > 1]
    if spans:
        text += f"; one graph traced {max(spans)} forward passes (no step barrier)"
    return text


def _rule_name(code: str) -> str:
    try:
        from flake8_xla.rules import RULES_BY_CODE
    except ImportError:
        return ""
    rule = RULES_BY_CODE.get(code)
    return getattr(rule, "name", "") if rule is not None else ""


def render_explain_markdown(explanation: Explanation) -> str:
    """explain.md: the run in one line, confirmed findings with their measured cost, the
    unexplained costs ranked, the findings that cost nothing, then a per-step table."""
    run = explanation.run
    probe = explanation.probe
    script = os.path.basename(explanation.script)
    counters = probe.get("counters") or {}
    transfers = int(((probe.get("metrics") or {}).get("TransferFromDeviceTime") or {})
                    .get("count") or 0)
    steps_env = probe.get("xla_check_steps")
    device = explanation.settings.get("pjrt_device", "")
    lines = [f"# perf_validation explain: {script}", ""]
    run_text = (f"`{explanation.script}` ran once under torch_xla {_version('torch_xla')} "
                f"(PJRT_DEVICE={device}"
                + (f", XLA_CHECK_STEPS={steps_env}" if steps_env else "")
                + f"): **{run.outcome}** in {run.wall_s:.1f} s; "
                f"{explanation.barriers()} step barriers, "
                f"{int(counters.get('UncachedCompile') or 0)} graph compilations, "
                f"{int(counters.get('ExecuteComputation') or 0)} graph executions, "
                f"{transfers} device-to-host transfers.")
    lines += [run_text, ""]
    if run.outcome == "timeout":
        lines += [("The script timed out: the events below are those recorded until it was "
                   "stopped. Give fewer steps (`--steps`) or more time (`--timeout`)."), ""]
    elif run.outcome != "ok":
        lines += ["The script failed; the events below are those recorded until then:", "",
                  "```text", *(run.traceback_tail[-8:] or ["(no output)"]), "```", ""]
    confirmed = [f for f in explanation.findings if f.runtime == "confirmed"]
    lines += ["## Confirmed at run time", ""]
    if confirmed:
        for finding in confirmed:
            name = _rule_name(finding.code)
            label = f"**{finding.code}**" + (f" {name}" if name else "")
            lines.append(f"- {label}, {script}:{finding.line}: {finding_cost_text(finding)}")
    else:
        lines.append("- none" + (f" (the linter could not check the script: "
                                 f"{explanation.lint_error})" if explanation.lint_error else ""))
    lines.append("")
    groups = explanation.unexplained()
    per_step = [g for g in groups if not g["once"] and g["cause"] != "step closure"]
    other = [g for g in groups if g not in per_step]
    lines += ["## Unexplained costs, largest first", ""]
    if per_step:
        for index, group in enumerate(per_step[:15], start=1):
            lines.append(f"{index}. {group['text']} ({_steps_text(group['steps'])})")
        if len(per_step) > 15:
            lines.append(f"- … {len(per_step) - 15} more in explain.json")
    else:
        lines.append("- none: every cost beyond one execution per step and one compilation "
                     "per graph is explained by a finding")
    lines.append("")
    idle = [f for f in explanation.findings if f.runtime != "confirmed"]
    lines += ["## Findings that cost nothing in this run", ""]
    if idle:
        for finding in idle:
            how = (f"its line ran {finding.hits} time{'s' if finding.hits != 1 else ''}"
                   if finding.runtime == "not-triggered" else "its line never ran")
            lines.append(f"- {finding.code}, {script}:{finding.line}: {finding.runtime} ({how})")
    else:
        lines.append("- none")
    lines.append("")
    baseline = Counter(e.role for e in explanation.events
                       if e.role in ("step", "warm-up") and not e.explained_by)
    warm = baseline.get("warm-up", 0)
    lines += ["## Baseline and one-time costs", "",
              (f"- {baseline.get('step', 0)} executions at step barriers (the step's graph) and "
               f"{warm} warm-up compilation{'s' if warm != 1 else ''} (the first of each graph, "
               "and the second step's when only the optimizer state changed it)")]
    for group in other[:8]:
        lines.append(f"- {group['text']}")
    lines.append("")
    rows = _per_step(explanation)
    lines += ["## Per step", "", ("| step | compilations | executions | transfers | "
                                  "graph nodes | causes | explained by |"),
              "|---:|---:|---:|---:|---:|---|---|"]
    shown = rows if len(rows) <= 40 else rows[:20] + rows[-10:]
    for i, row in enumerate(shown):
        if len(rows) > 40 and i == 20:
            lines.append(f"| … | | | | | {len(rows) - 30} steps left out | |")
        causes = ", ".join(f"{c} {n}" for c, n in sorted(row["causes"].items()))
        codes = ", ".join(f"{c} {n}" for c, n in sorted(row["explained_by"].items()))
        lines.append(f"| {row['step']} | {row['compile']} | {row['execute']} | "
                     f"{row['transfer']} | {row['graph_nodes'] if row['graph_nodes'] is not None else '-'} | "
                     f"{causes} | {codes or '-'} |")
    lines.append("")
    notes = [*explanation.notes, *run.notes, *(probe.get("notes") or [])]
    if notes:
        lines += ["## Notes", "", *(f"- {n}" for n in notes), ""]
    max_frames = (probe.get("explain") or {}).get("max_frames", "?")
    lines += [("Step = step barriers completed before the event (torch_xla.sync, "
               "xm.mark_step, MpDeviceLoader). `user_line` is the script's frame nearest the "
               "event, `library_frame` the innermost frame outside torch_xla and torch's tensor "
               "machinery; both come from torch_xla's PT_XLA_DEBUG analysis (frames raised to "
               f"{max_frames}, the probe's own left out) and from the probe's torch-call "
               "records. Every event is in explain.json."), ""]
    return "\n".join(lines)


# -- explain.png ------------------------------------------------------------------------
_CAUSE_COLORS = {
    "user barrier": "#1f77b4",
    "parallel-loader barrier": "#17becf",
    "host read": "#d62728",
    "read inside a library": "#9467bd",
    "step closure": "#2ca02c",
    "one-time setup": "#7f7f7f",
}


def render_explain_png(explanation: Explanation) -> bytes:
    """explain.png: per step, stacked bars of compilations, executions and transfers
    coloured by cause (hatched where a finding explains them), and the graph size (IR
    nodes at each barrier).

    Raises:
        ImportError: matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    rows = _per_step(explanation)
    steps = [r["step"] for r in rows]
    fig = Figure(figsize=(10, 8.2), layout="constrained")
    axes = fig.subplots(4, 1, sharex=True, height_ratios=[3, 3, 3, 2])
    titles = {"compile": "graph compilations", "execute": "graph executions",
              "transfer": "device-to-host transfers"}
    used: set[str] = set()
    for ax, kind in zip(axes[:3], ("compile", "execute", "transfer")):
        bottoms = dict.fromkeys(steps, 0)
        for cause in CAUSES:
            for explained in (False, True):
                heights = Counter(e.step for e in explanation.events
                                  if e.kind == kind and e.cause == cause
                                  and bool(e.explained_by) == explained)
                if not heights:
                    continue
                used.add(cause)
                xs = sorted(heights)
                ax.bar(xs, [heights[x] for x in xs], bottom=[bottoms[x] for x in xs],
                       color=_CAUSE_COLORS[cause], hatch="//" if explained else None,
                       edgecolor="black" if explained else _CAUSE_COLORS[cause],
                       linewidth=0.4, width=0.8)
                for x in xs:
                    bottoms[x] += heights[x]
        codes: dict[int, set[str]] = defaultdict(set)
        for e in explanation.events:
            if e.kind == kind and e.explained_by:
                codes[e.step].add(e.explained_by)
        for x, found in codes.items():
            ax.text(x, bottoms[x] + 0.05, "\n".join(sorted(found)), ha="center",
                    va="bottom", fontsize=6)
        top = max(bottoms.values() or [0])
        ax.set_ylim(0, top * 1.45 + 1)
        ax.set_ylabel(titles[kind], fontsize=8)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(axis="y", alpha=0.3)
    nodes = [(r["step"], r["graph_nodes"]) for r in rows if r["graph_nodes"] is not None]
    ax = axes[3]
    if nodes:
        ax.plot([n[0] for n in nodes], [n[1] for n in nodes], marker="o", markersize=3,
                color="#444444")
        ax.set_ylim(bottom=0)
    else:
        ax.text(0.5, 0.5, "no step barrier: no graph size per step", ha="center",
                va="center", transform=ax.transAxes, fontsize=8)
    ax.set_ylabel("graph size\n(IR nodes)", fontsize=8)
    ax.set_xlabel("step (step barriers completed before the event)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    handles = [Patch(color=_CAUSE_COLORS[c], label=c) for c in CAUSES if c in used]
    handles.append(Patch(facecolor="white", edgecolor="black", hatch="//",
                         label="explained by a finding"))
    axes[0].legend(handles=handles, fontsize=7, loc="upper right", ncols=2)
    confirmed = [f"{f.code}:{f.line}" for f in explanation.findings if f.runtime == "confirmed"]
    fig.suptitle(f"{os.path.basename(explanation.script)}: {explanation.run.outcome}, "
                 f"{explanation.barriers()} step barriers; confirmed: "
                 f"{', '.join(confirmed) or 'none'}", fontsize=10, fontweight="bold")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def write_explain(directory: Path, explanation: Explanation) -> list[str]:
    """Write explain.md, explain.json and explain.png into *directory*, all or nothing.

    Returns:
        Warnings (explain.png skipped without matplotlib).

    Raises:
        OSError: the files cannot be written; the previous ones stay.
    """
    warnings: list[str] = []
    files = {"explain.md": render_explain_markdown(explanation).encode("utf-8"),
             "explain.json": render_explain_json(explanation).encode("utf-8")}
    remove: list[str] = []
    try:
        files["explain.png"] = render_explain_png(explanation)
    except ImportError:
        warnings.append("explain.png skipped: matplotlib is not installed")
        remove.append("explain.png")
    write_atomically(directory, files, remove)
    return warnings


def explain_run(script: Path, run: ScriptRun, settings: dict[str, Any]) -> Explanation:
    """Attribute the events of *run* and join them to the linter's findings on *script*.

    Raises:
        OSError: the script cannot be read.
    """
    raw = script.read_bytes()
    source = raw.decode("utf-8", errors="replace")
    absolute = os.path.abspath(script)
    probe = run.probe or {}
    notes: list[str] = []
    if not probe.get("explain"):
        events: list[Event] = []
        notes.append("the probe recorded no explain data (it did not start or was killed hard)")
    else:
        events, notes = build_events(probe, absolute)
    findings, lint_error = lint_script(source, str(script))
    data = probe.get("explain") or {}
    lines_run = {int(k): int(v) for k, v in (data.get("lines") or {}).items()} \
        if data.get("lines") else None
    join(events, findings, lines_run, statement_spans(source))
    return Explanation(script=str(script), run=run, events=events, findings=findings,
                       notes=notes, settings=settings, lint_error=lint_error,
                       script_sha256=hashlib.sha256(raw).hexdigest())
