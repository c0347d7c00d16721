"""The rule registry: every rule class, in code order.

Each module of this package defines rule classes; a class registers itself when its
module is imported (:class:`~flake8_xla.rules.base.Rule`), so adding a rule touches only
its class, its ``checks/`` pair and its eval file.
"""

from __future__ import annotations

import importlib
import pkgutil

from flake8_xla.rules.base import REGISTRY, Rule

for _info in pkgutil.iter_modules(__path__):
    if _info.name != "base":
        importlib.import_module(f"{__name__}.{_info.name}")

ALL_RULES: tuple[type[Rule], ...] = tuple(sorted(REGISTRY, key=lambda r: r.code))
RULES_BY_CODE: dict[str, type[Rule]] = {r.code: r for r in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Rule"]
