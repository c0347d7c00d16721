"""Finding flagged/fixed pairs and reading their ``case.toml``.

A case folder (``checks/XLA101``) holds ``flagged.py``, ``fixed.py`` and
``case.toml``.  A suite folder (``checks/``) holds case folders.  Two script paths
form a pair without a case (no claims).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .claims import Claim, ClaimError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 has no tomllib
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None

__all__ = ["CASE_FILE", "Case", "UsageError", "discover", "load_case"]

#: The name of the case description inside a case folder.
CASE_FILE = "case.toml"

_RULE_DIR_RE = re.compile(r"^XLA\d+", re.IGNORECASE)


class UsageError(Exception):
    """The command line names something that cannot be run (exit status 2)."""


@dataclass
class Case:
    """One flagged/fixed pair to run, with its claims.

    Attributes:
        name: the label in progress lines and reports (the rule code for case folders).
        flagged: path of the script with the hazard.
        fixed: path of the script without it.
        rule: rule code such as ``XLA101`` (may be empty for a plain pair).
        title: the case's short ``name`` (``dynamic-padding``), may be empty.
        summary: one-line description, may be empty.
        case_file: the ``case.toml`` read, or None for a plain pair.
        steps: ``[run] steps`` (exported as ``XLA_CHECK_STEPS``), or None.
        timeout: ``[run] timeout`` in seconds per script, or None.
        claims: the claims to verify (empty for a plain pair).
    """

    name: str
    flagged: Path
    fixed: Path
    rule: str = ""
    title: str = ""
    summary: str = ""
    case_file: Path | None = None
    steps: int | None = None
    timeout: float | None = None
    claims: list[Claim] = field(default_factory=list)


def _positive_number(value: object, key: str, where: Path, *, integer: bool) -> int | float:
    kinds: tuple[type, ...] = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
        kind = "a positive integer" if integer else "a positive number"
        raise UsageError(f"{where}: [run] {key} must be {kind}, not {value!r}")
    return value


def _script_in(folder: Path, run: dict[str, object], side: str, where: Path) -> Path:
    named = run.get(side)
    if named is not None:
        if not isinstance(named, str):
            raise UsageError(f"{where}: [run] {side} must be a file name")
        path = folder / named
        if not path.is_file():
            raise UsageError(f"{where}: [run] {side} = {named!r}: no such file {path}")
        return path
    default = folder / f"{side}.py"
    if default.is_file():
        return default
    matches = sorted(p for p in folder.glob(f"*{side}*.py") if p.is_file())
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise UsageError(f"{folder}: no {side}.py script")
    names = ", ".join(p.name for p in matches)
    raise UsageError(f"{folder}: several {side} scripts ({names}); name one in [run] {side}")


def load_case(folder: Path) -> Case:
    """Read ``folder/case.toml`` and locate the pair's scripts.

    The scripts are ``flagged.py`` and ``fixed.py`` unless ``[run] flagged`` /
    ``[run] fixed`` name others.  ``[[expect]]`` tables (linter expectations) are
    ignored.

    Raises:
        UsageError: the file is missing or malformed, a claim is invalid, a claim
            uses ``steps`` without ``[run] steps``... (the message names the file).
    """
    case_file = folder / CASE_FILE
    if tomllib is None:  # pragma: no cover
        raise UsageError(f"{case_file}: reading case.toml needs Python 3.11+ (or tomli)")
    try:
        with case_file.open("rb") as fh:
            data: dict[str, Any] = tomllib.load(fh)
    except FileNotFoundError:
        raise UsageError(f"{folder}: no {CASE_FILE}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{case_file}: invalid TOML: {exc}") from None
    run = data.get("run", {})
    if not isinstance(run, dict):
        raise UsageError(f"{case_file}: [run] must be a table")
    steps = run.get("steps")
    if steps is not None:
        steps = int(_positive_number(steps, "steps", case_file, integer=True))
    timeout = run.get("timeout")
    if timeout is not None:
        timeout = float(_positive_number(timeout, "timeout", case_file, integer=False))
    claims: list[Claim] = []
    raw_claims = data.get("claim", [])
    if not isinstance(raw_claims, list):
        raise UsageError(f"{case_file}: claims are written as [[claim]] tables")
    for number, table in enumerate(raw_claims, start=1):
        if not isinstance(table, dict):
            raise UsageError(f"{case_file}: claim {number} is not a table")
        try:
            claims.append(Claim.from_table(table))
        except ClaimError as exc:
            raise UsageError(f"{case_file}: claim {number}: {exc}") from None
    rule = data.get("rule", "")
    title = data.get("name", "")
    summary = data.get("summary", "")
    for key, value in (("rule", rule), ("name", title), ("summary", summary)):
        if not isinstance(value, str):
            raise UsageError(f"{case_file}: {key} must be a string")
    return Case(
        name=rule or folder.name,
        flagged=_script_in(folder, run, "flagged", case_file),
        fixed=_script_in(folder, run, "fixed", case_file),
        rule=rule,
        title=title,
        summary=" ".join(summary.split()),
        case_file=case_file,
        steps=steps,
        timeout=timeout,
        claims=claims,
    )


def _pair_name(flagged: Path) -> str:
    if flagged.stem == "flagged" and flagged.resolve().parent.name:
        return flagged.resolve().parent.name
    return flagged.stem


def discover(paths: Sequence[str], notes: list[str] | None = None) -> list[Case]:
    """Turn command-line paths into the cases to run.

    Accepted forms: ``FLAGGED.py FIXED.py`` (one pair, no claims); one or more case
    folders (holding ``case.toml``); a suite folder whose subfolders are case folders.
    Rule folders of a suite without ``case.toml`` are skipped, with a line appended
    to *notes* when given.

    Raises:
        UsageError: a path does not exist, the forms are mixed, a case folder is
            incomplete, or a suite holds no case.
    """
    if not paths:
        raise UsageError("give FLAGGED.py FIXED.py, or case folders such as checks/XLA101")
    for raw in paths:
        if not Path(raw).exists():
            raise UsageError(f"no such file or directory: {raw}")
    files = [Path(p) for p in paths if Path(p).is_file()]
    if files:
        if len(paths) != 2 or len(files) != 2:
            raise UsageError(
                "scripts are compared in pairs: give exactly FLAGGED.py FIXED.py "
                "(or folders holding case.toml)"
            )
        flagged, fixed = files
        return [Case(name=_pair_name(flagged), flagged=flagged, fixed=fixed)]
    cases: list[Case] = []
    for raw in paths:
        folder = Path(raw)
        if (folder / CASE_FILE).is_file():
            cases.append(load_case(folder))
            continue
        subfolders = sorted(
            (p for p in folder.iterdir() if p.is_dir() and (p / CASE_FILE).is_file()),
            key=lambda p: p.name,
        )
        if not subfolders:
            skipped = sorted(p.name for p in folder.iterdir()
                             if p.is_dir() and _RULE_DIR_RE.match(p.name))
            hint = f" ({', '.join(skipped)} have no {CASE_FILE})" if skipped else ""
            raise UsageError(f"{folder}: no {CASE_FILE} here nor in its subfolders{hint}")
        cases.extend(load_case(p) for p in subfolders)
        if notes is not None:
            notes.extend(
                f"{p}: no {CASE_FILE}, skipped"
                for p in sorted(folder.iterdir())
                if p.is_dir() and _RULE_DIR_RE.match(p.name) and not (p / CASE_FILE).is_file()
            )
    return cases
