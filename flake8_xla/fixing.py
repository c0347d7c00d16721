"""``flake8-xla --fix`` / ``--diff`` / ``--unsafe-fixes``: the command's side of fixing.

The files are the ones a lint run would check (flake8's discovery and excludes,
plus notebooks: :class:`flake8_xla.runner.XlaManager`). Each is linted with the
XLA checker through flake8 itself, on the text in memory, and a finding counts
only when flake8's style guide would report it (``--select``, ignores,
per-file-ignores, ``# noqa``), so ``--fix --select=XLA508`` fixes XLA508 only
and a ``# noqa`` line is left alone. :func:`flake8_xla.fixes.fix_until_stable`
then fixes and re-lints until nothing fixable is left.

- ``--fix`` writes the files back (same encoding, BOM and line endings; for a
  notebook, only the ``source`` of the changed code cells), then the normal lint
  run reports what is left.
- ``--diff`` writes nothing: it prints a unified diff per changed file (per
  changed cell for a notebook, ``--- NB.ipynb:cell_3``) and exits 1 when there is
  one, 0 when nothing would change, as ruff does.
- ``-`` (stdin): ``--fix`` prints the fixed source, ``--diff`` its diff.

A summary goes to stderr. A file that cannot be fixed (LibCST cannot parse it)
is named there and left as it was.
"""

from __future__ import annotations

import argparse
import difflib
import io
import sys
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from flake8.formatting.base import BaseFormatter
from flake8.style_guide import StyleGuideManager
from flake8.violation import Violation

from flake8_xla.context import installed_xla_version, parse_version
from flake8_xla.notebooks import Notebook, NotebookError, cell_filename, is_notebook
from flake8_xla.runner import SourceChecker, XlaManager
from flake8_xla.sources import UnreadableSource, decode_python, unreadable_from_flake8


class _Silent(BaseFormatter):
    """A formatter that prints nothing: the style guide only decides."""

    def handle(self, error: Violation) -> None:
        """Drop ``error``."""

    def format(self, error: Violation) -> str | None:
        """Nothing."""
        return None


@dataclass
class FixSummary:
    """What a fix run did: files changed, findings a fix was applied to (over all rounds),
    findings only ``--unsafe-fixes`` would fix, and files that could not be fixed."""

    files: int = 0
    fixed: int = 0
    hidden_unsafe: int = 0
    problems: list[str] = field(default_factory=list)

    def line(self, diff: bool) -> str:
        """The summary for stderr."""
        verb = "would apply" if diff else "applied"
        text = (f"flake8-xla: {verb} {self.fixed} fix{'es' if self.fixed != 1 else ''} in "
                f"{self.files} file{'s' if self.files != 1 else ''}")
        if self.hidden_unsafe:
            text += (f"; {self.hidden_unsafe} more finding{'s' if self.hidden_unsafe != 1 else ''}"
                     f" can be fixed with --unsafe-fixes")
        return text


def _linter(filename: str, checkers: Any, options: argparse.Namespace,
            guide: StyleGuideManager) -> Callable[[str], list[Any]]:
    from flake8_xla.fixes import Target

    def lint(text: str) -> list[Target]:
        lines = text.splitlines(True)
        _, results, _ = SourceChecker(filename=filename, lines=lines, plugins=checkers,
                                      options=options).run_checks()
        found = []
        for code, line, column, message, physical in results:
            code, message = unreadable_from_flake8(code, message)
            if guide.handle_error(code=code, filename=filename, line_number=line,
                                  column_number=column, text=message, physical_line=physical):
                found.append(Target(line, column, code))
        return found

    return lint


def _version(options: argparse.Namespace) -> tuple[int, int]:
    raw = getattr(options, "xla_version", None)
    if isinstance(raw, tuple):
        return raw
    return parse_version(raw) if raw else installed_xla_version()


def _diff(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                        fromfile=name, tofile=name))


class Fixer:
    """Fixes the files of one command line; see the module docstring.

    ``app`` is a flake8 Application with options, plugins (XLA checker only) and
    style guide made; ``unsafe`` enables unsafe fixes; ``diff`` writes nothing.
    """

    def __init__(self, app: Any, argv: list[str], *, unsafe: bool, diff: bool,
                 out: TextIO | None = None) -> None:
        self.options = app.options
        self.checkers = app.plugins.checkers
        self.guide = StyleGuideManager(app.options, _Silent(app.options))
        self.manager = XlaManager(app.guide, app.plugins.checkers, argv)
        self.unsafe, self.diff = unsafe, diff
        self.out = out or sys.stdout
        self.version = _version(app.options)
        self.summary = FixSummary()

    def run(self) -> FixSummary:
        """Fix every file; returns the summary."""
        from flake8 import utils

        if utils.is_using_stdin(self.options.filenames):
            self._stdin()
            return self.summary
        self.manager.start()
        for path in self.manager.filenames:
            self._python(path)
        for path in self.manager.notebook_files:
            self._notebook(path)
        return self.summary

    def _fix(self, filename: str, text: str) -> str:
        from flake8_xla.fixes import fix_until_stable

        lint = _linter(filename, self.checkers, self.options, self.guide)
        result = fix_until_stable(text, lint, version=self.version, unsafe=self.unsafe,
                                  remove_unused=True)
        if result.error:
            self.summary.problems.append(f"{filename}: {result.error}")
        self.summary.hidden_unsafe += result.hidden_unsafe
        if result.text != text:
            self.summary.fixed += result.fixed
            self.summary.files += 1
        return result.text

    def _python(self, path: str) -> None:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            text = decode_python(data)
        except (OSError, UnreadableSource):
            return  # the lint run reports it as XLA001
        encoding = _encoding(data)
        new = self._fix(path, text)
        if new == text:
            return
        if self.diff:
            self.out.write(_diff(text, new, path))
            return
        with open(path, "wb") as handle:
            handle.write(new.encode(encoding))

    def _notebook(self, path: str) -> None:
        try:
            notebook = Notebook.read(path)
        except NotebookError:
            return  # the lint run reports it as XLA001
        if notebook.language != "python" or not notebook.cells:
            return
        module = notebook.module()
        new = self._fix(path, module)
        if new == module:
            return
        try:
            changed = notebook.with_module(new)
        except NotebookError as exc:
            self.summary.problems.append(f"{path}: {exc}; the notebook was left as it was")
            return
        if self.diff:
            for cell in notebook.cells:
                if cell.number in changed:
                    name = cell_filename(path, cell.number)
                    self.out.write(_diff(_ended(cell.source), _ended(changed[cell.number]),
                                         name))
            return
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(notebook.dumps(changed))

    def _stdin(self) -> None:
        from flake8 import utils

        name = self.options.stdin_display_name or "stdin"
        text = utils.stdin_get_value()
        if is_notebook(name):
            self.summary.problems.append("notebooks on stdin are not fixed")
            self.out.write(text)
            return
        new = self._fix(name, text)
        self.out.write(_diff(text, new, name) if self.diff else new)


def _ended(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def _encoding(data: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return "utf-8"
    return encoding
