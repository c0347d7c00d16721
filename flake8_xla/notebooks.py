"""Jupyter notebooks (``.ipynb``): their code cells as one Python module.

``flake8-xla NB.ipynb`` lints a notebook's code cells together, as the kernel runs
them, with IPython syntax masked: line magics (``%pip install x``), shell lines
(``!nvidia-smi``, ``files = !ls``), help (``obj?``, ``?obj``) and cell magics
(``%%time`` keeps its Python body; ``%%bash`` and other non-Python cell magics
mask the whole cell). Positions are reported per cell, as nbQA and ruff do:
``NB.ipynb:cell_3:4:5`` is line 4, column 5 of the third *code* cell (markdown
cells are not counted).

The module (:meth:`Notebook.module`) starts every cell with a marker comment, so
that a fixed module splits back into its cells (:meth:`Notebook.with_module`) and
the masked lines are restored; ``--fix`` then rewrites only the ``source`` of the
changed code cells and keeps outputs, metadata, key order and the JSON layout
(indent, escaping, final newline) of the file. Only the standard ``json`` module
is used: nbformat is not needed.
"""

from __future__ import annotations

import json
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SUFFIX = ".ipynb"
#: ``NB.ipynb:cell_3``: how a notebook position is carried in a flake8 file name.
CELL_NAME = re.compile(r"^(?P<path>.*\.ipynb):cell_(?P<cell>\d+)$")
MARKER = "#%% flake8-xla cell {n} %%"
_MARKER = re.compile(r"^#%% flake8-xla cell (\d+) %%\r?\n?$")
_MASK = "pass  # flake8-xla: IPython {n}"
_MASKED = re.compile(r"^([ \t]*)pass  # flake8-xla: IPython (\d+)(\r?\n?)$")
_CELL_MASK = "# flake8-xla: IPython {n}"
_CELL_MASKED = re.compile(r"^# flake8-xla: IPython (\d+)(\r?\n?)$")
#: Cell magics whose body is Python (run by the kernel as such).
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "python",
                                "python3", "px", "autoreload"})
_LINE_MAGIC = re.compile(r"^[ \t]*(?:[%!?]|[\w.\[\]]+[ \t]*\?\??[ \t]*$)")
_ASSIGNED_MAGIC = re.compile(r"^[ \t]*[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*[ \t]*=[ \t]*[!%]")


class NotebookError(ValueError):
    """The notebook cannot be read (not JSON, not nbformat 4); ``str()`` names the problem."""


def is_notebook(path: str) -> bool:
    """True when ``path`` names a notebook (``.ipynb``)."""
    return path.lower().endswith(SUFFIX)


def cell_filename(path: str, cell: int) -> str:
    """``NB.ipynb:cell_3``: the file name a finding in code cell ``cell`` is reported under."""
    return f"{path}:cell_{cell}"


def split_cell(filename: str) -> tuple[str, int | None]:
    """``('NB.ipynb', 3)`` for ``NB.ipynb:cell_3``; ``(filename, None)`` for any other name."""
    m = CELL_NAME.match(filename)
    if m is None:
        return filename, None
    return m.group("path"), int(m.group("cell"))


@dataclass
class JsonStyle:
    """How the file was written: ``json.dumps`` arguments and the final newline."""

    indent: int | str | None = 1
    ensure_ascii: bool = False
    final_newline: bool = True

    @classmethod
    def of(cls, text: str) -> JsonStyle:
        """The style of ``text`` (nbformat's: indent 1, UTF-8 kept, final newline)."""
        lines = text.splitlines()
        indent: int | str | None = None
        if len(lines) > 1:
            second = lines[1]
            spaces = second[:len(second) - len(second.lstrip(" \t"))]
            indent = len(spaces) if spaces and set(spaces) == {" "} else (spaces or None)
        ensure_ascii = text.isascii() and "\\u" in text
        return cls(indent=indent, ensure_ascii=ensure_ascii, final_newline=text.endswith("\n"))

    def dumps(self, data: Any) -> str:
        """``data`` written in this style."""
        separators = (",", ": ") if self.indent is not None else (",", ":")
        out = json.dumps(data, indent=self.indent, ensure_ascii=self.ensure_ascii,
                         separators=separators)
        return out + "\n" if self.final_newline else out


