"""``python -m perf_validation explain SCRIPT``: the command line of :mod:`perf_validation.explain`.

The parent process never imports torch: the script runs in a subprocess under the
probe in ``--explain`` mode; the linter runs here, in-process.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .explain import Explanation, explain_run, write_explain
from .runner import DEVICES, child_env, run_script

__all__ = ["DEFAULT_EXPLAIN_TIMEOUT_S", "build_explain_parser", "explain_main", "summary"]

#: Seconds allowed for the script when --timeout is not given.
DEFAULT_EXPLAIN_TIMEOUT_S = 600.0
INTERRUPTED = 130

_DESCRIPTION = """\
Run one script once under torch_xla and explain every graph compilation, graph
execution and device-to-host transfer: its step (barriers so far), its cause (user
barrier, parallel-loader barrier, host read, read inside a library, step closure,
one-time setup), the script line it came from, the innermost library frame, the
graph hash, and for a graph compiled again which step input changed shape. The
script's static findings (the flake8-xla rules, run in-process) are joined to the
events: each finding is confirmed, not-triggered (its line ran and cost nothing) or
not-run; each event is explained by a finding or reported as unexplained.

  python -m perf_validation explain train.py --steps 8
  flake8-xla --runtime perf_report/explain.json train.py    mark confirmed findings
"""

_EPILOG = """\
report (in --out): explain.md (confirmed findings with their measured cost, the
unexplained costs ranked, findings that cost nothing, a per-step table), explain.json
(findings [{code, line, runtime}], events [{kind, step, cause, user_line,
library_frame, graph_hash, shape_change, explained_by}], ranked unexplained costs,
per-step counts), explain.png (per step: compilations, executions, transfers by
cause, graph size). The three files are replaced together or not at all.

The script runs with PT_XLA_DEBUG_LEVEL=2 (torch_xla's graph analysis, frames raised
to 256), a torch function mode that records host reads, a global module forward
pre-hook that records the tensors handed to the model, and a line tracer on the
script's own frames. It reads XLA_CHECK_STEPS if it wants a step count (--steps).

exit status:
  0  the script ran and the report was written
  2  usage error (missing script, torch_xla missing), or the script crashed or timed
     out (the report is still written with what was recorded)
"""


def build_explain_parser() -> argparse.ArgumentParser:
    """The argument parser of ``python -m perf_validation explain``."""
    from .cli import _device, _positive_float, _positive_int

    parser = argparse.ArgumentParser(
        prog="python -m perf_validation explain", description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("script", type=Path, metavar="SCRIPT", help="the Python script to run")
    parser.add_argument("--steps", type=_positive_int, metavar="N",
                        help="exported as XLA_CHECK_STEPS (default: the script's own count)")
    parser.add_argument("--device", type=_device, metavar="|".join(DEVICES),
                        help="PJRT_DEVICE (default: inherited PJRT_DEVICE, else CPU)")
    parser.add_argument("--timeout", type=_positive_float, metavar="S",
                        help=f"seconds before the script is stopped "
                             f"(default: {DEFAULT_EXPLAIN_TIMEOUT_S:.0f})")
    parser.add_argument("--out", type=Path, default=Path("perf_report"), metavar="DIR",
                        help="folder for explain.md, explain.json, explain.png "
                             "(default: perf_report)")
    return parser


def summary(explanation: Explanation, limit: int = 6) -> str:
    """The terminal summary: confirmed findings, the largest unexplained costs, idle
    findings."""
    from .explain import finding_cost_text

    script = os.path.basename(explanation.script)
    lines = []
    for finding in explanation.findings:
        if finding.runtime == "confirmed":
            lines.append(f"confirmed  {finding.code} {script}:{finding.line}: "
                         f"{finding_cost_text(finding)}")
    groups = [g for g in explanation.unexplained()
              if not g["once"] and g["cause"] != "step closure"]
    for group in groups[:limit]:
        lines.append(f"unexplained  {group['text']}")
    for finding in explanation.findings:
        if finding.runtime != "confirmed":
            lines.append(f"{finding.runtime}  {finding.code} {script}:{finding.line}")
    if not lines:
        lines.append("no findings and no unexplained costs")
    return "\n".join(lines)


def explain_main(argv: Sequence[str]) -> int:
    """Run ``explain``; returns the exit status (0, 2; 130 after Ctrl-C).

    Raises:
        SystemExit: from argparse for malformed options (status 2) and ``--help`` (0).
    """
    from .cli import MISSING_TORCH_XLA, _sigterm_interrupts, _torch_xla_installed

    args = build_explain_parser().parse_args(list(argv))
    script: Path = args.script
    if not script.is_file():
        print(f"perf_validation: error: no such script: {script}", file=sys.stderr)
        return 2
    if not _torch_xla_installed():
        print(MISSING_TORCH_XLA, file=sys.stderr)
        return 2
    timeout = args.timeout or DEFAULT_EXPLAIN_TIMEOUT_S
    device = args.device or os.environ.get("PJRT_DEVICE") or "CPU"
    settings = {"pjrt_device": device, "steps": args.steps, "timeout_s": timeout,
                "script": str(script), "out": str(args.out)}
    env = child_env(os.environ, args.device, args.steps)
    previous = _sigterm_interrupts()
    try:
        print(f"explain {script} ...", end=" ", flush=True)
        try:
            run = run_script(script, env, timeout, explain=True)
        except OSError as exc:
            print(f"\nperf_validation: error: cannot start {sys.executable}: {exc}",
                  file=sys.stderr)
            return 2
        print(f"{run.wall_s:.1f} s {run.outcome}", flush=True)
        explanation = explain_run(script, run, settings)
        try:
            warnings = write_explain(args.out, explanation)
        except OSError as exc:
            print(f"perf_validation: error: cannot write the report: {exc}", file=sys.stderr)
            return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted: {args.out} was left as it was", file=sys.stderr)
        return INTERRUPTED
    finally:
        if previous is not None:
            import signal

            signal.signal(signal.SIGTERM, previous)
    print()
    print(summary(explanation))
    for warning in warnings:
        print(f"warning: {warning}")
    if run.outcome == "timeout":
        print(f"\nthe script timed out after {timeout:g} s; the report holds what was recorded "
              "until then: give fewer --steps or a longer --timeout")
    elif run.outcome != "ok":
        print("\nthe script failed:")
        print("\n".join(f"    {line}" for line in run.traceback_tail[-6:]))
    print(f"\nreport: {args.out / 'explain.md'} (+ explain.json, explain.png)")
    return 0 if run.outcome == "ok" else 2
