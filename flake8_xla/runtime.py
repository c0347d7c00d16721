"""Run-time evidence for findings: ``flake8-xla --runtime explain.json``.

``python -m perf_validation explain SCRIPT`` writes explain.json, in which every
static finding of the script has a ``runtime`` state: ``confirmed`` (run-time events
were attributed to it), ``not-triggered`` (its line ran and cost nothing) or
``not-run``.  This module reads such files and marks the findings flake8 reports:
a confirmed finding's message gets ``[confirmed at run time: 7 recompilations at
steps 1-7]``, and the SARIF and JSON formats get a ``runtime`` property.

A finding matches an explain.json entry by file (real path), line and code.  An
explain.json written for another version of the file (its ``script_sha256`` differs)
marks nothing and yields a warning.

This module imports neither torch nor the rules.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, MutableSequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CONFIRMED_TEXT", "RuntimeEvidence", "RuntimeFileError", "load_runtime",
           "mark_results"]

#: The words a confirmed finding's message gets (CI searches for them).
CONFIRMED_TEXT = "confirmed at run time"
_STATES = frozenset({"confirmed", "not-triggered", "not-run"})


class RuntimeFileError(Exception):
    """An explain.json that cannot be read or is not an explain report."""


@dataclass
class RuntimeEvidence:
    """What explain.json files say about findings.

    Attributes:
        states: ``(real path, line, code)`` -> the finding's explain.json entry
            (``runtime``, ``cost``, ``shape_changes``...).
        warnings: files that were skipped, and why.
    """

    states: dict[tuple[str, int, str], dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def lookup(self, filename: str, line: int, code: str) -> dict[str, Any] | None:
        """The entry of the finding ``code`` at ``filename:line``, or None."""
        return self.states.get((os.path.realpath(filename), int(line), code))


def _sha256(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def load_runtime(paths: Iterable[str]) -> RuntimeEvidence:
    """Read explain.json files.

    Raises:
        RuntimeFileError: a file is missing, not JSON, or not an explain report.
    """
    evidence = RuntimeEvidence()
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                document = json.load(fh)
        except FileNotFoundError:
            raise RuntimeFileError(f"--runtime: no such file: {path}") from None
        except (OSError, ValueError) as exc:
            raise RuntimeFileError(f"--runtime: cannot read {path}: {exc}") from None
        if not isinstance(document, dict) or not isinstance(document.get("findings"), list) \
                or not isinstance(document.get("script"), str):
            raise RuntimeFileError(f"--runtime: {path} is not an explain.json "
                                   "(python -m perf_validation explain SCRIPT writes one)")
        script = document["script"]
        expected = document.get("script_sha256")
        if expected and _sha256(script) not in (expected, None):
            evidence.warnings.append(f"{path}: {script} changed since it was explained; "
                                     "its findings are not marked (run explain again)")
            continue
        for entry in document["findings"]:
            if not isinstance(entry, dict) or entry.get("runtime") not in _STATES:
                continue
            try:
                key = (os.path.realpath(script), int(entry["line"]), str(entry["code"]))
            except (KeyError, TypeError, ValueError):
                continue
            evidence.states[key] = entry
    return evidence


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def confirmed_note(entry: dict[str, Any]) -> str:
    """``[confirmed at run time: 7 recompilations, steps 1-7]`` for a confirmed entry."""
    cost = entry.get("cost") or {}
    compile_word = "recompilation" if cost.get("compilations") and \
        cost.get("recompilations") == cost.get("compilations") else "compilation"
    parts = [_plural(int(cost[key]), word) for key, word in
             (("compilations", compile_word), ("executions", "execution"),
              ("transfers", "device-to-host transfer")) if cost.get(key)]
    steps = cost.get("steps") or []
    if steps:
        parts.append(f"step {steps[0]}" if len(steps) == 1
                     else f"steps {steps[0]}-{steps[-1]}")
    text = CONFIRMED_TEXT + (": " + ", ".join(parts) if parts else "")
    return f"[{text}]"


def mark_results(results: MutableSequence[Any], evidence: RuntimeEvidence) -> int:
    """Append :func:`confirmed_note` to the text of every confirmed finding.

    Args:
        results: flake8's ``Manager.results``: ``(filename, [(code, line, column, text,
            physical_line)], statistics)`` per file, changed in place.
        evidence: from :func:`load_runtime`.

    Returns:
        How many findings were marked.
    """
    marked = 0
    for index, (filename, file_results, statistics) in enumerate(results):
        changed = []
        for code, line, column, text, physical in file_results:
            entry = evidence.lookup(filename, line, code)
            if entry is not None and entry.get("runtime") == "confirmed" \
                    and CONFIRMED_TEXT not in text:
                text = f"{text} {confirmed_note(entry)}"
                marked += 1
            changed.append((code, line, column, text, physical))
        results[index] = (filename, changed, statistics)
    return marked
