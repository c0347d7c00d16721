"""``[tool.flake8-xla]`` in pyproject.toml, and the XLA part of the flake8 config.

The standalone ``flake8-xla`` command merges, lowest precedence first: the flake8
config (``setup.cfg``, ``tox.ini``, ``.flake8``: read by flake8 itself), the
``[tool.flake8-xla]`` table of the nearest pyproject.toml that has one, and the
command line. Ignore lists and per-file ignores accumulate; ``select``,
``xla-target``, ``xla-version``, ``xla-migrate``, ``format`` and ``docs-url`` are
replaced.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flake8 import utils as flake8_utils
from flake8.defaults import VALID_CODE_PREFIX

from flake8_xla.context import MIGRATIONS, TARGETS
from flake8_xla.facts import check_version as _check_xla_version

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None  # type: ignore[assignment]

TABLE = "flake8-xla"
FORMATS = ("text", "json", "sarif", "github")
#: An XLA code or code prefix as flake8 understands it (``XLA``, ``XLA2``, ``XLA201``).
XLA_CODE = re.compile(r"XLA\d{0,3}")
_TABLE_HEADER = re.compile(r'^\s*\[\s*tool\s*\.\s*"?flake8-xla"?\s*[\].]', re.MULTILINE)
KEYS = frozenset({"select", "extend-select", "ignore", "extend-ignore", "per-file-ignores",
                  "exclude", "extend-exclude", "xla-target", "xla-version", "format",
                  "docs-url", "xla-migrate"})


class ConfigError(ValueError):
    """A malformed setting; the message names the file (or option) and the key."""


@dataclass
class ProjectConfig:
    """The settings of one ``[tool.flake8-xla]`` table (paths already made absolute).

    ``per_file_ignores`` holds ``(pattern, codes)`` pairs; the other list fields hold
    codes or exclude patterns; a field left unset in the file is None or empty.
    """

    path: Path | None = None
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    extend_ignore: list[str] = field(default_factory=list)
    per_file_ignores: list[tuple[str, list[str]]] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    xla_target: str | None = None
    xla_version: str | None = None
    format: str | None = None
    docs_url: str | None = None
    xla_migrate: str | None = None


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` that has a ``[tool.flake8-xla]`` table.

    A pyproject.toml without the table is skipped (as flake8 skips configs without
    a ``[flake8]`` section). Returns None when there is none.
    """
    for directory in (start.resolve(), *start.resolve().parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if TABLE not in text:
                continue
            if _toml is None:
                if _TABLE_HEADER.search(text):
                    _parse(candidate, text)  # raises: tomli is needed
                continue
            if TABLE in _parse(candidate, text).get("tool", {}):
                return candidate
    return None


def _parse(path: Path, text: str) -> dict[str, Any]:
    if _toml is None:
        raise ConfigError(f"{path}: reading [tool.{TABLE}] needs tomli on Python 3.10 "
                          f"(pip install tomli)")
    try:
        return _toml.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


def codes(value: Any, where: str) -> list[str]:
    """A list of error codes from a TOML list or a comma/space separated string.

    Raises :class:`ConfigError` for another type or a code flake8 would reject.
    """
    if isinstance(value, str):
        items = flake8_utils.parse_comma_separated_list(value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = [v.strip() for v in value if v.strip()]
    else:
        raise ConfigError(f"{where}: expected a list of codes, got {value!r}")
    for item in items:
        if not VALID_CODE_PREFIX.match(item):
            raise ConfigError(f"{where}: {item!r} is not an error code (e.g. XLA201)")
    return items


def xla_codes(value: Any, where: str) -> list[str]:
    """Like :func:`codes`, but every code must be an XLA code or prefix (``select``)."""
    items = codes(value, where)
    for item in items:
        if not XLA_CODE.fullmatch(item):
            raise ConfigError(f"{where}: {item!r} is not an XLA code; flake8-xla reports only "
                              f"XLA codes (run flake8 for the others)")
    return items


def check_version(value: Any, where: str) -> str:
    """``value`` if it is a ``major.minor`` string of a release the API facts cover;
    raises :class:`ConfigError` otherwise."""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: expected a quoted version such as \"2.9\", got {value!r}")
    try:
        _check_xla_version(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    return value


def _choice(value: Any, choices: tuple[str, ...], where: str) -> str:
    if value not in choices:
        raise ConfigError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
    return value


def _absolute(pattern: str, base: Path) -> str:
    """Make a pattern with a path separator absolute against ``base`` (flake8's rule)."""
    if pattern == "." or "/" in pattern or os.sep in pattern:
        return os.path.normpath(os.path.join(base, pattern))
    return pattern


def per_file_ignores(value: Any, base: Path | None, where: str) -> list[tuple[str, list[str]]]:
    """``(pattern, codes)`` pairs from a TOML table ``{"pattern" = ["XLA201"]}`` or flake8's
    string form (``"tests/*: XLA201 other.py: XLA5"``). Patterns with a ``/`` are made
    absolute against ``base`` when it is given.

    Raises :class:`ConfigError` for a malformed value.
    """
    pairs: list[tuple[str, list[str]]] = []
    if isinstance(value, Mapping):
        for pattern, listed in value.items():
            pairs.append((pattern, codes(listed, f"{where} {pattern!r}")))
    elif isinstance(value, str):
        try:
            parsed = flake8_utils.parse_files_to_codes_mapping(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from exc
        for pattern, listed in parsed:
            pairs.append((pattern, codes(listed, f"{where} {pattern!r}")))
    else:
        raise ConfigError(f"{where}: expected a table of pattern = [codes], got {value!r}")
    if base is not None:
        pairs = [(_absolute(p, base), c) for p, c in pairs]
    return pairs


def _patterns(value: Any, base: Path, where: str) -> list[str]:
    if isinstance(value, str):
        items = flake8_utils.parse_comma_separated_list(value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        raise ConfigError(f"{where}: expected a list of patterns, got {value!r}")
    return [_absolute(p, base) for p in items]


def load_project_config(path: Path) -> ProjectConfig:
    """Read ``[tool.flake8-xla]`` of ``path``; keys may use ``-`` or ``_``.

    Raises :class:`ConfigError` for unreadable TOML, an unknown key or a bad value.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    table = _parse(path, text).get("tool", {}).get(TABLE, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    cfg = ProjectConfig(path=path)
    base = path.parent
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        where = f"{path} [tool.{TABLE}] {raw_key}"
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key (known: {', '.join(sorted(KEYS))})")
        if key == "select":
            cfg.select = xla_codes(value, where)
        elif key == "extend-select":
            cfg.extend_select += xla_codes(value, where)
        elif key in ("ignore", "extend-ignore"):
            cfg.extend_ignore += codes(value, where)
        elif key == "per-file-ignores":
            cfg.per_file_ignores += per_file_ignores(value, base, where)
        elif key in ("exclude", "extend-exclude"):
            cfg.extend_exclude += _patterns(value, base, where)
        elif key == "xla-target":
            cfg.xla_target = _choice(value, TARGETS, where)
        elif key == "xla-version":
            cfg.xla_version = check_version(value, where)
        elif key == "format":
            cfg.format = _choice(value, FORMATS, where)
        elif key == "xla-migrate":
            cfg.xla_migrate = _choice(value, MIGRATIONS, where)
        elif key == "docs-url":
            if not isinstance(value, str):
                raise ConfigError(f"{where}: expected a URL string, got {value!r}")
            cfg.docs_url = value
    return cfg


def flake8_xla_select(section: Mapping[str, str]) -> list[str]:
    """The XLA entries of a ``[flake8]`` section's ``select`` and ``extend-select``.

    ``X`` and ``XL`` count as ``XLA``; entries for other plugins are dropped. As in
    flake8, ``extend-select`` adds to the selection: with no XLA entry in ``select``, to
    every XLA rule (``extend-select = XLA901`` turns an opt-in rule on beside the others;
    it does not narrow the run to that rule). Empty when the section names no XLA code.
    """
    def xla_entries(keys: tuple[str, ...]) -> list[str]:
        out: list[str] = []
        for key in keys:
            for item in flake8_utils.parse_comma_separated_list(section.get(key, "") or ""):
                if XLA_CODE.fullmatch(item):
                    out.append(item)
                elif item in ("X", "XL"):
                    out.append("XLA")
        return out

    base = xla_entries(("select",))
    extra = xla_entries(("extend-select", "extend_select"))
    if extra and not base:
        base = ["XLA"]
    return list(dict.fromkeys([*base, *extra]))


#: What the ``flake8-xla`` command skips besides flake8's own default excludes: virtual
#: environments, build output and tool caches (ruff's default ``exclude``), so that
#: ``flake8-xla .`` never lints torch_xla's own files inside ``.venv``. ``--exclude``
#: replaces these and flake8's defaults; ``extend-exclude`` adds to them.
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".venv", "venv", ".tox", ".nox", "build", "dist", "site-packages", "node_modules",
    "__pypackages__", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn",
    ".vscode", "_build", "buck-out",
)
