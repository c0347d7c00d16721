"""Run flake8-xla over tens of thousands of real files and report every failure.

Usage::

    python benchmarks/crash_sweep.py                  # stdlib + site-packages, 2 workers
    python benchmarks/crash_sweep.py --limit 2000     # a quicker, evenly spread sample
    python benchmarks/crash_sweep.py --verify-gates   # also: gated == ungated findings
    python benchmarks/crash_sweep.py PATH ...         # your own files or folders

What runs. Each file goes through exactly what flake8 hands the plugin:
flake8's own ``FileProcessor`` reads it (tokenize's encoding detection,
latin-1 fallback, BOM stripped) and builds the ast tree, then
``flake8_xla.plugin.Plugin(tree, lines, filename).run()`` is consumed with
``--xla-target=all`` (every file treated as XLA code, every rule armed). The
engine is put in strict mode (``FLAKE8_XLA_STRICT=1``): a rule exception that
the engine would swallow in normal use is raised and counted here. In a real
flake8 run such an exception would either vanish (normal mode) or, outside the
rule loop, abort flake8 with "There was a critical error".

Measured per file: the plugin's time (flake8's parse excluded). A file over
``--slow`` seconds (default 2) is listed; one over ``--hard-timeout`` seconds
(default 60) is interrupted and listed as a timeout. Files flake8 itself cannot
parse (E999/E902) are counted, not linted.

Corpus (default): the standard library of the running Python, every
site-packages folder of this interpreter (the venv: torch, torch_xla,
transformers ...), and the base interpreter's site-packages when it is a
different folder, de-duplicated by real path and sorted. ``--limit N`` takes N
files spread evenly over that list.

``--verify-gates`` lints each file a second time with the engine's gates off
(``gates=False``, still strict and timed): every rule then runs on every file,
which is the harder crash and speed test (a gate that skips a file also skips
a rule's bugs on it), and every file where the findings differ is listed: a
gate that hides a finding is a bug in flake8_xla/engine.py. Slow files are
judged on the gated run (what users get); the slowest ungated files are listed
for information.

The flake8_xla package is copied to a temporary folder that the workers
import from, so edits made to the working tree during a sweep cannot mix two
versions of the code into one result.

Exit status 0 when there is no internal error, no timeout, no slow file and
no gate mismatch; 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import shutil
import signal
import site
import sys
import sysconfig
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

SLOW_S = 2.0
HARD_TIMEOUT_S = 60.0


class _HardTimeout(BaseException):
    """Raised by SIGALRM inside a worker; a BaseException so no ``except Exception`` eats it."""


@dataclass
class FileResult:
    """The outcome of one file."""

    path: str
    status: str  # "ok", "error", "timeout", "unparseable", "unreadable"
    seconds: float = 0.0
    findings: int = 0
    error: str = ""
    where: str = ""
    ungated_seconds: float = 0.0
    traceback_tail: list[str] = field(default_factory=list)
    gate_mismatch: str = ""


# ----------------------------------------------------------------------------- corpus
def default_roots() -> list[tuple[str, Path]]:
    """(label, folder) of the stdlib, this interpreter's site-packages and the base one's."""
    roots: list[tuple[str, Path]] = [("stdlib", Path(sysconfig.get_paths()["stdlib"]))]
    seen: set[Path] = set()
    for folder in [*site.getsitepackages(), sysconfig.get_paths()["purelib"],
                   sysconfig.get_paths()["platlib"]]:
        path = Path(folder)
        if path.is_dir() and path.resolve() not in seen:
            seen.add(path.resolve())
            roots.append(("site-packages", path))
    base = Path(sysconfig.get_paths(vars={"base": sys.base_prefix,
                                          "platbase": sys.base_exec_prefix})["purelib"])
    if base.is_dir() and base.resolve() not in seen:
        roots.append(("base site-packages", base))
    return roots


def collect(roots: Sequence[tuple[str, Path]]) -> tuple[list[Path], Counter[str]]:
    """Every ``.py`` file under ``roots`` (stdlib without its site-packages), by real path."""
    files: dict[Path, Path] = {}
    per_root: Counter[str] = Counter()
    for label, root in roots:
        if root.is_file():
            candidates: Iterable[Path] = [root]
        else:
            candidates = root.rglob("*.py")
        for path in candidates:
            if label == "stdlib" and {"site-packages", "dist-packages"} & set(
                    path.relative_to(root).parts):
                continue
            try:
                real = path.resolve()
            except OSError:
                continue
            if real not in files and path.is_file():
                files[real] = path
                per_root[label] += 1
    return sorted(files.values()), per_root


def spread(files: Sequence[Path], limit: int) -> list[Path]:
    """``limit`` files taken at even intervals (all of them when limit is 0)."""
    if not limit or limit >= len(files):
        return list(files)
    step = len(files) / limit
    return [files[int(i * step)] for i in range(limit)]


# ----------------------------------------------------------------------------- worker
_OPTIONS: Any = None


def _init_worker(hard_timeout: float) -> None:
    """Worker set-up: strict engine, flake8 options, the plugin configured for ``all``."""
    global _OPTIONS
    os.environ["FLAKE8_XLA_STRICT"] = "1"
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C

    def _alarm(signum: int, frame: object) -> None:
        raise _HardTimeout

    signal.signal(signal.SIGALRM, _alarm)
    from flake8_xla.plugin import Plugin

    Plugin.parse_options(argparse.Namespace(xla_target="all", xla_version=None))
    _OPTIONS = argparse.Namespace(hang_closing=False, indent_size=4, max_line_length=79,
                                  max_doc_length=None, verbose=0, disable_noqa=False,
                                  stdin_display_name="stdin", hard_timeout=hard_timeout)


def _where(tb: traceback.StackSummary) -> str:
    """The innermost frame in flake8_xla (else the innermost frame)."""
    ours = [f for f in tb if "flake8_xla" in f.filename]
    frame = (ours or list(tb))[-1] if tb else None
    if frame is None:
        return ""
    return f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"


def check_file(job: tuple[str, bool]) -> FileResult:
    """Lint one file through the plugin, timed, in strict mode (runs in a worker)."""
    path, verify = job
    from flake8.processor import FileProcessor

    from flake8_xla.engine import lint_tree
    from flake8_xla.plugin import Plugin

    try:
        processor = FileProcessor(path, _OPTIONS)
    except (OSError, UnicodeError, ValueError) as exc:
        return FileResult(path, "unreadable", error=f"{type(exc).__name__}: {exc}")
    try:
        tree = processor.build_ast()
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        return FileResult(path, "unparseable", error=f"{type(exc).__name__}")
    lines = processor.lines
    started = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, _OPTIONS.hard_timeout)
    try:
        results = list(Plugin(tree, lines, path).run())
        seconds = time.perf_counter() - started
        signal.setitimer(signal.ITIMER_REAL, 0)
    except _HardTimeout:
        return FileResult(path, "timeout", seconds=time.perf_counter() - started,
                          error=f"over {_OPTIONS.hard_timeout:g} s")
    except Exception as exc:  # noqa: BLE001 - this is what the sweep counts
        signal.setitimer(signal.ITIMER_REAL, 0)
        tb = traceback.extract_tb(exc.__traceback__)
        return FileResult(path, "error", seconds=time.perf_counter() - started,
                          error=f"{type(exc).__name__}: {str(exc)[:300]}", where=_where(tb),
                          traceback_tail=traceback.format_list(tb[-6:]))
    result = FileResult(path, "ok", seconds=seconds, findings=len(results))
    if verify:
        from flake8_xla.context import Options

        source = "".join(lines)
        options = Options(target="all", version=Plugin.options.version)
        gated = lint_tree(tree, source, path, options, gates=True, strict=True)
        started = time.perf_counter()
        signal.setitimer(signal.ITIMER_REAL, _OPTIONS.hard_timeout)
        try:
            ungated = lint_tree(tree, source, path, options, gates=False, strict=True)
            signal.setitimer(signal.ITIMER_REAL, 0)
        except _HardTimeout:
            return FileResult(path, "timeout", seconds=time.perf_counter() - started,
                              error=f"ungated run over {_OPTIONS.hard_timeout:g} s")
        except Exception as exc:  # noqa: BLE001 - a rule's bug the gates had kept away
            signal.setitimer(signal.ITIMER_REAL, 0)
            tb = traceback.extract_tb(exc.__traceback__)
            return FileResult(path, "error", seconds=seconds,
                              error=f"{type(exc).__name__}: {str(exc)[:300]} (ungated run)",
                              where=_where(tb), traceback_tail=traceback.format_list(tb[-6:]))
        result.ungated_seconds = time.perf_counter() - started
        if gated != ungated:
            missing = sorted(set(ungated) - set(gated))
            result.gate_mismatch = "; ".join(f"{f.line}:{f.col} {f.code}" for f in missing[:5])
    return result



# ----------------------------------------------------------------------------- driver
def sweep(files: Sequence[Path], workers: int, verify: bool, hard_timeout: float,
          progress: bool = True) -> Iterator[FileResult]:
    """Yield one FileResult per file, linted by ``workers`` processes."""
    jobs = [(str(p), verify) for p in files]
    if workers <= 1:
        _init_worker(hard_timeout)
        for job in jobs:
            yield check_file(job)
        return
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with context.Pool(workers, initializer=_init_worker, initargs=(hard_timeout,),
                      maxtasksperchild=2000) as pool:
        results = pool.imap_unordered(check_file, jobs, chunksize=8)
        for done, result in enumerate(results, start=1):
            if progress and done % 1000 == 0:
                print(f"  ... {done}/{len(jobs)} files", flush=True)
            yield result


def main(argv: Sequence[str] | None = None) -> int:
    """Run the sweep and print its report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path,
                        help="files or folders (default: stdlib + site-packages)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--limit", type=int, default=0, metavar="N",
                        help="lint N files spread evenly over the corpus (default: all)")
    parser.add_argument("--slow", type=float, default=SLOW_S, metavar="S",
                        help=f"list files whose plugin time exceeds S seconds ({SLOW_S:g})")
    parser.add_argument("--hard-timeout", type=float, default=HARD_TIMEOUT_S, metavar="S",
                        help=f"interrupt a file after S seconds ({HARD_TIMEOUT_S:g})")
    parser.add_argument("--verify-gates", action="store_true",
                        help="also compare gated and ungated findings (slower)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every result as JSON")
    args = parser.parse_args(argv)

    roots = [("given", p) for p in args.paths] if args.paths else default_roots()
    all_files, per_root = collect(roots)
    files = spread(all_files, args.limit)
    print(f"Python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs, {args.workers} workers")
    for label, root in roots:
        print(f"  {label}: {root}")
    print(f"files: {len(files)} of {len(all_files)} ("
          + ", ".join(f"{label} {n}" for label, n in per_root.items()) + ")")
    started = time.perf_counter()
    results: list[FileResult] = []
    with tempfile.TemporaryDirectory(prefix="crash_sweep-pkg-") as snapshot:
        import flake8_xla

        shutil.copytree(Path(flake8_xla.__file__).resolve().parent,
                        Path(snapshot) / "flake8_xla",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for name in [m for m in sys.modules if m == "flake8_xla" or
                     m.startswith("flake8_xla.")]:
            del sys.modules[name]
        sys.path.insert(0, snapshot)
        try:
            results.extend(sweep(files, args.workers, args.verify_gates, args.hard_timeout))
        except KeyboardInterrupt:
            print(f"interrupted after {len(results)} files", file=sys.stderr)
            return 130
        finally:
            sys.path.remove(snapshot)
    wall = time.perf_counter() - started
    return report(results, wall, args)


def report(results: Sequence[FileResult], wall: float, args: argparse.Namespace) -> int:
    """Print the summary; return the exit status."""
    status = Counter(r.status for r in results)
    linted = [r for r in results if r.status in ("ok", "error", "timeout")]
    errors = [r for r in results if r.status == "error"]
    timeouts = [r for r in results if r.status == "timeout"]
    slow = sorted((r for r in linted if r.seconds > args.slow), key=lambda r: -r.seconds)
    mismatches = [r for r in results if r.gate_mismatch]
    plugin_s = sum(r.seconds for r in linted)
    print()
    print(f"files: {len(results)}; linted {len(linted)}, unparseable by flake8 "
          f"{status['unparseable']}, unreadable {status['unreadable']}")
    print(f"wall time: {wall:.1f} s; plugin time {plugin_s:.1f} s in all "
          f"(mean {1000 * plugin_s / max(1, len(linted)):.1f} ms/file, "
          f"max {max((r.seconds for r in linted), default=0):.2f} s); "
          f"findings {sum(r.findings for r in linted)}")
    print(f"internal errors: {len(errors)}")
    by_kind = Counter((r.error.split(":")[0], r.where) for r in errors)
    for (kind, where), n in by_kind.most_common():
        example = next(r for r in errors if r.error.split(":")[0] == kind and r.where == where)
        print(f"  {n:5d} x {kind} at {where}  e.g. {example.path}")
        print(f"          {example.error[:200]}")
    for r in errors[:3]:
        print(f"  traceback of {r.path}:")
        print("".join(r.traceback_tail).rstrip())
    print(f"timeouts (>{args.hard_timeout:g} s): {len(timeouts)}")
    for r in timeouts:
        print(f"  {r.path}")
    print(f"slow files (>{args.slow:g} s): {len(slow)}")
    for r in slow[:50]:
        print(f"  {r.seconds:6.2f} s  {r.path}")
    if args.verify_gates:
        ungated_s = sum(r.ungated_seconds for r in linted)
        slowest = sorted(linted, key=lambda r: -r.ungated_seconds)[:10]
        print(f"ungated (every rule on every file): {ungated_s:.1f} s in all, mean "
              f"{1000 * ungated_s / max(1, len(linted)):.1f} ms/file; slowest:")
        for r in slowest:
            print(f"  {r.ungated_seconds:6.2f} s  {r.path}")
        print(f"gate mismatches (a gate hid a finding): {len(mismatches)}")
        for r in mismatches[:50]:
            print(f"  {r.path}: {r.gate_mismatch}")
    if args.json:
        args.json.write_text(json.dumps({
            "wall_s": wall, "files": len(results), "status": dict(status),
            "results": [asdict(r) for r in results if r.status != "ok" or r.seconds > args.slow
                        or r.gate_mismatch]}, indent=1))
    failed = bool(errors or timeouts or slow or mismatches)
    print()
    print("FAILED" if failed else f"OK: no internal error, no file over {args.slow:g} s")
    return 1 if failed else 0


__all__ = ["FileResult", "check_file", "collect", "default_roots", "main", "spread", "sweep"]

if __name__ == "__main__":
    sys.exit(main())
