"""The rule registry: every rule class, in code order.

Each module of this package defines rule classes; a class registers itself when its
module is imported (:class:`~flake8_xla.rules.base.Rule`), so adding a rule touches only
its class, its ``checks/`` pair and its eval file.

``ALL_RULES`` are the rules the engine runs on a parsed file. ``FILE_RULES`` are
about the file itself (XLA001: it could not be read or parsed); they are
reported before any rule runs, and never by the engine. ``LISTED_RULES`` is both,
in code order: what ``--list-rules``, the docs and SARIF list.
"""

from __future__ import annotations

import importlib
import pkgutil

from flake8_xla.rules.base import REGISTRY, Rule

for _info in pkgutil.iter_modules(__path__):
    if _info.name != "base":
        importlib.import_module(f"{__name__}.{_info.name}")

ALL_RULES: tuple[type[Rule], ...] = tuple(sorted((r for r in REGISTRY if not r.file_rule),
                                                 key=lambda r: r.code))
FILE_RULES: tuple[type[Rule], ...] = tuple(sorted((r for r in REGISTRY if r.file_rule),
                                                  key=lambda r: r.code))
LISTED_RULES: tuple[type[Rule], ...] = (*FILE_RULES, *ALL_RULES)
RULES_BY_CODE: dict[str, type[Rule]] = {r.code: r for r in LISTED_RULES}

__all__ = ["ALL_RULES", "FILE_RULES", "LISTED_RULES", "RULES_BY_CODE", "Rule"]
