"""flake8's checker manager for the ``flake8-xla`` command: notebooks and XLA001.

:class:`XlaManager` is flake8's own :class:`flake8.checker.Manager` (file discovery,
excludes, parallel jobs, the style guide with ``noqa`` and per-file-ignores) with
two additions:

- Notebooks. ``.ipynb`` files named on the command line or found in the folders
  (with the same excludes) are not handed to flake8 as Python: each is read
  (:class:`flake8_xla.notebooks.Notebook`) and its code cells are checked as one
  module by a :class:`SourceChecker`, in this process. Findings are reported
  under ``NB.ipynb:cell_K`` with the line inside the cell, and per-file-ignores
  apply to the notebook's own path.
- Honest failures. flake8's E999 (syntax error) and E902 (unreadable file or
  tokenizer error) become ``XLA001`` findings, which the command always selects,
  and a notebook that cannot be read is one too. So a file that could not be
  checked makes the run fail with status 1 instead of passing silently.
"""

from __future__ import annotations

import argparse
import operator
from collections.abc import Sequence
from typing import Any

from flake8 import checker, processor
from flake8.discover_files import expand_paths

from flake8_xla.notebooks import Notebook, NotebookError, cell_filename, is_notebook
from flake8_xla.sources import UNREADABLE, unreadable_from_flake8, unreadable_text

Result = tuple[str, int, int, str, "str | None"]
_NO_STATISTICS = {"tokens": 0, "logical lines": 0, "physical lines": 0}


class SourceChecker(checker.FileChecker):
    """flake8's FileChecker for ``filename``, on the ``lines`` given instead of the file's.

    ``lines`` keep their line endings (``text.splitlines(True)``).
    """

    def __init__(self, *, filename: str, lines: list[str], plugins: Any,
                 options: argparse.Namespace) -> None:
        self._given_lines = lines
        super().__init__(filename=filename, plugins=plugins, options=options)

    def _make_processor(self) -> processor.FileProcessor | None:
        return processor.FileProcessor(self.filename, self.options, lines=self._given_lines)


def check_notebook(path: str, plugins: Any, options: argparse.Namespace
                   ) -> tuple[Notebook | None, tuple[str, list[Result], dict[str, int]]]:
    """flake8's results for the code cells of the notebook ``path``, in module lines.

    Returns ``(notebook, (path, results, statistics))``; the notebook is None when it
    could not be read (the results then hold its XLA001) or is not a Python notebook
    (no results).
    """
    try:
        notebook = Notebook.read(path)
    except NotebookError as exc:
        return None, (path, [(UNREADABLE, 1, 0, unreadable_text(str(exc)), None)],
                      dict(_NO_STATISTICS))
    if notebook.language != "python" or not notebook.cells:
        return None, (path, [], dict(_NO_STATISTICS))
    lines = notebook.module().splitlines(True)
    _, results, statistics = SourceChecker(filename=path, lines=lines, plugins=plugins,
                                           options=options).run_checks()
    return notebook, (path, results, statistics)


class XlaManager(checker.Manager):
    """flake8's Manager, plus notebooks and XLA001 (see the module docstring)."""

    def __init__(self, style_guide: Any, plugins: Any, argv: Sequence[str]) -> None:
        super().__init__(style_guide=style_guide, plugins=plugins, argv=argv)
        self.notebook_files: tuple[str, ...] = ()
        self.notebooks: dict[str, Notebook] = {}

    def start(self) -> None:
        """Discover the files as flake8 does, and the notebooks beside them."""
        super().start()
        named = [f for f in self.filenames if is_notebook(f)]
        self.filenames = tuple(f for f in self.filenames if not is_notebook(f))
        paths = [p for p in self.options.filenames if p != "-"]
        # (``flake8-xla -`` reads stdin only: no path left must not become flake8's ".")
        found = expand_paths(paths=paths, stdin_display_name=self.options.stdin_display_name,
                             filename_patterns=("*.ipynb", "*.IPYNB"), exclude=self.exclude
                             ) if paths or not self.options.filenames else []
        self.notebook_files = tuple(dict.fromkeys([*named, *(f for f in found
                                                             if is_notebook(f))]))
        self.jobs = min(len(self.filenames), self.jobs)

    def run(self) -> None:
        """Check the Python files (flake8's way, in parallel), then each notebook."""
        super().run()
        for path in self.notebook_files:
            notebook, result = check_notebook(path, self.plugins, self.options)
            if notebook is not None:
                self.notebooks[path] = notebook
            self.results.append(result)

    def stop(self) -> None:
        """Count the notebooks among the checked files in the statistics."""
        self.filenames = (*self.filenames, *self.notebook_files)
        super().stop()

    def report(self) -> tuple[int, int]:
        """Hand every result to the style guide; ``(results found, results reported)``."""
        reported = found = 0
        self.results.sort(key=operator.itemgetter(0))
        for filename, results, _ in self.results:
            results.sort(key=operator.itemgetter(1, 2))
            with self.style_guide.processing_file(filename):
                reported += self.handle_results(filename, results)
            found += len(results)
        return found, reported

    def handle_results(self, filename: str, results: list[Result]) -> int:
        """Report ``results`` of ``filename``: E999/E902 as XLA001, notebook lines per cell.

        Returns how many the style guide reported (selected and not ``noqa``).
        """
        notebook = self.notebooks.get(filename)
        guide = self.style_guide.style_guide_for(filename) if notebook else self.style_guide
        count = 0
        for code, line, column, text, physical_line in results:
            code, text = unreadable_from_flake8(code, text)
            shown = filename
            if notebook is not None:
                cell, line = notebook.cell_position(line)
                shown = cell_filename(filename, cell)
            count += guide.handle_error(code=code, filename=shown, line_number=line,
                                        column_number=column, text=text,
                                        physical_line=physical_line)
        return count
