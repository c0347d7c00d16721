"""What flake8-xla adds to a flake8 run: CPU time, wall time and peak memory.

Usage::

    python benchmarks/lint_speed.py                      # the default corpora, 3 repeats
    python benchmarks/lint_speed.py --repeats 5 --transformers-limit 0   # whole trees
    python benchmarks/lint_speed.py --quick              # small subsets, 1 repeat (smoke test)

Corpora
    (a) ``transformers/models`` of the installed transformers: the first
        ``--transformers-limit`` files in sorted path order (default 400; 0 = all
        of them, about 2,600 files and 45 MB, which takes several minutes a run);
    (b) the standard library of the running Python (``sysconfig`` ``stdlib``
        path, ``site-packages``/``dist-packages`` left out, so no torch): every
        file unless ``--stdlib-limit`` is given.

Method (an honest baseline)
    Every measured run is a fresh ``python`` subprocess that runs flake8's own
    ``flake8.main.cli.main`` with the same arguments (``--isolated -j1
    --select=E,F,W,C90,XLA``, the files as explicit paths, output to a file).
    The only difference between "plain" and "with flake8-xla" is the plugin
    list: for the plain run, this script wraps
    ``flake8.plugins.finder.find_plugins`` so that it drops the plugins of the
    ``flake8-xla`` distribution (and leaves ``--xla-*`` options off, since
    nobody registers them). flake8-xla is then never imported, exactly as if
    it were uninstalled, while pyflakes, pycodestyle and mccabe run as usual.
    flake8 runs every registered checker whatever ``--select`` says, so
    selecting codes alone could not switch a plugin off.

    One warm-up run of each variant (plain, auto, all) comes first and is not
    counted; then ``--repeats`` rounds run the three variants, rotating their
    order each round so that drift (thermal, page cache) spreads evenly. Each
    figure is the median over the rounds. CPU time is user + system time of the
    child (``os.wait4``), the steadiest figure on a shared machine; wall time is
    printed too. Peak memory is the child's ``ru_maxrss``.

    Three views of the time overhead: the ratio of the medians (the figure the
    targets are checked against); the median of the per-round ratios (each
    variant against the plain run of the same round, which cancels slow drift);
    and the plugin's own CPU time (importing it plus every ``Plugin.run``,
    measured inside the child) as a share of plain flake8's CPU time, which no
    other load on the machine can inflate. It misses only indirect costs, such
    as collecting the astroid trees' garbage after a file. A missed target whose
    overhead is below the plain runs' own spread while the plugin's own CPU share
    meets it is printed "within noise": this machine cannot resolve it, and it
    does not fail the exit status (1 when a target is missed).

    The flake8_xla package is copied to a temporary folder first and the
    children import that copy (``PYTHONPATH``), so edits made to the working tree
    while the benchmark runs cannot leak into some rounds and not others.

    Overhead = median(with plugin) / median(plain) - 1. Targets (issue 6):
    transformers auto <= 5 %, transformers all <= 30 %, stdlib auto <= 2 %,
    peak memory <= 1.5x plain flake8.

The child mode (``--child on|off -- FLAKE8-ARGS``) is internal.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

PLUGIN_DISTRIBUTION = "flake8-xla"
BASE_ARGS: tuple[str, ...] = ("--isolated", "-j1", "--select=E,F,W,C90,XLA")
VARIANTS: tuple[str, ...] = ("plain", "auto", "all")
#: (corpus, variant) -> the most overhead allowed (ratio - 1); memory is separate.
TARGETS: dict[tuple[str, str], float] = {
    ("transformers", "auto"): 0.05,
    ("transformers", "all"): 0.30,
    ("stdlib", "auto"): 0.02,
}
MEMORY_TARGET = 1.5


# ----------------------------------------------------------------------------- child
def _child(mode: str, flake8_args: list[str]) -> int:
    """Run flake8 in this process, with (``on``) or without (``off``) flake8-xla.

    With the plugin, its own CPU time is also measured (importing it, and every
    ``Plugin.run`` consumed to the end) and written as JSON to ``$LINT_SPEED_STATS``.
    """
    import importlib

    from flake8.main import cli
    from flake8.plugins import finder

    if mode == "off":
        original = finder.find_plugins

        def find_plugins_without_xla(cfg, opts):  # type: ignore[no-untyped-def]
            return [p for p in original(cfg, opts) if p.package != PLUGIN_DISTRIBUTION]

        finder.find_plugins = find_plugins_without_xla  # type: ignore[assignment]
        return cli.main(flake8_args)
    started = time.process_time()
    plugin = importlib.import_module("flake8_xla.plugin").Plugin
    stats = {"import_s": time.process_time() - started, "run_s": 0.0, "files": 0}
    original_run = plugin.run

    def timed_run(self):  # type: ignore[no-untyped-def]
        began = time.process_time()
        try:
            results = list(original_run(self))
        finally:
            stats["run_s"] += time.process_time() - began
            stats["files"] += 1
        return iter(results)

    plugin.run = timed_run
    try:
        return cli.main(flake8_args)
    finally:
        if os.environ.get("LINT_SPEED_STATS"):
            Path(os.environ["LINT_SPEED_STATS"]).write_text(json.dumps(stats))


# ----------------------------------------------------------------------------- corpora
def transformers_files(limit: int) -> tuple[list[Path], str]:
    """Sorted ``.py`` files of ``transformers/models`` (the first ``limit``; 0 = all)."""
    import importlib.util

    spec = importlib.util.find_spec("transformers")  # located, never imported
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("lint_speed: transformers is not installed")
    root = Path(next(iter(spec.submodule_search_locations))) / "models"
    files = sorted(root.rglob("*.py"))
    total = len(files)
    if limit and limit < total:
        return files[:limit], f"transformers/models: first {limit} of {total} files (sorted)"
    return files, f"transformers/models: all {total} files"


def stdlib_files(limit: int) -> tuple[list[Path], str]:
    """Sorted ``.py`` files of the running Python's standard library (no site-packages)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py")
                   if not {"site-packages", "dist-packages"} & set(p.relative_to(root).parts))
    total = len(files)
    if limit and limit < total:
        return files[:limit], f"stdlib {root}: first {limit} of {total} files (sorted)"
    return files, f"stdlib {root}: all {total} files"


