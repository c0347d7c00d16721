"""The ``flake8-xla`` command (also ``python -m flake8_xla``).

It is flake8 with the XLA rules only: the command builds a flake8 command line
(``--select`` forced to XLA codes, the ``[tool.flake8-xla]`` settings of
pyproject.toml merged in, ``--format`` mapped to the report plugins of
:mod:`flake8_xla.formatters`) and runs flake8's own application on it, so
``# noqa``, the flake8 config, ``per-file-ignores``, excludes and file discovery
behave exactly as in ``flake8 --select=XLA``. Only the XLA checker runs (the other
installed flake8 checkers are skipped: their codes are never selected anyway).

The command adds what flake8 does not do: notebooks (``.ipynb``, linted cell by
cell: :mod:`flake8_xla.runner`), ``XLA001`` for a file that could not be read or
parsed (flake8's E999/E902, always selected), default excludes for virtual
environments and build folders (:data:`flake8_xla.config.DEFAULT_EXCLUDE`, as
ruff), and ``--fix``/``--diff``/``--unsafe-fixes`` (:mod:`flake8_xla.fixing`).

Exit status: 0 no finding, 1 findings (XLA001 included), 2 usage or configuration
error; with ``--diff``: 1 when a file would change. A closed output pipe
(``flake8-xla . | head``) ends the run quietly with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import flake8
from flake8 import exceptions as flake8_exceptions
from flake8 import utils as flake8_utils
from flake8.main.application import Application
from flake8.options import config as flake8_config
from flake8.options.parse_args import parse_args as flake8_parse_args

from flake8_xla import __version__
from flake8_xla.config import (
    DEFAULT_EXCLUDE,
    FORMATS,
    ConfigError,
    ProjectConfig,
    check_version,
    codes,
    find_pyproject,
    flake8_xla_select,
    load_project_config,
    per_file_ignores,
    xla_codes,
)
from flake8_xla.context import MIGRATIONS, TARGETS
from flake8_xla.docs import UnknownRuleError, find_rule, help_uri, rule_markdown, summary
from flake8_xla.rules import LISTED_RULES
from flake8_xla.runner import XlaManager
from flake8_xla.runtime import RuntimeEvidence, RuntimeFileError, load_runtime, mark_results
from flake8_xla.sources import UNREADABLE

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
#: ``--format`` value -> the flake8 report plugin that prints it.
FLAKE8_FORMATS = {"text": "default", "json": "xla-json", "sarif": "xla-sarif",
                  "github": "xla-github"}
PLUGIN_ENTRY = "XLA"


class UsageError(Exception):
    """A bad command line or configuration: reported on stderr, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``flake8-xla`` (argparse exits with status 2 on a bad option)."""
    p = argparse.ArgumentParser(
        prog="flake8-xla",
        description="Find PyTorch/XLA performance hazards (flake8 with the XLA rules only). "
                    "Reads [tool.flake8-xla] in pyproject.toml and the [flake8] config.",
        epilog="Exit status: 0 clean, 1 findings (XLA001: a file that could not be checked), "
               "2 usage error; --diff: 1 when a file would change. "
               "Rule reference: flake8-xla --list-rules, flake8-xla --explain XLA201.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders to check, recursively ('-' reads stdin; default: .)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: text, or 'format' in [tool.flake8-xla])")
    p.add_argument("--select", action="append", default=[], metavar="CODES",
                   help="only these XLA codes or prefixes, comma separated (default: XLA)")
    p.add_argument("--extend-select", action="append", default=[], metavar="CODES",
                   help="also select these codes or prefixes, added to --select or the "
                        "default (turns on an opt-in rule: --extend-select=XLA302)")
    p.add_argument("--ignore", "--extend-ignore", dest="ignore", action="append", default=[],
                   metavar="CODES", help="also ignore these codes or prefixes")
    p.add_argument("--per-file-ignores", action="append", default=[], metavar="PAIRS",
                   help="'PATTERN:CODES ...' pairs, as flake8's option (added to the config's)")
    p.add_argument("--exclude", action="append", default=None, metavar="PATTERNS",
                   help="skip these files/folders instead of the defaults (flake8's and "
                        f"{', '.join(DEFAULT_EXCLUDE[:4])}, ...; comma separated globs)")
    p.add_argument("--extend-exclude", action="append", default=[], metavar="PATTERNS",
                   help="also skip these files/folders (comma separated globs)")
    p.add_argument("--xla-target", choices=TARGETS, default=None,
                   help="auto: files that use XLA and the project modules they pull in "
                        "(default); file: each file alone; all: every file")
    p.add_argument("--xla-version", default=None, metavar="X.Y",
                   help="torch_xla version the advice targets (default: installed, else 2.9)")
    p.add_argument("--xla-migrate", choices=MIGRATIONS, default=None,
                   help="turn on a migration band: torchtpu (XLA6xx, TorchTPU counterparts "
                        "and traps; default: off)")
    p.add_argument("--docs-url", default=None, metavar="URL",
                   help="base URL of the rule docs in SARIF/JSON (default: docs/rules.md)")
    p.add_argument("--output-file", default=None, metavar="FILE",
                   help="write the report to FILE instead of stdout")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when there are findings")
    p.add_argument("--show-source", action="store_true",
                   help="text format: show the offending line under each finding")
    p.add_argument("-j", "--jobs", default=None, metavar="N",
                   help="processes to use (default: flake8's, 'auto')")
    p.add_argument("--stdin-display-name", default=None, metavar="NAME",
                   help="file name to report for '-' (stdin)")
    p.add_argument("--config", default=None, metavar="FILE",
                   help="flake8 config file to use instead of setup.cfg/tox.ini/.flake8")
    p.add_argument("--isolated", action="store_true",
                   help="ignore all config files (flake8 and pyproject.toml)")
    add_fix_options(p)
    p.add_argument("--runtime", action="append", default=[], metavar="EXPLAIN_JSON",
                   help="mark findings confirmed at run time by an explain.json of "
                        "'python -m perf_validation explain' (repeatable)")
    p.add_argument("--explain", metavar="CODE",
                   help="print the documentation of one rule (code or name) and exit")
    p.add_argument("--list-rules", action="store_true",
                   help="list the rules (code, name, summary) and exit")
    p.add_argument("--version", action="version",
                   version=f"flake8-xla {__version__} (flake8 {flake8.__version__})")
    return p


def add_fix_options(p: argparse.ArgumentParser) -> None:
    """``--fix``, ``--diff`` and ``--unsafe-fixes`` (ruff's names and meaning)."""
    group = p.add_argument_group("fixing", "safe fixes keep what the code does on XLA; unsafe "
                                           "ones change behaviour you must review "
                                           "(--list-rules shows each rule's kind)")
    group.add_argument("--fix", action="store_true",
                       help="apply the safe fixes, then report what is left")
    group.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and change no file "
                            "(exit 1 when a file would change)")
    group.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix/--diff: apply the unsafe fixes too")


