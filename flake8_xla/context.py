"""Per-file state shared by every rule: imports, the XLA gate, lazy astroid."""

from __future__ import annotations

import ast
import importlib.metadata
import re
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from flake8_xla.imports import ImportTable

NEWEST_KNOWN_XLA = (2, 9)
TARGETS = ("auto", "all")


class Finding(NamedTuple):
    """One hazard: 1-based ``line``, 0-based ``col``, ``code`` such as XLA201, one-line ``message``."""

    line: int
    col: int
    code: str
    message: str


def parse_version(text: str) -> tuple[int, int]:
    """``'2.9.0+cpu'`` -> ``(2, 9)``. Raises ValueError when no ``major.minor`` is found."""
    m = re.match(r"\s*(\d+)\.(\d+)", text)
    if not m:
        raise ValueError(f"not a torch_xla version: {text!r} (expected e.g. 2.9)")
    return int(m.group(1)), int(m.group(2))


def installed_xla_version() -> tuple[int, int]:
    """Version of the installed torch_xla distribution (read from metadata, never imported).

    Falls back to the newest release this linter knows (2.9) when it is absent.
    """
    try:
        return parse_version(importlib.metadata.version("torch_xla"))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return NEWEST_KNOWN_XLA


@dataclass(frozen=True)
class Options:
    """User settings: ``target`` is 'auto' or 'all'; ``version`` the targeted torch_xla;
    ``selected``: the codes and prefixes the user selected by name (``--select`` /
    ``--extend-select``), which turn on opt-in rules."""

    target: str = "auto"
    version: tuple[int, int] = NEWEST_KNOWN_XLA
    selected: tuple[str, ...] = ()

    def opts_in(self, code: str) -> bool:
        """An opt-in rule runs when a code or prefix longer than ``XLA`` selects it.

        ``--select=XLA`` (every default rule) does not turn it on;
        ``--extend-select=XLA302`` or ``XLA9`` does, as with flake8-bugbear's B9 band.
        """
        return any(len(s) > 3 and code.startswith(s) for s in self.selected)


class ModuleContext:
    """Everything the rules may ask about one file; each answer is computed once.

    The ast tree comes from flake8. The import table and the XLA gate are cheap
    and syntax-only; the astroid module and its :class:`Analyzer` are built only
    when a rule asks for them, and are None when astroid cannot build the file.
    """

    def __init__(self, tree: ast.Module, source: str, filename: str, options: Options,
                 strict: bool = False) -> None:
        self.tree = tree
        self.source = source
        self.filename = filename
        self.options = options
        #: engine strict mode: an astroid build that fails only from flake8's tree raises
        self.strict = strict

    @cached_property
    def imports(self) -> ImportTable:
        """The module's import table."""
        return ImportTable(self.tree)

    @cached_property
    def is_xla_code(self) -> bool:
        """True when the file is checked: ``--xla-target=all``, or it shows XLA use.

        XLA use is an import of torch_xla (or legacy torch_xla_py), or the string
        ``'xla'`` used as a device.
        """
        if self.options.target == "all":
            return True
        if "xla" not in self.source:
            return False
        if self.imports.imports_prefix("torch_xla") or self.imports.imports_prefix("torch_xla_py"):
            return True
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    node.value == "xla" or node.value.startswith("xla:")):
                return True
        return False

    @cached_property
    def analyzer(self):  # -> Analyzer | None (import kept lazy: astroid is costly to load)
        """The astroid-backed :class:`~flake8_xla.analysis.Analyzer`, or None if astroid fails."""
        try:
            from flake8_xla.analysis import Analyzer, TreeRebuildError, build_module
            module = build_module(self.source, "flake8_xla_checked", self.tree,
                                  strict=self.strict)
            return Analyzer(module, self.imports)
        except TreeRebuildError:  # raised only in strict mode, to be seen
            raise
        except Exception:  # noqa: BLE001 - astroid failure means "unknown", never a crash
            return None

    # Version-aware spellings -------------------------------------------------
    @property
    def sync_api(self) -> str:
        """The step barrier of the targeted torch_xla: ``torch_xla.sync()`` from 2.8 on."""
        return "torch_xla.sync()" if self.options.version >= (2, 8) else "xm.mark_step()"

    @property
    def device_api(self) -> str:
        """The XLA device getter of the targeted torch_xla: ``torch_xla.device()`` from 2.8 on.

        2.8 is the release that deprecated ``xm.xla_device`` (see XLA508).
        """
        return "torch_xla.device()" if self.options.version >= (2, 8) else "xm.xla_device()"