# ----------------------------------------------------------------------------- runs
@dataclass
class Run:
    """One measured flake8 process."""

    cpu_s: float
    wall_s: float
    maxrss_mib: float
    findings: int
    xla_findings: int
    plugin_cpu_s: float | None = None  # the plugin's own CPU time (import + runs)


@dataclass
class Series:
    """The measured runs of one (corpus, variant)."""

    corpus: str
    variant: str
    runs: list[Run] = field(default_factory=list)

    def median(self, attr: str) -> float:
        """Median of one Run attribute over the runs."""
        return statistics.median(getattr(r, attr) for r in self.runs)


def flake8_args(variant: str, files: Sequence[Path], output: Path) -> list[str]:
    """The flake8 command line of ``variant`` (plain runs get no ``--xla-*`` option)."""
    args = [*BASE_ARGS, f"--output-file={output}"]
    if variant != "plain":
        args.append(f"--xla-target={variant}")
    return args + [str(f) for f in files]


def snapshot_package(folder: Path) -> Path:
    """Copy the flake8_xla package into ``folder``; return the PYTHONPATH entry to use."""
    import flake8_xla

    source = Path(flake8_xla.__file__).resolve().parent
    shutil.copytree(source, folder / "flake8_xla",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return folder


_CHILD_ENV: dict[str, str] | None = None


def run_once(variant: str, files: Sequence[Path]) -> Run:
    """Run flake8 once in a fresh subprocess and measure it."""
    with tempfile.TemporaryDirectory(prefix="lint_speed-") as tmp:
        output = Path(tmp) / "out.txt"
        command = [sys.executable, str(Path(__file__).resolve()), "--child",
                   "off" if variant == "plain" else "on", "--",
                   *flake8_args(variant, files, output)]
        started = time.perf_counter()
        stats_path = Path(tmp) / "stats.json"
        env = dict(_CHILD_ENV if _CHILD_ENV is not None else os.environ,
                   LINT_SPEED_STATS=str(stats_path))
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=env)
        assert proc.stderr is not None
        stderr = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"flake8 ({variant}) exited {proc.returncode}: "
                               f"{stderr.decode(errors='replace')[-2000:]}")
        lines = output.read_text(encoding="utf-8", errors="replace").splitlines()
        plugin_cpu = None
        if stats_path.exists():
            stats = json.loads(stats_path.read_text())
            plugin_cpu = stats["import_s"] + stats["run_s"]
    xla = sum(1 for line in lines if ": XLA" in line)
    if variant == "plain" and xla:
        raise RuntimeError("the plain run reported XLA findings: the plugin was not removed")
    return Run(cpu_s=usage.ru_utime + usage.ru_stime, wall_s=wall,
               maxrss_mib=usage.ru_maxrss / 1024, findings=len(lines), xla_findings=xla,
               plugin_cpu_s=plugin_cpu)