def _split(values: list[str]) -> list[str]:
    return [item for v in values for item in flake8_utils.parse_comma_separated_list(v)]


def _flake8_section(args: argparse.Namespace) -> tuple[dict[str, str], str]:
    """The ``[flake8]`` section flake8 itself will read, and its folder."""
    try:
        cfg, cfg_dir = flake8_config.load_config(args.config, [], isolated=args.isolated)
    except flake8_exceptions.ExecutionError as exc:
        raise UsageError(str(exc)) from exc
    except Exception as exc:  # configparser errors
        raise UsageError(f"cannot read the flake8 config: {exc}") from exc
    section = dict(cfg["flake8"]) if "flake8" in cfg else {}
    return section, cfg_dir


def flake8_arguments(args: argparse.Namespace, project: ProjectConfig,
                     section: dict[str, str], cfg_dir: str) -> list[str]:
    """The flake8 command line equivalent to this ``flake8-xla`` invocation.

    Raises :class:`UsageError` for a bad code, version or per-file-ignores value.
    """
    try:
        select = (xla_codes(_split(args.select), "--select") if args.select else None) \
            or project.select or flake8_xla_select(section) or ["XLA"]
        if project.extend_select:
            # ``extend-select = ["XLA302"]`` in the table: an opt-in rule beside the others
            select = list(dict.fromkeys([*select, *project.extend_select]))
        if args.extend_select:
            extra = xla_codes(_split(args.extend_select), "--extend-select")
            select = list(dict.fromkeys([*select, *extra]))
        ignore = [*flake8_utils.parse_comma_separated_list(
                      section.get("extend-ignore", section.get("extend_ignore", ""))),
                  *project.extend_ignore, *codes(_split(args.ignore), "--ignore")]
        pfi_lines = [section.get("per-file-ignores", section.get("per_file_ignores", ""))]
        pairs = list(project.per_file_ignores)
        for value in args.per_file_ignores:
            pairs += per_file_ignores(value, None, "--per-file-ignores")
        pfi_lines += [f"{pattern}:{','.join(listed)}" for pattern, listed in pairs]
        version = args.xla_version or project.xla_version
        if args.xla_version:
            check_version(args.xla_version, "--xla-version")
    except ConfigError as exc:
        raise UsageError(str(exc)) from exc

    if not any(UNREADABLE.startswith(code) for code in select):
        select = [*select, UNREADABLE]  # a file that could not be checked is never clean
    sel = ",".join(select)
    out = [f"--select={sel}", f"--extend-select={sel}"]
    if args.config:
        out.append(f"--config={args.config}")
    if args.isolated:
        out.append("--isolated")
    if ignore:
        out.append(f"--extend-ignore={','.join(dict.fromkeys(ignore))}")
    pfi = "\n".join(line for line in pfi_lines if line.strip())
    if pfi:
        out.append(f"--per-file-ignores={pfi}")
    if args.exclude is not None:
        out.append(f"--exclude={','.join(_split(args.exclude))}")
    excludes = [*([] if args.exclude is not None else DEFAULT_EXCLUDE),
                *project.extend_exclude, *_split(args.extend_exclude)]
    if excludes:
        configured = section.get("extend-exclude", section.get("extend_exclude", ""))
        excludes = [*flake8_utils.normalize_paths(
            flake8_utils.parse_comma_separated_list(configured), cfg_dir), *excludes]
        out.append(f"--extend-exclude={','.join(excludes)}")
    target = args.xla_target or project.xla_target
    if target:
        out.append(f"--xla-target={target}")
    if version:
        out.append(f"--xla-version={version}")
    migrate = args.xla_migrate or project.xla_migrate
    if migrate:
        out.append(f"--xla-migrate={migrate}")
    docs_url = args.docs_url or project.docs_url
    if docs_url:
        out.append(f"--xla-docs-url={docs_url}")
    out.append(f"--format={FLAKE8_FORMATS[args.format or project.format or 'text']}")
    for flag, value in (("--output-file", args.output_file), ("--jobs", args.jobs),
                        ("--stdin-display-name", args.stdin_display_name)):
        if value is not None:
            out.append(f"{flag}={value}")
    if args.exit_zero:
        out.append("--exit-zero")
    if args.show_source:
        out.append("--show-source")
    return out + list(args.paths or ["."])


