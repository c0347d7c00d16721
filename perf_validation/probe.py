"""Run one script under torch_xla and record its metrics as JSON.

Usage::

    python -m perf_validation.probe [--explain] SCRIPT OUT.json [SCRIPT_ARGS...]

The probe imports torch_xla, turns eager mode off, ignores requests for the
persistent compilation cache, wraps the step barriers (``torch_xla.sync`` and
``xm.mark_step``; ``MpDeviceLoader``/``ParallelLoader`` and ``torch_xla.compile``
go through them) to take a snapshot of the counters after each one, then runs the
unmodified script with ``runpy.run_path(SCRIPT, run_name="__main__")``.

The JSON is written (atomically) when the script returns, raises, calls
``sys.exit``, at interpreter exit, and on SIGTERM (the parent's timeout), so even
a crashed or killed run leaves its figures.  Every figure is read from
``torch_xla.debug.metrics``; a counter or metric that was never set reads as 0.

With ``--explain`` the probe also records where every graph compilation, execution
and device-to-host transfer comes from (:mod:`perf_validation.explain_probe`): the
JSON then has an ``explain`` part, read by :mod:`perf_validation.explain`.

Exit status: the script's own (0 on success, 1 on an uncaught exception,
``sys.exit``'s code otherwise); 3 when torch_xla cannot be set up.

This module imports nothing heavy at import time: torch_xla is imported in
:func:`main`.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import runpy
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from types import FrameType, ModuleType, TracebackType
from typing import Any

__all__ = ["PROBE_VERSION", "STEP_FIELDS", "Probe", "collect_figures", "main"]

#: Version of the JSON layout written by the probe.
PROBE_VERSION = 1
#: Exit status of the probe when torch_xla itself cannot be imported or set up.
SETUP_ERROR_EXIT = 3
#: Counters and metric sample counts recorded at each step barrier.
STEP_FIELDS: tuple[str, ...] = (
    "UncachedCompile",
    "CachedCompile",
    "CompileTime",
    "ExecuteTime",
    "TransferFromDeviceTime",
    "MarkStep",
)
_STEP_METRICS = frozenset({"CompileTime", "ExecuteTime", "TransferFromDeviceTime"})
#: At most this many step snapshots are kept (the rest are counted, not stored).
MAX_STEP_SNAPSHOTS = 100_000
_TRACEBACK_LINES = 40
#: Longer exception messages and traceback lines are cut in the middle in the JSON.
MAX_TEXT_CHARS = 2000
#: While the script runs, the JSON is rewritten at a barrier at most this often
#: (seconds), so that a run killed hard (a timeout during a long compilation, which
#: holds off the SIGTERM handler) still leaves its figures so far.
PARTIAL_WRITE_S = 2.0
#: The environment variable that carries the step count.
STEPS_VARIABLE = "XLA_CHECK_STEPS"


def _clip(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]} [... {len(text) - 2 * half} characters cut ...] {text[-half:]}"


def _metric_count(met: ModuleType, name: str) -> int:
    data = met.metric_data(name)
    return int(data[0]) if data else 0


def collect_figures(met: ModuleType) -> dict[str, Any]:
    """Read every counter and metric of ``torch_xla.debug.metrics``.

    Args:
        met: the ``torch_xla.debug.metrics`` module.

    Returns:
        ``{"counters": {name: value}, "metrics": {name: {"count", "total", "max",
        "samples"}}, "fallback_ops": [names]}``.  Metric totals are in the metric's
        unit (nanoseconds for ``*Time`` metrics); ``max`` is the largest retained
        sample (torch_xla keeps a bounded window of samples), None without samples.
    """
    counters: dict[str, int] = {}
    for name in met.counter_names():
        value = met.counter_value(name)
        counters[name] = int(value) if value is not None else 0
    metrics: dict[str, dict[str, Any]] = {}
    for name in met.metric_names():
        data = met.metric_data(name)
        if not data:
            continue
        count, total, samples = data
        values = [float(v) for _, v in samples]
        metrics[name] = {
            "count": int(count),
            "total": float(total),
            "max": max(values) if values else None,
            "samples": len(values),
        }
    fallback_ops = sorted(str(op) for op in (met.executed_fallback_ops() or []))
    return {"counters": counters, "metrics": metrics, "fallback_ops": fallback_ops}


def _write_json_atomically(path: str, data: dict[str, Any]) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".probe-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class Probe:
    """State of one probed run: step snapshots and the JSON to write.

    Args:
        script: path of the script to run.
        out: path of the JSON file to write.
        script_args: arguments passed to the script as ``sys.argv[1:]``.
        explain: also record the origin of every compilation, execution and transfer.
    """

    def __init__(self, script: str, out: str, script_args: Sequence[str] = (),
                 explain: bool = False) -> None:
        self.script = os.path.abspath(script)
        self.out = out
        self.script_args = list(script_args)
        self.met: ModuleType | None = None
        self.status = "not started"
        self.exit_code: int | None = None
        self.exception: dict[str, Any] | None = None
        self.import_s: float | None = None
        self.script_s: float | None = None
        self.steps: list[dict[str, Any]] = []
        self.barriers = 0
        self.notes: list[str] = []
        self.eager_mode_at_exit: bool | None = None
        self._t0: float | None = None
        self._lock = threading.Lock()
        self._local = threading.local()
        self._xla: ModuleType | None = None
        self.explain = explain
        self.debug_file = f"{os.path.abspath(out)}.xla_debug.txt"
        self.hooks: Any = None
        self.read_steps_variable = False
        self.steps_value = os.environ.get(STEPS_VARIABLE)  # read before it is watched
        self._last_write = time.monotonic()
        self._write_s = 0.0
        self._blocks: list[dict[str, Any]] = []
        self._debug_pos = 0

    # -- hooks --------------------------------------------------------------------------
    def snapshot(self) -> None:
        """Record the step counters after a step barrier."""
        met = self.met
        if met is None:
            return
        snap: dict[str, Any] = {}
        for name in STEP_FIELDS:
            if name in _STEP_METRICS:
                snap[name] = _metric_count(met, name)
            else:
                value = met.counter_value(name)
                snap[name] = int(value) if value is not None else 0
        with self._lock:
            self.barriers += 1
            snap = {"step": self.barriers,
                    "t": round(time.perf_counter() - (self._t0 or 0.0), 6), **snap}
            if len(self.steps) < MAX_STEP_SNAPSHOTS:
                self.steps.append(snap)

    def write_partial(self) -> None:
        """Rewrite the JSON (status ``running``) when :data:`PARTIAL_WRITE_S` have passed,
        or ten times the last write's duration, whichever is longer (a long run with a
        large document spends at most a tenth of its time saving it)."""
        wait = max(PARTIAL_WRITE_S, 10 * self._write_s)
        if self.status != "running" or time.monotonic() - self._last_write < wait:
            return
        started = time.monotonic()
        try:
            self.write(final=False)
        except (OSError, ValueError) as exc:  # a full disk must not stop the script
            if not any(n.startswith("partial figures") for n in self.notes):
                self.notes.append(f"partial figures could not be saved: {exc}")
        self._write_s = time.monotonic() - started

    def watch_steps_variable(self) -> None:
        """Note whether the script reads ``XLA_CHECK_STEPS`` (``os.environ[...]``,
        ``.get``, ``os.getenv``, ``in``), so that a report does not claim a step count
        the script never used."""
        probe = self
        environ = os.environ
        base = type(environ)

        class _WatchedEnviron(base):  # type: ignore[misc, valid-type]
            def __getitem__(self, key: str) -> str:
                if key == STEPS_VARIABLE:
                    probe.read_steps_variable = True
                return base.__getitem__(self, key)

        try:
            environ.__class__ = _WatchedEnviron
        except TypeError:  # another implementation of os.environ: leave it alone
            self.notes.append("could not watch reads of XLA_CHECK_STEPS")

    def wrap_barrier(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """Wrap a step barrier so that the outermost call takes a snapshot."""
        if getattr(func, "__perf_validation_barrier__", False):
            return func

        @functools.wraps(func)
        def barrier(*args: Any, **kwargs: Any) -> Any:
            depth = getattr(self._local, "depth", 0)
            self._local.depth = depth + 1
            hooks = self.hooks if depth == 0 else None
            record = hooks.barrier_start(sys._getframe(1)) if hooks is not None else None
            try:
                return func(*args, **kwargs)
            finally:
                self._local.depth = depth
                if record is not None:
                    hooks.barrier_end(record)
                if depth == 0:
                    self.snapshot()
                    self.write_partial()

        barrier.__perf_validation_barrier__ = True  # type: ignore[attr-defined]
        return barrier

    def install(self) -> None:
        """Import torch_xla, disable what hides compilations, and wrap the step barriers.

        Raises:
            ImportError: torch_xla (or torch) cannot be imported.
        """
        os.environ.pop("XLA_PERSISTENT_CACHE_PATH", None)
        os.environ.pop("XLA_USE_EAGER_DEBUG_MODE", None)
        if self.explain:
            from .explain_probe import debug_environment

            try:
                os.unlink(self.debug_file)
            except FileNotFoundError:
                pass
            os.environ.update(debug_environment(self.debug_file))
        started = time.perf_counter()
        import torch_xla
        import torch_xla.core.xla_model as xm
        import torch_xla.debug.metrics as met

        self.import_s = time.perf_counter() - started
        self.met = met
        self._xla = torch_xla
        try:
            from torch_xla.experimental import eager_mode
        except ImportError:
            eager_mode = None
        if eager_mode is not None:
            eager_mode(False)
        elif hasattr(torch_xla._XLAC, "_set_use_eager_mode"):
            torch_xla._XLAC._set_use_eager_mode(False)
        if hasattr(torch_xla, "sync"):
            torch_xla.sync = self.wrap_barrier(torch_xla.sync)
        inner = sys.modules.get("torch_xla.torch_xla")
        if inner is not None and hasattr(inner, "sync"):
            inner.sync = self.wrap_barrier(inner.sync)  # used by torch_xla.compile/step
        xm.mark_step = self.wrap_barrier(xm.mark_step)  # noqa: XLA508 - wraps the legacy barrier
        self._block_persistent_cache()
        self._note_child_processes()
        self.watch_steps_variable()
        if self.explain:
            from .explain_probe import ExplainHooks

            hooks = ExplainHooks(self.script, self.debug_file)
            hooks.install()
            self.hooks = hooks

    def _note_child_processes(self) -> None:
        """Note when ``torch_xla.launch``/``xmp.spawn`` runs the steps in child processes.

        The figures are read in this process only, so they then miss the steps;
        the note says so in the report instead of a silent row of zeros.
        """
        try:
            from torch_xla._internal import pjrt
        except ImportError:
            return
        original = getattr(pjrt, "run_multiprocess", None)
        if original is None:
            return
        note = ("the script ran its steps in child processes (torch_xla.launch / xmp.spawn): "
                "the figures are those of the launching process only, not of its replicas")

        @functools.wraps(original)
        def run_multiprocess(*args: Any, **kwargs: Any) -> Any:
            if note not in self.notes:
                self.notes.append(note)
            return original(*args, **kwargs)

        pjrt.run_multiprocess = run_multiprocess

    def _block_persistent_cache(self) -> None:
        try:
            import torch_xla.runtime as xr
        except ImportError:
            return
        if not hasattr(xr, "initialize_cache"):
            return

        def initialize_cache(path: str, readonly: bool = False) -> None:
            note = (f"persistent compilation cache disabled: initialize_cache({path!r}) ignored "
                    "so that every graph compilation is counted")
            self.notes.append(note)
            print(f"perf_validation: {note}", file=sys.stderr, flush=True)

        xr.initialize_cache = initialize_cache

    # -- running ------------------------------------------------------------------------
    def _record_exception(self, exc: BaseException) -> None:
        tb: TracebackType | None = exc.__traceback__
        while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != self.script:
            tb = tb.tb_next
        lines = traceback.format_exception(type(exc), exc, tb or exc.__traceback__)
        text = "".join(lines)
        self.exception = {
            "type": type(exc).__name__,
            "message": _clip(str(exc)),
            "traceback": [_clip(line)
                          for line in text.rstrip("\n").splitlines()[-_TRACEBACK_LINES:]],
        }
        sys.stderr.write(text)
        sys.stderr.flush()

    def run(self) -> int:
        """Run the script and return its exit status (the JSON is written before return)."""
        sys.argv = [self.script, *self.script_args]
        script_dir = os.path.dirname(self.script)
        if sys.path and sys.path[0] in ("", os.getcwd()):
            sys.path[0] = script_dir
        else:
            sys.path.insert(0, script_dir)
        self.status = "running"
        self._t0 = time.perf_counter()
        try:
            runpy.run_path(self.script, run_name="__main__")
        except SystemExit as exc:
            code = exc.code
            if code is None:
                self.exit_code = 0
            elif isinstance(code, int):
                self.exit_code = code
            else:
                print(code, file=sys.stderr)
                self.exit_code = 1
            self.status = "exit" if self.exit_code else "ok"
        except BaseException as exc:  # noqa: BLE001 - a crashed script is a result
            self._record_exception(exc)
            self.status = "exception"
            self.exit_code = 1
        else:
            self.status = "ok"
            self.exit_code = 0
        finally:
            self.script_s = time.perf_counter() - self._t0
            if self.hooks is not None:
                self.hooks.uninstall()
            self.wait_device_ops()
            self.write()
        return self.exit_code

    def wait_device_ops(self) -> None:
        """Wait for asynchronous graph executions so that the final figures are complete.

        ``torch_xla.sync`` only schedules execution; without this wait the last
        step's execution may not be counted yet.  Failures are recorded as notes.
        """
        xla = self._xla
        if xla is None or not hasattr(xla._XLAC, "_xla_wait_device_ops"):
            return
        try:
            xla._XLAC._xla_wait_device_ops(devices=[])
        except Exception as exc:  # noqa: BLE001 - best effort after a crash
            self.notes.append(f"waiting for pending device operations failed: {exc}")

    # -- output -------------------------------------------------------------------------
    def data(self, final: bool = True) -> dict[str, Any]:
        """Return the JSON document for the run so far (``final``: see :meth:`write`)."""
        figures: dict[str, Any] = {"counters": {}, "metrics": {}, "fallback_ops": []}
        if self.met is not None:
            figures = collect_figures(self.met)
        if self._xla is not None and hasattr(self._xla._XLAC, "_get_use_eager_mode"):
            self.eager_mode_at_exit = bool(self._xla._XLAC._get_use_eager_mode())
        with self._lock:
            steps = list(self.steps)
            barriers = self.barriers
        notes = list(self.notes)
        mark_steps = figures["counters"].get("MarkStep", 0)
        if mark_steps > barriers:
            notes.append(f"{mark_steps - barriers} of {mark_steps} step barriers (MarkStep) "
                         "bypassed torch_xla.sync/mark_step; per-step snapshots miss them")
        return {
            "probe_version": PROBE_VERSION,
            "script": self.script,
            "argv": [self.script, *self.script_args],
            "status": self.status,
            "exit_code": self.exit_code,
            "exception": self.exception,
            "import_s": self.import_s,
            "script_s": self.script_s,
            "pjrt_device": os.environ.get("PJRT_DEVICE"),
            "xla_check_steps": self.steps_value,
            "read_xla_check_steps": self.read_steps_variable,
            "eager_mode_at_exit": self.eager_mode_at_exit,
            "notes": notes,
            "step_barriers": barriers,
            "steps": steps,
            "steps_truncated": barriers > len(steps),
            **figures,
            **({"explain": self._explain_data(final)} if self.hooks is not None else {}),
        }

    def _explain_data(self, final: bool) -> dict[str, Any]:
        """The ``explain`` part: the hooks' records, the parsed PT_XLA_DEBUG blocks and the
        retained CompileTime samples (seconds, in compile order).  The file is read
        incrementally: each call parses only what was written since the last one."""
        from .explain_probe import KEPT_FRAMES, is_probe_frame
        from .xla_debug import MAX_BLOCKS, read_new_blocks

        try:
            new, self._debug_pos = read_new_blocks(self.debug_file, self._debug_pos, final,
                                                   MAX_BLOCKS - len(self._blocks))
            for block in new:
                block.frames = [f for f in block.frames if not is_probe_frame(f[1])][:KEPT_FRAMES]
                self._blocks.append(block.to_dict())
        except OSError as exc:
            self.notes.append(f"cannot read the PT_XLA_DEBUG analysis: {exc}")
        data = self.hooks.data(list(self._blocks))
        compile_s: list[float] = []
        if self.met is not None:
            metric = self.met.metric_data("CompileTime")
            if metric:
                compile_s = [round(float(v) / 1e9, 6) for _, v in metric[2]]
        data["compile_seconds"] = compile_s
        return data

    def write(self, final: bool = True) -> None:
        """Write the JSON document to the output path (atomically).

        Args:
            final: False for a partial write while the script runs (explain mode then
                reads only the complete PT_XLA_DEBUG blocks written so far).
        """
        self._last_write = time.monotonic()
        _write_json_atomically(self.out, self.data(final))

    def on_sigterm(self, signum: int, frame: FrameType | None) -> None:
        """Signal handler: save what was measured so far and exit at once."""
        self.status = "terminated"
        if self._t0 is not None and self.script_s is None:
            self.script_s = time.perf_counter() - self._t0
        try:
            self.write()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(128 + signum)

    def at_exit(self) -> None:
        """atexit hook: refresh the JSON with work done by the script's own exit hooks."""
        if self.status not in ("not started", "running"):
            self.write()


def main(argv: Sequence[str] | None = None) -> int:
    """Probe entry point: ``[--explain] SCRIPT OUT.json [SCRIPT_ARGS...]``; returns the
    exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    explain = bool(args) and args[0] == "--explain"
    if explain:
        args = args[1:]
    if len(args) < 2:
        print("usage: python -m perf_validation.probe [--explain] SCRIPT OUT.json "
              "[SCRIPT_ARGS...]", file=sys.stderr)
        return 2
    probe = Probe(args[0], args[1], args[2:], explain=explain)
    signal.signal(signal.SIGTERM, probe.on_sigterm)
    try:
        probe.install()
    except BaseException as exc:  # noqa: BLE001 - reported in the JSON
        probe._record_exception(exc)
        probe.status = "setup_error"
        probe.exit_code = SETUP_ERROR_EXIT
        probe.write()
        return SETUP_ERROR_EXIT
    # Registered after torch_xla's own exit hook, so it runs before torch_xla shuts down.
    atexit.register(probe.at_exit)
    return probe.run()


if __name__ == "__main__":
    sys.exit(main())