def measure(corpus: str, files: Sequence[Path], repeats: int, log: bool = True
            ) -> dict[str, Series]:
    """Warm up, then run every variant ``repeats`` times in rotating order."""
    series = {v: Series(corpus, v) for v in VARIANTS}
    for variant in VARIANTS:
        if log:
            print(f"  warm-up {corpus} {variant} ...", flush=True)
        run_once(variant, files)
    for index in range(repeats):
        order = VARIANTS[index % len(VARIANTS):] + VARIANTS[:index % len(VARIANTS)]
        for variant in order:
            run = run_once(variant, files)
            series[variant].runs.append(run)
            if log:
                own = "" if run.plugin_cpu_s is None else \
                    f"  plugin's own cpu {run.plugin_cpu_s:6.2f} s"
                print(f"  round {index + 1}/{repeats} {corpus:12s} {variant:5s} "
                      f"cpu {run.cpu_s:7.2f} s  wall {run.wall_s:7.2f} s  "
                      f"rss {run.maxrss_mib:6.1f} MiB  XLA findings {run.xla_findings}{own}",
                      flush=True)
    return series


# ----------------------------------------------------------------------------- report
def summarize(corpus: str, series: dict[str, Series]) -> list[dict[str, object]]:
    """One row per variant: medians, overhead over plain, memory ratio, target verdicts."""
    plain = series["plain"]
    plain_cpu = plain.median("cpu_s")
    noise = (max(r.cpu_s for r in plain.runs) - min(r.cpu_s for r in plain.runs)) / plain_cpu
    rows: list[dict[str, object]] = []
    for variant in VARIANTS:
        s = series[variant]
        cpu, wall, rss = s.median("cpu_s"), s.median("wall_s"), max(
            r.maxrss_mib for r in s.runs)
        row: dict[str, object] = {
            "corpus": corpus, "variant": variant, "cpu_s": round(cpu, 3),
            "wall_s": round(wall, 3), "maxrss_mib": round(rss, 1),
            "xla_findings": s.runs[0].xla_findings if s.runs else 0,
        }
        if variant == "plain":
            row["noise"] = round(noise, 4)
        if variant != "plain":
            cpu_overhead = cpu / plain_cpu - 1
            wall_overhead = wall / plain.median("wall_s") - 1
            paired = statistics.median(r.cpu_s / p.cpu_s - 1 for r, p in zip(s.runs, plain.runs))
            own = [r.plugin_cpu_s for r in s.runs if r.plugin_cpu_s is not None]
            own_share = statistics.median(own) / plain_cpu if own else None
            memory = rss / max(r.maxrss_mib for r in plain.runs)
            target = TARGETS.get((corpus, variant))
            row.update(cpu_overhead=round(cpu_overhead, 4), wall_overhead=round(wall_overhead, 4),
                       paired_overhead=round(paired, 4),
                       own_share=None if own_share is None else round(own_share, 4),
                       memory_ratio=round(memory, 3), target=target,
                       meets_time=None if target is None else cpu_overhead <= target,
                       within_noise=cpu_overhead <= noise,
                       time_verdict=_time_verdict(cpu_overhead, noise, own_share, target),
                       meets_memory=memory <= MEMORY_TARGET)
        rows.append(row)
    return rows


def _time_verdict(overhead: float, noise: float, own_share: float | None,
                  target: float | None) -> str | None:
    """``met``; ``noise`` (the medians miss the target by less than the plain runs' own
    spread while the plugin's own CPU share meets it: this machine cannot tell); or
    ``missed``. None without a target."""
    if target is None:
        return None
    if overhead <= target:
        return "met"
    if overhead <= noise and own_share is not None and own_share <= target:
        return "noise"
    return "missed"