def make_application(argv: list[str], runtime: RuntimeEvidence | None = None) -> Application:
    """flake8's application for ``argv``: options, the XLA checker only, formatter and
    style guide made, files not yet discovered. ``runtime`` (``--runtime``) is handed to
    the SARIF and JSON formatters.

    Raises :class:`UsageError` for a configuration error, or when flake8-xla's plugin
    is not registered with flake8 (the package is not installed).
    """
    app = Application()
    try:
        plugins, options = flake8_parse_args(argv)
    except (flake8_exceptions.Flake8Exception, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    tree = [p for p in plugins.checkers.tree if p.entry_name.startswith(PLUGIN_ENTRY)]
    if not tree:
        raise UsageError("the flake8 plugin 'XLA' is not registered: install flake8-xla "
                         "(pip install flake8-xla, or pip install -e . in a checkout)")
    if options.format not in plugins.reporters:
        raise UsageError(f"the flake8 report plugin {options.format!r} is not registered: "
                         f"reinstall flake8-xla")
    checkers = plugins.checkers._replace(tree=tree, logical_line=[], physical_line=[])
    app.plugins, app.options = plugins._replace(checkers=checkers), options
    options.xla_runtime = runtime  # read by the SARIF and JSON formatters
    app.make_formatter()
    app.make_guide()
    return app


def run_flake8(argv: list[str], runtime: RuntimeEvidence | None = None) -> int:
    """Run flake8's application on ``argv`` with only the XLA checker; the exit status.

    Notebooks and XLA001 are handled by :class:`flake8_xla.runner.XlaManager`. With
    ``runtime`` (``--runtime``), confirmed findings are marked before the report.
    Returns 0 (clean), 1 (findings) or 2 (configuration error, or flake8-xla's plugin
    is not registered with flake8, i.e. the package is not installed).
    """
    app = make_application(argv, runtime)
    app.file_checker_manager = XlaManager(app.guide, app.plugins.checkers, argv)
    app.run_checks()
    if runtime is not None and app.file_checker_manager is not None:
        mark_results(app.file_checker_manager.results, runtime)
    app.report()
    if app.catastrophic_failure:
        return EXIT_USAGE
    return EXIT_FINDINGS if app.result_count > 0 and not app.options.exit_zero else EXIT_CLEAN


def run_fix(args: argparse.Namespace, argv: list[str]) -> int:
    """``--fix``/``--diff``: fix the files, then (``--fix``) report what is left.

    Raises :class:`UsageError` when LibCST is missing.
    """
    try:
        import libcst  # noqa: F401 - a dependency of flake8-xla; checked for a clear message
    except ImportError:
        raise UsageError("--fix and --diff need LibCST: pip install libcst") from None
    from flake8_xla.fixing import Fixer

    stdin = "-" in (args.paths or [])
    fixer = Fixer(make_application(argv), argv, unsafe=args.unsafe_fixes, diff=args.diff)
    summary = fixer.run()
    for problem in summary.problems:
        print(f"flake8-xla: {problem}", file=sys.stderr)
    if not stdin or args.diff:
        print(summary.line(args.diff), file=sys.stderr)
    if args.diff:
        return EXIT_FINDINGS if summary.files else EXIT_CLEAN
    if stdin:
        return EXIT_CLEAN
    if summary.files:
        # The fixes rewrote files that this process has indexed and analysed: what is
        # left is checked against the files as they are now, never against those records.
        from flake8_xla.project.index import reset
        reset()
    return run_flake8(argv)


def list_rules(fmt: str | None, docs_url: str | None) -> str:
    """The rule list: a text table (code, name, fix kind, summary), or a JSON array
    with ``fmt == 'json'`` (``code``, ``name``, ``fix``: safe/unsafe/none, ``summary``,
    ``url``)."""
    if fmt == "json":
        return json.dumps([{"code": r.code, "name": r.name, "fix": r.fix, "summary": summary(r),
                            "url": help_uri(r.code, docs_url)} for r in LISTED_RULES], indent=2)
    width = max(len(r.name) for r in LISTED_RULES)
    fix = {"safe": "fix", "unsafe": "unsafe-fix", "none": "-"}
    return "\n".join(f"{r.code}  {r.name:<{width}}  {fix.get(r.fix, r.fix):<10}  {summary(r)}"
                     for r in LISTED_RULES)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``flake8-xla``; returns the exit status (0, 1 or 2)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad option (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        status = _main(args)
        sys.stdout.flush()  # a pipe closed early fails here, not at interpreter exit
        return status
    except BrokenPipeError:
        return _closed_pipe()
    except SystemExit as exc:  # flake8 rejected an option from the config (message printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except UsageError as exc:
        print(f"flake8-xla: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("flake8-xla: interrupted", file=sys.stderr)
        return 130


def _closed_pipe() -> int:
    """The reader of our output went away (``flake8-xla . | head``): stop quietly.

    stdout is pointed at devnull so that the interpreter's final flush does not
    print a second BrokenPipeError; the status is 1, the output was cut short.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real stdout (captured in tests)
        pass
    return EXIT_FINDINGS


def _main(args: argparse.Namespace) -> int:
    if args.explain:
        try:
            rule = find_rule(args.explain)
        except UnknownRuleError:
            known = ", ".join(r.code for r in LISTED_RULES)
            raise UsageError(f"unknown rule {args.explain!r} (known: {known})") from None
        sys.stdout.write(rule_markdown(rule))
        return EXIT_CLEAN
    project = ProjectConfig()
    if not args.isolated:
        try:
            found = find_pyproject(Path.cwd())
            if found is not None:
                project = load_project_config(found)
        except ConfigError as exc:
            raise UsageError(str(exc)) from exc
    if args.list_rules:
        print(list_rules(args.format or project.format, args.docs_url or project.docs_url))
        return EXIT_CLEAN
    missing = [p for p in args.paths if p != "-" and not os.path.exists(p)]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    if args.unsafe_fixes and not (args.fix or args.diff):
        raise UsageError("--unsafe-fixes needs --fix or --diff")
    section, cfg_dir = _flake8_section(args)
    flake8_argv = flake8_arguments(args, project, section, cfg_dir)
    runtime = None
    if args.runtime:
        try:
            runtime = load_runtime(args.runtime)
        except RuntimeFileError as exc:
            raise UsageError(str(exc)) from exc
        for warning in runtime.warnings:
            print(f"flake8-xla: warning: {warning}", file=sys.stderr)
    if args.fix or args.diff:
        return run_fix(args, flake8_argv)
    return run_flake8(flake8_argv, runtime)
