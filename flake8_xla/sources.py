"""Reading the checked files as Python reads them, and XLA001 for those it cannot.

A file that cannot be read or parsed is never reported clean: the command and
the plugin turn it into an ``XLA001`` finding that names the error.

- Syntax and tokenizer errors: flake8 reports them as ``E999`` and ``E902``
  and never runs a plugin on such a file. ``flake8-xla`` renames them to
  ``XLA001`` (:func:`unreadable_from_flake8`); plain flake8 users keep E999,
  which is in flake8's default selection (keep ``E9`` selected).
- Unreadable files (permissions, a folder named ``x.py``): flake8's ``E902``,
  renamed the same way.
- Undecodable files: flake8 falls back to latin-1 when a file is not valid in
  its declared encoding (UTF-8 without a coding line), and lints text that
  Python itself refuses to run (``SyntaxError: Non-UTF-8 code starting with
  '\\xe9' ... but no encoding declared``). :func:`encoding_problem` finds
  those; the plugin reports them, under flake8 too.

This module imports neither astroid nor the rules: the plugin calls it on every
file.
"""

from __future__ import annotations

import io
import os
import re
import tokenize

#: The code of "this file could not be checked" (rule class: flake8_xla.rules.files).
UNREADABLE = "XLA001"
#: flake8's own codes for a file it could not parse (E999) or read/tokenize (E902).
FLAKE8_UNREADABLE = frozenset({"E902", "E999"})
MESSAGE = "file not checked: {what}; nothing in it was linted, so it is not clean"


class UnreadableSource(ValueError):
    """A file Python could not read or decode; ``str()`` is the reason, without the path."""


def unreadable_text(what: str) -> str:
    """The XLA001 message (without the code) for the reason ``what``."""
    return MESSAGE.format(what=what.strip().rstrip(".") or "unknown error")


def unreadable_from_flake8(code: str, text: str) -> tuple[str, str]:
    """``(code, text)`` of a flake8 result, with E999/E902 renamed to XLA001.

    ``text`` is flake8's message without the code (``SyntaxError: invalid syntax``);
    other codes come back unchanged.
    """
    if code in FLAKE8_UNREADABLE:
        return UNREADABLE, unreadable_text(text)
    return code, text


def decode_python(data: bytes) -> str:
    """``data`` decoded as Python decodes a source file (PEP 263 coding line, BOM, UTF-8).

    Raises :class:`UnreadableSource` where ``python file.py`` would stop with a
    SyntaxError before running anything: bytes that are not valid in the declared
    (or default UTF-8) encoding, an unknown encoding, a BOM that contradicts the
    coding line.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown encoding, BOM + another coding line, or bad UTF-8
        if _declares_coding(data) or data.startswith(b"\xef\xbb\xbf"):
            raise UnreadableSource(f"bad encoding declaration: {exc.msg}") from None
        encoding = "utf-8"  # bytes in the first two lines that are not UTF-8: said below
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        declared = "declared" if _declares_coding(data) else "default"
        start = getattr(exc, "start", 0)
        bad, line = data[start:start + 1], data[:start].count(b"\n") + 1
        raise UnreadableSource(
            f"not valid {encoding} (the {declared} encoding): byte {bad!r} on line {line}; "
            f"Python refuses to run it (save it as UTF-8, or declare its encoding with a "
            f"'# -*- coding: ... -*-' line)") from None
    if encoding == "utf-8-sig" and text.startswith("\ufeff"):
        text = text[1:]
    return text


_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")  # PEP 263


def _declares_coding(data: bytes) -> bool:
    return any(_CODING.match(line) for line in data.split(b"\n", 2)[:2])


def read_python(path: str) -> str:
    """The text of the Python file ``path``, decoded as Python would.

    Raises :class:`UnreadableSource` naming an OSError (missing, unreadable, a
    folder) or a decoding error (see :func:`decode_python`).
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise UnreadableSource(f"{type(exc).__name__}: {exc.strerror or exc}") from None
    return decode_python(data)


def encoding_problem(filename: str, source: str) -> str | None:
    """Why Python refuses the file that flake8 gave us as ``source``, or None.

    flake8 decodes a file it cannot decode as latin-1 instead. Without a coding
    line in the first two lines that can only yield non-ASCII text of characters
    up to U+00FF whose latin-1 bytes are not UTF-8, so most files cost an
    ``isascii`` check (or one encode). The file is re-read only otherwise, and the
    answer is given only when the bytes on disk are the text flake8 linted (not
    stdin shown under that name).
    """
    first = source.find("\n")
    second = source.find("\n", first + 1) if first >= 0 else -1
    if "coding" not in (source if second < 0 else source[:second]):
        if source.isascii():
            return None
        try:  # latin-1 text holds no character above U+00FF ...
            raw = source.encode("latin-1")
        except UnicodeEncodeError:
            return None  # ... so this text was decoded as UTF-8
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            pass  # e.g. 'é' alone: UTF-8 read right, or latin-1 read of bad UTF-8; ask the disk
        else:
            return None
    if not filename or filename in ("-", "stdin") or filename.endswith(".ipynb") or \
            not os.path.isfile(filename):
        return None
    try:
        with open(filename, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    try:
        decode_python(data)
    except UnreadableSource as exc:
        if data.decode("latin-1").splitlines() == source.splitlines():
            return str(exc)
    return None