def markdown_table(rows: Sequence[dict[str, object]]) -> str:
    """The rows as a Markdown table."""
    header = ("| corpus | variant | CPU s (median) | wall s (median) | overhead CPU "
              "(medians) | overhead CPU (paired rounds) | plugin's own CPU | target | "
              "peak RSS MiB | memory vs plain | XLA findings |")
    lines = [header, "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|"]
    for row in rows:
        if row["variant"] == "plain":
            lines.append(f"| {row['corpus']} | plain flake8 | {row['cpu_s']:.2f} | "
                         f"{row['wall_s']:.2f} | run-to-run spread {row['noise']:.1%} | | | | "
                         f"{row['maxrss_mib']:.1f} | | |")
            continue
        target = row["target"]
        verdict = ""
        if target is not None:
            verdict = f"<= {target:.0%} " + {
                "met": "met", "noise": "within noise (own CPU meets it)",
                "missed": "MISSED"}[str(row["time_verdict"])]
        memory = f"{row['memory_ratio']:.2f}x {'met' if row['meets_memory'] else 'MISSED'}"
        own = "" if row["own_share"] is None else f"{row['own_share']:.1%}"
        lines.append(f"| {row['corpus']} | --xla-target={row['variant']} | {row['cpu_s']:.2f} | "
                     f"{row['wall_s']:.2f} | {row['cpu_overhead']:+.1%} | "
                     f"{row['paired_overhead']:+.1%} | {own} | {verdict} | "
                     f"{row['maxrss_mib']:.1f} | {memory} | {row['xla_findings']} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; exit status 0 when every target is met, else 1."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        if len(argv) < 3 or argv[2] != "--":
            raise SystemExit("usage: lint_speed.py --child on|off -- FLAKE8-ARGS")
        return _child(argv[1], argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="measured rounds (default 3)")
    parser.add_argument("--transformers-limit", type=int, default=400, metavar="N",
                        help="first N files of transformers/models (default 400; 0 = all)")
    parser.add_argument("--stdlib-limit", type=int, default=0, metavar="N",
                        help="first N files of the standard library (default 0 = all)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: 60 + 150 files, 1 round")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.repeats, args.transformers_limit, args.stdlib_limit = 1, 60, 150
    corpora = [("transformers", *transformers_files(args.transformers_limit)),
               ("stdlib", *stdlib_files(args.stdlib_limit))]
    header = (f"{datetime.date.today().isoformat()}  Python {platform.python_version()}  "
              f"{platform.machine()}  {os.cpu_count()} CPUs  commit {_commit()}  "
              f"flake8 {_version('flake8')}  astroid {_version('astroid')}  "
              f"flake8-xla {_version(PLUGIN_DISTRIBUTION)}")
    print(header)
    for name, files, description in corpora:
        print(f"corpus {name}: {description}")
    print(f"method: flake8 subprocess per run, {' '.join(BASE_ARGS)}; plain = flake8-xla "
          f"filtered out of flake8's plugin finder; 1 warm-up + {args.repeats} rotating rounds, "
          "medians")
    global _CHILD_ENV
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="lint_speed-pkg-") as tmp:
        root = snapshot_package(Path(tmp))
        _CHILD_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(
            filter(None, [str(root), os.environ.get("PYTHONPATH")])))
        for name, files, _ in corpora:
            rows += summarize(name, measure(name, files, args.repeats))
    print()
    print(markdown_table(rows))
    if args.json:
        args.json.write_text(json.dumps({"header": header, "rows": rows,
                                         "corpora": [c[2] for c in corpora]}, indent=2))
    missed = [r for r in rows if r.get("time_verdict") == "missed"
              or r.get("meets_memory") is False]
    unresolved = [r for r in rows if r.get("time_verdict") == "noise"]
    print()
    if unresolved:
        print("within noise (the plugin's own CPU meets the target; the medians cannot resolve "
              "it on this machine): "
              + ", ".join(f"{r['corpus']}/{r['variant']}" for r in unresolved))
    print("every target met" if not missed and not unresolved else
          "targets missed: " + (", ".join(f"{r['corpus']}/{r['variant']}" for r in missed)
                                or "none"))
    return 1 if missed else 0


def _commit() -> str:
    """The working tree's commit (``+dirty`` with uncommitted changes), or ``?``."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "flake8_xla"], cwd=root,
                               check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+dirty" if dirty else "")


def _version(distribution: str) -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"


__all__ = ["Run", "Series", "main", "measure", "run_once", "stdlib_files", "summarize",
           "transformers_files"]

if __name__ == "__main__":
    sys.exit(main())
