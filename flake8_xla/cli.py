"""The ``flake8-xla`` command (also ``python -m flake8_xla``).

It is flake8 with the XLA rules only: the command builds a flake8 command line
(``--select`` forced to XLA codes, the ``[tool.flake8-xla]`` settings of
pyproject.toml merged in, ``--format`` mapped to the report plugins of
:mod:`flake8_xla.formatters`) and runs flake8's own application on it, so
``# noqa``, the flake8 config, ``per-file-ignores``, excludes and file discovery
behave exactly as in ``flake8 --select=XLA``. Only the XLA checker runs (the other
installed flake8 checkers are skipped: their codes are never selected anyway).

Exit status: 0 no finding, 1 findings, 2 usage or configuration error.
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
from flake8_xla.context import TARGETS
from flake8_xla.docs import UnknownRuleError, find_rule, help_uri, rule_markdown, summary
from flake8_xla.rules import ALL_RULES
from flake8_xla.runtime import RuntimeEvidence, RuntimeFileError, load_runtime, mark_results

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
        epilog="Exit status: 0 clean, 1 findings, 2 usage error. "
               "Rule reference: flake8-xla --list-rules, flake8-xla --explain XLA201.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders to check, recursively ('-' reads stdin; default: .)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: text, or 'format' in [tool.flake8-xla])")
    p.add_argument("--select", action="append", default=[], metavar="CODES",
                   help="only these XLA codes or prefixes, comma separated (default: XLA)")
    p.add_argument("--ignore", "--extend-ignore", dest="ignore", action="append", default=[],
                   metavar="CODES", help="also ignore these codes or prefixes")
    p.add_argument("--per-file-ignores", action="append", default=[], metavar="PAIRS",
                   help="'PATTERN:CODES ...' pairs, as flake8's option (added to the config's)")
    p.add_argument("--extend-exclude", action="append", default=[], metavar="PATTERNS",
                   help="also skip these files/folders (comma separated globs)")
    p.add_argument("--xla-target", choices=TARGETS, default=None,
                   help="auto: check files that use torch_xla (default); all: every file")
    p.add_argument("--xla-version", default=None, metavar="X.Y",
                   help="torch_xla version the advice targets (default: installed, else 2.9)")
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
    excludes = [*project.extend_exclude, *_split(args.extend_exclude)]
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


def run_flake8(argv: list[str], runtime: RuntimeEvidence | None = None) -> int:
    """Run flake8's application on ``argv`` with only the XLA checker; the exit status.

    With ``runtime`` (``--runtime``), confirmed findings are marked before the report.

    Returns 0 (clean), 1 (findings) or 2 (configuration error, or flake8-xla's plugin
    is not registered with flake8, i.e. the package is not installed).
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
    app.make_file_checker_manager(argv)
    app.run_checks()
    if runtime is not None and app.file_checker_manager is not None:
        mark_results(app.file_checker_manager.results, runtime)
    app.report()
    if app.catastrophic_failure:
        return EXIT_USAGE
    return EXIT_FINDINGS if app.result_count > 0 and not options.exit_zero else EXIT_CLEAN


def list_rules(fmt: str | None, docs_url: str | None) -> str:
    """The rule list: a text table, or a JSON array with ``fmt == 'json'``."""
    if fmt == "json":
        return json.dumps([{"code": r.code, "name": r.name, "summary": summary(r),
                            "url": help_uri(r.code, docs_url)} for r in ALL_RULES], indent=2)
    width = max(len(r.name) for r in ALL_RULES)
    return "\n".join(f"{r.code}  {r.name:<{width}}  {summary(r)}" for r in ALL_RULES)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``flake8-xla``; returns the exit status (0, 1 or 2)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad option (2)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return _main(args)
    except SystemExit as exc:  # flake8 rejected an option from the config (message printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except UsageError as exc:
        print(f"flake8-xla: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("flake8-xla: interrupted", file=sys.stderr)
        return 130


def _main(args: argparse.Namespace) -> int:
    if args.explain:
        try:
            rule = find_rule(args.explain)
        except UnknownRuleError:
            known = ", ".join(r.code for r in ALL_RULES)
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
    section, cfg_dir = _flake8_section(args)
    runtime = None
    if args.runtime:
        try:
            runtime = load_runtime(args.runtime)
        except RuntimeFileError as exc:
            raise UsageError(str(exc)) from exc
        for warning in runtime.warnings:
            print(f"flake8-xla: warning: {warning}", file=sys.stderr)
    return run_flake8(flake8_arguments(args, project, section, cfg_dir), runtime)