@dataclass
class CodeCell:
    """One code cell: its number (1-based among code cells), its index in ``cells``,
    its source as in the file and as masked for the linter."""

    number: int
    index: int
    source: str
    masked: str


def _joined(source: Any, where: str) -> str:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    raise NotebookError(f"{where}: 'source' is neither a string nor a list of strings")


def _complete(text: str) -> bool:
    """True when ``text`` ends outside any string, bracket or continued line."""
    if text.rstrip("\r\n").endswith("\\"):
        return False
    try:
        for _ in tokenize.generate_tokens(iter(text.splitlines(True)).__next__):
            pass
    except (tokenize.TokenError, SyntaxError):
        return False
    return True


def _line_count(text: str) -> int:
    """Lines ``text`` takes in :meth:`Notebook.module` (a last line without newline counts)."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


@dataclass
class _Masker:
    """Replaces IPython lines by Python of the same line count; keeps the originals."""

    originals: list[str] = field(default_factory=list)

    def _keep(self, line: str) -> int:
        self.originals.append(line)
        return len(self.originals) - 1

    def cell(self, source: str) -> str:
        lines = source.splitlines(True)
        first = next((i for i, line in enumerate(lines) if line.strip()), None)
        if first is not None and lines[first].lstrip().startswith("%%"):
            name = lines[first].lstrip()[2:].split(None, 1)
            if not name or name[0] not in PYTHON_CELL_MAGICS:  # %%bash, %%writefile ...
                return "".join(self._cell_mask(line) for line in lines)
            lines[first] = self._cell_mask(lines[first])
        out: list[str] = []
        continued = False  # the previous masked line ended with a backslash
        for line in lines:
            if continued:
                out.append(self._cell_mask(line))  # a comment: valid at any indentation
            elif (_LINE_MAGIC.match(line) or _ASSIGNED_MAGIC.match(line)) and \
                    _complete("".join(out)):
                body = line.rstrip("\r\n")
                indent = line[:len(line) - len(line.lstrip(" \t"))]
                # At the top level a comment will do (and keeps imports added by --fix
                # below the magics); in a block, ``pass`` keeps the block non-empty.
                out.append(f"{indent}{_MASK.format(n=self._keep(line))}{line[len(body):]}"
                           if indent else self._cell_mask(line))
            else:
                out.append(line)
                continue
            continued = line.rstrip("\r\n").endswith("\\")
        return "".join(out)

    def _cell_mask(self, line: str) -> str:
        ending = line[len(line.rstrip("\r\n")):]
        return f"{_CELL_MASK.format(n=self._keep(line))}{ending}"

    def restore(self, line: str) -> str:
        """``line`` with a mask put back to the IPython line it hid."""
        m = _MASKED.match(line) or _CELL_MASKED.match(line)
        if m is None:
            return line
        n = int(m.group(2) if m.re is _MASKED else m.group(1))
        if n >= len(self.originals):
            return line
        original = self.originals[n]
        ending = m.group(m.lastindex or 0)
        return original.rstrip("\r\n") + ending


@dataclass
class Notebook:
    """A notebook read from ``path``: its JSON data, code cells and file style.

    Raises :class:`NotebookError` (from :meth:`read`/:meth:`loads`) for a file that is
    not JSON or not an nbformat 4 notebook.
    """

    path: str
    data: dict[str, Any]
    cells: list[CodeCell]
    style: JsonStyle
    masker: _Masker

    @classmethod
    def read(cls, path: str) -> Notebook:
        """The notebook at ``path``. Raises NotebookError (also for an OSError)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise NotebookError(f"cannot read the notebook: {type(exc).__name__}: {exc}") \
                from None
        return cls.loads(text, path)

    @classmethod
    def loads(cls, text: str, path: str = "<notebook>") -> Notebook:
        """The notebook in ``text``. Raises NotebookError."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise NotebookError(f"not a notebook: invalid JSON at line {exc.lineno} column "
                                f"{exc.colno}: {exc.msg}") from None
        if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
            if isinstance(data, dict) and "worksheets" in data:
                raise NotebookError(f"nbformat {data.get('nbformat')} notebook: only nbformat 4 "
                                    f"is read (upgrade it: jupyter nbconvert --to notebook "
                                    f"--nbformat 4)")
            raise NotebookError("not a notebook: no 'cells' list")
        masker = _Masker()
        cells: list[CodeCell] = []
        for index, cell in enumerate(data["cells"]):
            if not isinstance(cell, dict):
                raise NotebookError(f"cell {index + 1} is not an object")
            if cell.get("cell_type") != "code":
                continue
            source = _joined(cell.get("source", ""), f"code cell {len(cells) + 1}")
            cells.append(CodeCell(len(cells) + 1, index, source, masker.cell(source)))
        return cls(path, data, cells, JsonStyle.of(text), masker)

    @property
    def language(self) -> str:
        """The kernel's language (``python`` when the notebook does not say)."""
        meta = self.data.get("metadata") or {}
        info = meta.get("language_info") if isinstance(meta, dict) else None
        spec = meta.get("kernelspec") if isinstance(meta, dict) else None
        for entry in (info, spec):
            if isinstance(entry, dict) and isinstance(entry.get("language") or entry.get("name"),
                                                      str):
                name = (entry.get("language") or entry.get("name")).lower()
                return "python" if name.startswith(("python", "ipython")) else name
        return "python"

    def module(self) -> str:
        """The code cells as one module: a marker line, then each masked cell."""
        parts: list[str] = []
        for cell in self.cells:
            parts.append(MARKER.format(n=cell.number) + "\n")
            body = cell.masked
            if body and not body.endswith("\n"):
                body += "\n"
            parts.append(body)
        return "".join(parts)

    def cell_position(self, line: int) -> tuple[int, int]:
        """``(cell number, line in the cell)`` of line ``line`` of :meth:`module`.

        A position on a marker line is line 1 of that cell; one past the end is in
        the last cell.
        """
        marker, cell = 1, None
        for cell in self.cells:
            count = _line_count(cell.masked)
            if line <= marker:
                return cell.number, 1
            if line <= marker + count:
                return cell.number, line - marker
            marker += count + 1
        if cell is None:
            return 1, max(1, line)
        return cell.number, max(1, line - (marker - _line_count(cell.masked) - 1))

    def with_module(self, text: str) -> dict[int, str]:
        """The new source of each code cell that ``text`` (a fixed :meth:`module`) changes.

        Returns ``{cell number: new source}``, IPython lines restored. Raises
        NotebookError when ``text`` lost or reordered the cell markers.
        """
        chunks: dict[int, list[str]] = {}
        order: list[int] = []
        current: list[str] = []
        prelude: list[str] = []
        for line in text.splitlines(True):
            m = _MARKER.match(line)
            if m:
                number = int(m.group(1))
                order.append(number)
                current = chunks.setdefault(number, [])
                continue
            (current if order else prelude).append(self.masker.restore(line))
        if order != [c.number for c in self.cells]:
            raise NotebookError("the fixed code lost its cell boundaries")
        if prelude and order:
            chunks[order[0]][:0] = prelude
        changed: dict[int, str] = {}
        for cell in self.cells:
            new = "".join(chunks[cell.number])
            if not cell.source.endswith("\n") and new.endswith("\n"):
                new = new[:-1]
            if new != cell.source:
                changed[cell.number] = new
        return changed

    def dumps(self, changed: dict[int, str]) -> str:
        """The file's text with the code cells of ``changed`` given their new source."""
        data = self.data
        for cell in self.cells:
            if cell.number not in changed:
                continue
            entry = data["cells"][cell.index]
            new = changed[cell.number]
            entry["source"] = new if isinstance(entry.get("source"), str) else \
                new.splitlines(True)
        return self.style.dumps(data)
