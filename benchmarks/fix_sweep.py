"""Run ``flake8-xla --fix --unsafe-fixes`` over copies of real files: the fixed code must parse.

Usage::

    python benchmarks/fix_sweep.py                   # 2,000 files of the crash-sweep corpus
    python benchmarks/fix_sweep.py --limit 0         # every file (stdlib + site-packages)
    python benchmarks/fix_sweep.py --command         # through the command, on copied files
    python benchmarks/fix_sweep.py PATH ...          # your own files or folders

Corpus: ``checks/*/*.py`` and ``tests/eval_files/*.py`` always, plus ``--limit``
files spread evenly over the crash sweep's corpus (the standard library and
every site-packages folder of this interpreter: torch, torch_xla,
transformers ..., see ``benchmarks/crash_sweep.py``), with ``--xla-target=all``
so that every rule, and so every fixer, is armed on every file.

Engine mode (default, ``--workers`` processes): each file is decoded as Python
decodes it, linted by the engine, and fixed by
:func:`flake8_xla.fixes.fix_until_stable` with the unsafe fixes on (the
largest set of edits), re-linting after every round. Counted per file: the
fixes applied, an exception out of the fixing code (a crash: listed), fixed
text that does not parse (listed: this must never happen), files LibCST cannot
parse (skipped by the fixer, counted) and the time.

``--command`` copies the files into a temporary folder, runs ``flake8-xla
--isolated --xla-target=all --fix --unsafe-fixes`` on it once (the user's
path: flake8's discovery, the style guide, writing back), then parses every
file it left, and runs ``--diff`` once more to check that a second fix run has
nothing left to do that the first could have done.

Exit status 0 when no fixed text fails to parse and nothing crashed; 1 otherwise.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _sibling(name: str) -> ModuleType:
    """``benchmarks/<name>.py``, loaded by path (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"fix_sweep_{name}",
                                                  Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


crash_sweep = _sibling("crash_sweep")


@dataclass
class FixOutcome:
    """One file: ``status`` is ok, unchanged, unparseable-input, unreadable, libcst,
    crash or broken (fixed text that does not parse)."""

    path: str
    status: str
    fixes: int = 0
    seconds: float = 0.0
    error: str = ""


def fix_file(path: str) -> FixOutcome:
    """Fix one file in memory (engine lint, unsafe fixes on) and check the result parses."""
    from flake8_xla.context import Options
    from flake8_xla.engine import lint_source
    from flake8_xla.fixes import Target, fix_until_stable
    from flake8_xla.sources import UnreadableSource, read_python

    try:
        source = read_python(path)
    except UnreadableSource as exc:
        return FixOutcome(path, "unreadable", error=str(exc)[:200])
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return FixOutcome(path, "unparseable-input")
    options = Options(target="all", version=(2, 9))

    def lint(text: str) -> list[Target]:
        return [Target(f.line, f.col, f.code) for f in lint_source(text, path, options)]

    started = time.perf_counter()
    try:
        result = fix_until_stable(source, lint, version=(2, 9), unsafe=True)
    except Exception as exc:  # noqa: BLE001 - this is what the sweep counts
        tail = "".join(traceback.format_exception(exc)[-3:])
        return FixOutcome(path, "crash", seconds=time.perf_counter() - started,
                          error=f"{type(exc).__name__}: {exc}"[:300] + "\n" + tail[-600:])
    seconds = time.perf_counter() - started
    if result.error and result.error.startswith("LibCST"):
        return FixOutcome(path, "libcst", seconds=seconds, error=result.error[:200])
    if result.text == source:
        return FixOutcome(path, "unchanged", seconds=seconds)
    try:
        ast.parse(result.text)
    except (SyntaxError, ValueError) as exc:
        return FixOutcome(path, "broken", result.fixed, seconds, f"{type(exc).__name__}: {exc}")
    return FixOutcome(path, "ok", result.fixed, seconds)


def corpus(paths: Sequence[Path], limit: int) -> list[Path]:
    """The files to fix: ``paths`` (or a ``limit`` sample of the crash-sweep corpus) plus
    this project's checks and eval files."""
    own = sorted((ROOT / "checks").glob("*/*.py")) + sorted((ROOT / "tests" / "eval_files")
                                                             .glob("**/*.py"))
    if paths:
        roots = [("given", p.resolve()) for p in paths]
        files, _ = crash_sweep.collect(roots)
    else:
        files, _ = crash_sweep.collect(crash_sweep.default_roots())
        files = crash_sweep.spread(files, limit)
    return list(dict.fromkeys([*own, *files]))


def run_engine(files: Sequence[Path], workers: int) -> list[FixOutcome]:
    """:func:`fix_file` on every file, in ``workers`` processes."""
    jobs = [str(p) for p in files]
    if workers <= 1:
        return [fix_file(j) for j in jobs]
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with context.Pool(workers, maxtasksperchild=500) as pool:
        return list(pool.imap_unordered(fix_file, jobs, chunksize=8))


def run_command(files: Sequence[Path]) -> dict[str, object]:
    """``flake8-xla --fix --unsafe-fixes`` on copies of ``files``; every result must parse."""
    with tempfile.TemporaryDirectory(prefix="fix-sweep-") as tmp:
        copies = []
        for i, path in enumerate(files):
            dest = Path(tmp) / f"f{i:05d}_{path.name}"
            shutil.copyfile(path, dest)
            copies.append((path, dest))
        before = {dest: dest.read_bytes() for _, dest in copies}
        cmd = [sys.executable, "-m", "flake8_xla", "--isolated", "--xla-target=all",
               "--exit-zero"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
            "PYTHONPATH", "")])}
        started = time.perf_counter()
        fix = subprocess.run([*cmd, "--fix", "--unsafe-fixes", tmp], capture_output=True,
                             text=True, env=env, check=False)
        seconds = time.perf_counter() - started
        changed = broken = 0
        broken_files = []
        for original, dest in copies:
            data = dest.read_bytes()
            if data == before[dest]:
                continue
            changed += 1
            try:
                ast.parse(data)
            except (SyntaxError, ValueError) as exc:
                broken += 1
                broken_files.append(f"{original}: {exc}")
        again = subprocess.run([*cmd, "--diff", "--unsafe-fixes", tmp], capture_output=True,
                               text=True, env=env, check=False)
        return {"files": len(copies), "changed": changed, "broken": broken,
                "broken_files": broken_files, "seconds": round(seconds, 1),
                "fix_status": fix.returncode, "fix_summary": fix.stderr.strip().splitlines()[-1:],
                "traceback": "Traceback" in fix.stderr + again.stderr,
                "second_diff_lines": len(again.stdout.splitlines()),
                "second_summary": again.stderr.strip().splitlines()[-1:]}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the sweep, print the summary; 0 when nothing is broken or crashed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, help="files or folders")
    parser.add_argument("--limit", type=int, default=2000, metavar="N",
                        help="files spread over the crash-sweep corpus (0: all; default 2000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--command", action="store_true",
                        help="run the flake8-xla command on copies instead of the engine")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the results here")
    args = parser.parse_args(argv)
    files = corpus(args.paths, args.limit)
    print(f"fix sweep: {len(files)} files ({'command' if args.command else 'engine'} mode)",
          flush=True)
    if args.command:
        report = run_command(files)
        print(json.dumps(report, indent=2))
        if args.json:
            args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
        return 1 if report["broken"] or report["traceback"] else 0
    started = time.perf_counter()
    outcomes = run_engine(files, args.workers)
    total = time.perf_counter() - started
    by_status: dict[str, int] = {}
    for o in outcomes:
        by_status[o.status] = by_status.get(o.status, 0) + 1
    fixes = sum(o.fixes for o in outcomes)
    slowest = max(outcomes, key=lambda o: o.seconds, default=None)
    print(f"  {json.dumps(by_status, sort_keys=True)}")
    print(f"  fixes applied: {fixes} in {by_status.get('ok', 0)} files; {total:.1f} s in all"
          + (f"; slowest {slowest.seconds:.2f} s ({slowest.path})" if slowest else ""))
    for o in outcomes:
        if o.status in ("broken", "crash"):
            print(f"  {o.status.upper()}: {o.path}: {o.error}")
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1),
                             encoding="utf-8")
    return 1 if by_status.get("broken") or by_status.get("crash") else 0


if __name__ == "__main__":
    raise SystemExit(main())
