"""flake8 entry point (``flake8.extension``: ``XLA = flake8_xla.plugin:Plugin``)."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from typing import Any, ClassVar

from flake8_xla import __version__
from flake8_xla.context import MIGRATIONS, TARGETS, Options, installed_xla_version
from flake8_xla.engine import lint_tree
from flake8_xla.facts import check_version
from flake8_xla.notebooks import is_notebook
from flake8_xla.sources import UNREADABLE, encoding_problem, unreadable_text

#: What the plugin says when flake8 hands it a notebook's JSON as Python.
RAW_NOTEBOOK = ("flake8 reads a notebook as Python source (its JSON); run flake8-xla NB.ipynb, "
                "or nbqa flake8 NB.ipynb --nbqa-shell, to lint its code cells")


def _version_arg(text: str) -> tuple[int, int]:
    """argparse type for ``--xla-version``: ``'2.9'`` -> ``(2, 9)``; a malformed version or
    a release the API facts do not cover (e.g. 3.0) is a usage error."""
    try:
        return check_version(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _migrate_arg(text: str) -> str:
    """argparse type for ``--xla-migrate`` (also applied to the config's ``xla-migrate``)."""
    value = text.strip()
    if value not in MIGRATIONS:
        raise argparse.ArgumentTypeError(
            f"unknown migration {text!r} (known: {', '.join(MIGRATIONS)})")
    return value


class Plugin:
    """The flake8 plugin: one instance per checked file.

    Options: ``--xla-target {auto,file,all}`` (config ``xla-target``),
    ``--xla-version X.Y`` (config ``xla-version``; default: the installed
    torch_xla, else the newest release of the API facts) and
    ``--xla-migrate torchtpu`` (config ``xla-migrate``; default: off), which turns
    on the migration band XLA6xx.
    """

    name = "flake8-xla"
    version = __version__
    options: ClassVar[Options] = Options()

    def __init__(self, tree: ast.AST, lines: list[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, parser: Any) -> None:
        """Register ``--xla-target``, ``--xla-version`` and ``--xla-migrate`` (also read from
        the config)."""
        parser.add_option(
            "--xla-target", default="auto", choices=TARGETS, parse_from_config=True,
            help="auto (default): check the files that show XLA use and the project modules "
                 "XLA programs import, following calls across modules; file: each file "
                 "decides alone (it imports torch_xla or uses the 'xla' device), no project "
                 "analysis; all: treat every file as XLA code")
        parser.add_option(
            "--xla-version", default=None, parse_from_config=True, type=_version_arg,
            help="torch_xla version the advice targets, e.g. 2.9 "
                 "(default: the installed torch_xla, else 2.9)")
        parser.add_option(
            "--xla-migrate", default=None, type=_migrate_arg, parse_from_config=True,
            help="turn on a migration band: torchtpu reports every torch_xla API use with "
                 "its TorchTPU counterpart, and TorchTPU's own traps (XLA6xx; default: off)")

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        """Store the parsed options. Raises ValueError for a malformed --xla-version."""
        raw = getattr(options, "xla_version", None)
        version = raw if isinstance(raw, tuple) else (
            check_version(raw) if raw else installed_xla_version())
        selected = [*(getattr(options, "select", None) or []),
                    *(getattr(options, "extend_select", None) or [])]
        cls.options = Options(target=getattr(options, "xla_target", "auto") or "auto",
                              version=version,
                              migrate=getattr(options, "xla_migrate", None) or None,
                              selected=tuple(s for s in selected if s.startswith("XLA")))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        """Yield flake8 results ``(line, col, message, type)``.

        A file that Python refuses to decode (flake8 read it as latin-1), and a
        notebook's raw JSON, give one XLA001 finding instead of the rules' findings.
        """
        source = "".join(self.lines)
        if not isinstance(self.tree, ast.Module):
            return
        problem = self._unreadable(source)
        if problem is not None:
            yield 1, 0, f"{UNREADABLE} {unreadable_text(problem)}", type(self)
            return
        for line, col, message in self._findings(source):
            yield line, col, message, type(self)

    def _findings(self, source: str) -> list[tuple[int, int, str]]:
        """The file's findings, answered from the findings store when nothing they depend
        on changed since they were stored (:mod:`flake8_xla.project.results`)."""
        def check() -> list[tuple[int, int, str]]:
            return [(f.line, f.col, f.message)
                    for f in lint_tree(self.tree, source, self.filename, self.options)]

        try:
            from flake8_xla.project.index import index_for
            from flake8_xla.project.results import stored_or_checked

            index = index_for(self.filename) if self.options.target != "file" else None
        except Exception:  # noqa: BLE001 - no store: checked as usual
            return check()
        return stored_or_checked(self.filename, source, self.options, index, check)

    def _unreadable(self, source: str) -> str | None:
        """Why this file was not really checked, or None (see :meth:`run`)."""
        if is_notebook(self.filename) and source.lstrip().startswith("{"):
            return RAW_NOTEBOOK
        return encoding_problem(self.filename, source)
