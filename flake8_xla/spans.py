"""Source ranges for findings: flake8 reports a start only, editors and SARIF want a range.

The range is that of the outermost syntax node starting at the reported position
(the call, keyword value or statement a rule flagged); a compound statement
(``for``, ``while``, ``with``, ``if``, ``def`` ...) is cut to its header. The file
is parsed with :func:`ast.parse` only, never imported or run.
"""

from __future__ import annotations

import ast
import tokenize
from typing import NamedTuple

_HEADER_END = {
    ast.For: lambda n: n.iter, ast.AsyncFor: lambda n: n.iter,
    ast.While: lambda n: n.test, ast.If: lambda n: n.test,
    ast.With: lambda n: n.items[-1].optional_vars or n.items[-1].context_expr,
    ast.AsyncWith: lambda n: n.items[-1].optional_vars or n.items[-1].context_expr,
}
_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try, ast.Match)


class Span(NamedTuple):
    """A source range: 1-based lines, 1-based columns counted in characters (code points).

    ``end_column`` is exclusive (the column after the last character), as in SARIF.
    """

    line: int
    column: int
    end_line: int
    end_column: int


def read_source(filename: str) -> str | None:
    """The text of ``filename`` decoded as Python source (PEP 263), or None if unreadable."""
    try:
        with tokenize.open(filename) as f:
            return f.read()
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return None


def _char_col(line_text: str, byte_col: int) -> int:
    """0-based character column of the 0-based UTF-8 byte offset ``byte_col`` in a line."""
    encoded = line_text.encode("utf-8")
    if byte_col > len(encoded):  # past the end of the line (or unknown text): keep the offset
        return len(line_text) + byte_col - len(encoded)
    return len(encoded[:max(byte_col, 0)].decode("utf-8", errors="ignore"))


class SourceSpans:
    """Ranges of the nodes of one file, keyed by their start position.

    Built from the source text; a file that does not parse gives fallback ranges.
    """

    def __init__(self, source: str | None) -> None:
        self.lines = (source or "").splitlines()
        self._ends: dict[tuple[int, int], tuple[int, int]] = {}
        if source is None:
            return
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return
        for node in ast.walk(tree):
            if not hasattr(node, "lineno") or getattr(node, "end_lineno", None) is None:
                continue
            key = (node.lineno, node.col_offset)
            end = self._node_end(node)
            if key not in self._ends or end > self._ends[key]:
                self._ends[key] = end

    def _node_end(self, node: ast.AST) -> tuple[int, int]:
        """(end line, end byte offset) of ``node``; compound statements end with their header."""
        for kind, part in _HEADER_END.items():
            if isinstance(node, kind):
                last = part(node)
                return last.end_lineno, last.end_col_offset
        if isinstance(node, _COMPOUND):
            text = self._line(node.lineno)
            return node.lineno, len(text.rstrip().encode("utf-8"))
        return node.end_lineno, node.end_col_offset

    def _line(self, lineno: int) -> str:
        return self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""

    def span(self, line: int, column: int) -> Span:
        """The range of the finding reported at flake8's ``line`` and 1-based byte ``column``.

        Falls back to one character at the start when no node starts there.
        """
        byte_col = max(column - 1, 0)
        start_text = self._line(line)
        start = _char_col(start_text, byte_col) + 1
        end = self._ends.get((line, byte_col))
        if end is None:
            return Span(line, start, line, start + 1)
        end_line, end_byte = end
        end_col = _char_col(self._line(end_line), end_byte) + 1
        if (end_line, end_col) <= (line, start):
            end_line, end_col = line, start + 1
        return Span(line, start, end_line, end_col)

