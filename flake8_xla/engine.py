"""Run the rules on one file: the single entry point of the plugin and the CLI."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable

from flake8_xla.context import Finding, ModuleContext, Options
from flake8_xla.rules import ALL_RULES, Rule

# A rule whose cheap textual trigger is absent from a file cannot fire there.
TRIGGERS: dict[str, tuple[str, ...]] = {
    "XLA101": ("padding", "Collator", "pad_sequence"),
    "XLA201": ("for ", "while "),
    "XLA301": ("backward", "step"),
    "XLA401": ("amp", "autocast", "GradScaler"),
    "XLA402": ("GradScaler",),
    "XLA501": ("cuda",),
}


def lint_tree(tree: ast.Module, source: str, filename: str, options: Options,
              rules: Iterable[type[Rule]] = ALL_RULES) -> list[Finding]:
    """Findings of ``rules`` in one parsed file, sorted by position.

    Never raises for the checked code's sake: a rule that fails on code astroid
    cannot handle contributes no finding (inference failure means "unknown").
    """
    ctx = ModuleContext(tree, source, filename, options)
    if not ctx.is_xla_code:
        return []
    findings: list[Finding] = []
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 10_000))
    try:
        for rule_cls in rules:
            if not any(t in source for t in TRIGGERS.get(rule_cls.code, ("",))):
                continue
            try:
                findings.extend(rule_cls(ctx).check())
            except (RecursionError, MemoryError):
                continue
            except Exception:  # noqa: BLE001 - unknown is never a finding, never a crash
                continue
    finally:
        sys.setrecursionlimit(old_limit)
    return sorted(set(findings))


def lint_source(source: str, filename: str = "<string>", options: Options | None = None
                ) -> list[Finding]:
    """Parse and lint ``source``. Raises SyntaxError/ValueError when it does not parse."""
    tree = ast.parse(source, filename)
    return lint_tree(tree, source, filename, options or Options())
