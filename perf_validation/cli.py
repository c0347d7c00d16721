"""Command line: ``python -m perf_validation``.

The parent process never imports torch or torch_xla: it checks that torch_xla is
installed with :func:`importlib.util.find_spec`, runs every script in its own
subprocess through :mod:`perf_validation.probe`, and reads the figures back.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from .cases import Case, UsageError, discover
from .compare import SIDES, PairResult, evaluate_pair, exit_status
from .report import GLOSSARY, summary_table, write_report
from .runner import DEVICES, ScriptRun, child_env, run_script

__all__ = ["DEFAULT_TIMEOUT_S", "MISSING_TORCH_XLA", "build_parser", "main"]

#: Seconds allowed per script when neither --timeout nor [run] timeout is given.
DEFAULT_TIMEOUT_S = 600.0
#: The line printed when torch_xla is not installed.
MISSING_TORCH_XLA = "perf_validation needs torch_xla: pip install 'flake8-xla[validate]'"
#: Exit status after Ctrl-C.
INTERRUPTED = 130

_DESCRIPTION = """\
Measure what a flagged XLA performance hazard costs: run the flagged script and its
fixed version under torch_xla, each in its own subprocess, and compare graph
compilations, cache hits, graph executions, device-to-host transfers, step barriers
and CPU fallback ops read from torch_xla.debug.metrics.

  python -m perf_validation FLAGGED.py FIXED.py     compare one pair (no claims)
  python -m perf_validation checks/                 every checks/XLAnnn/case.toml
  python -m perf_validation checks/XLA101 checks/XLA201
  python -m perf_validation explain SCRIPT [--steps N]   explain one script's events
                                                        (see explain --help)

With case folders, each [[claim]] of case.toml is verified. The scripts run
unmodified; XLA_CHECK_STEPS is set to the step count (--steps, else [run] steps).
PJRT_DEVICE is --device, else the inherited PJRT_DEVICE, else CPU. The persistent
compilation cache and eager mode are turned off so that no compilation is hidden.
"""

_EPILOG = f"""\
figures:
{GLOSSARY}

report (in --out): report.md (tables and claim verdicts), report.json (schema_version 1:
every counter and metric, per-step snapshots), report.png (graph compilations and
executions per step, flagged vs fixed; the claimed metrics, or the key figures and their
ratios for a pair without claims). The three files are replaced together or not at all.
A script that times out keeps the figures saved at its last step barrier.

exit status:
  0  every claim holds (or, without claims, both scripts ran)
  1  a claim fails or cannot be verified
  2  usage error (missing path, bad case.toml, torch_xla missing), or a script crashed
     or timed out when the case does not expect it
"""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds: {text!r}")
    return value


def _device(text: str) -> str:
    value = text.upper()
    if value not in DEVICES:
        raise argparse.ArgumentTypeError(
            f"invalid device {text!r} (choose from {', '.join(DEVICES)})")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m perf_validation`` (``--help`` explains figures)."""
    parser = argparse.ArgumentParser(
        prog="python -m perf_validation",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="FLAGGED.py FIXED.py, or case folders (checks/XLA101), or a "
                             "folder of case folders (checks/)")
    parser.add_argument("--steps", type=_positive_int, metavar="N",
                        help="training steps per script, exported as XLA_CHECK_STEPS "
                             "(default: [run] steps of case.toml, else the script's own)")
    parser.add_argument("--device", type=_device, metavar="|".join(DEVICES),
                        help="PJRT_DEVICE for the scripts (default: inherited PJRT_DEVICE, "
                             "else CPU)")
    parser.add_argument("--timeout", type=_positive_float, metavar="S",
                        help="seconds per script before its process group is killed "
                             f"(default: [run] timeout, else {DEFAULT_TIMEOUT_S:.0f})")
    parser.add_argument("--out", type=Path, default=Path("perf_report"), metavar="DIR",
                        help="folder for report.md, report.json, report.png "
                             "(default: perf_report)")
    return parser


def _check_steps(cases: Sequence[Case], steps: int | None) -> None:
    if steps is not None:
        return
    for case in cases:
        if case.steps is None and any(c.uses_steps for c in case.claims):
            raise UsageError(f"{case.case_file}: a claim uses 'steps' but there is no "
                             "[run] steps; add it or give --steps")


def _torch_xla_installed() -> bool:
    try:
        return importlib.util.find_spec("torch_xla") is not None
    except (ImportError, ValueError):
        return False


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _sigterm_interrupts() -> signal.Handlers | Callable[..., object] | int | None:
    """Make SIGTERM behave like Ctrl-C (the running script's process group is killed and
    the previous report kept); returns the handler to restore, None if not installed."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def _progress_end(run: ScriptRun) -> str:
    text = f"{run.wall_s:.1f} s"
    if run.outcome != "ok":
        text += f" {run.outcome}"
    return text


def _problems(results: Sequence[PairResult]) -> list[str]:
    lines: list[str] = []
    for result in results:
        for claim in result.claims:
            if claim.verdict == "holds":
                continue
            parts = []
            for side, verdict in claim.sides.items():
                if verdict.holds is not True:
                    detail = f"measured {verdict.value}" if verdict.value is not None \
                        else verdict.note
                    parts.append(f"{side} `{verdict.condition}`: {detail}")
            lines.append(f"{result.case.name}: claim {claim.claim.metric} {claim.verdict}: "
                         + "; ".join(parts))
        for side in result.unexpected:
            run = result.runs[side]
            lines.append(f"{result.case.name}: {side} script {run.outcome} ({run.script})")
            if run.outcome == "timeout":
                from .report import _step_hint

                lines.append(f"    {_step_hint(result)}")
            lines.extend(f"    {line}" for line in run.traceback_tail[-6:])
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit status (0, 1, 2; 130 after Ctrl-C).

    Raises:
        SystemExit: from argparse for malformed options (status 2) and ``--help`` (0).
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["explain"]:  # a folder named explain: write ./explain
        from .explain_cli import explain_main

        return explain_main(arguments[1:])
    args = build_parser().parse_args(arguments)
    notes: list[str] = []
    try:
        cases = discover(args.paths, notes)
        _check_steps(cases, args.steps)
    except UsageError as exc:
        print(f"perf_validation: error: {exc}", file=sys.stderr)
        return 2
    if not _torch_xla_installed():
        print(MISSING_TORCH_XLA, file=sys.stderr)
        return 2
    for note in notes:
        print(f"note: {note}")
    device = args.device or os.environ.get("PJRT_DEVICE") or "CPU"
    settings = {
        "pjrt_device": device,
        "steps": args.steps,
        "timeout_s": args.timeout,
        "paths": list(args.paths),
        "out": str(args.out),
    }
    previous_sigterm = _sigterm_interrupts()
    try:
        return _run_and_report(args, cases, settings)
    finally:
        if previous_sigterm is not None:
            signal.signal(signal.SIGTERM, previous_sigterm)


def _run_and_report(args: argparse.Namespace, cases: Sequence[Case],
                    settings: dict[str, object]) -> int:
    total = 2 * len(cases)
    results: list[PairResult] = []
    try:
        for index, case in enumerate(cases):
            steps = args.steps if args.steps is not None else case.steps
            timeout = args.timeout or case.timeout or DEFAULT_TIMEOUT_S
            env = child_env(os.environ, args.device, steps)
            runs: dict[str, ScriptRun] = {}
            for offset, side in enumerate(SIDES, start=1):
                script = case.flagged if side == "flagged" else case.fixed
                print(f"[{2 * index + offset}/{total}] {case.name} {side} ...", end=" ",
                      flush=True)
                try:
                    runs[side] = run_script(script, env, timeout)
                except OSError as exc:
                    print(f"\nperf_validation: error: cannot start {sys.executable}: {exc}",
                          file=sys.stderr)
                    return 2
                print(_progress_end(runs[side]), flush=True)
            results.append(evaluate_pair(case, runs, steps, timeout))
        status = exit_status(results)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the report in {args.out} was left as it was", file=sys.stderr)
        return INTERRUPTED
    try:
        warnings = write_report(args.out, results, status, settings)
    except KeyboardInterrupt:
        print(f"\ninterrupted while writing: {args.out} holds a complete report, the previous "
              "one or this run's", file=sys.stderr)
        return INTERRUPTED
    except OSError as exc:
        print(f"perf_validation: error: cannot write the report: {exc}", file=sys.stderr)
        return 2
    print()
    print(summary_table(results))
    for warning in warnings:
        print(f"warning: {warning}")
    problems = _problems(results)
    if problems:
        print()
        print("\n".join(problems))
    outcome = {0: "every claim holds" if any(r.claims for r in results)
               else "no claims (both scripts ran)",
               1: "a claim fails", 2: "a script crashed or timed out"}[status]
    print(f"\nreport: {args.out / 'report.md'} (+ report.json, report.png); "
          f"exit status {status}: {outcome}")
    return status
