"""Every registered rule is documented, has a checks/ pair and an eval-file test.

``docs/rules.md`` must equal the generator's output: after changing a rule, run
``python -m flake8_xla.docs > docs/rules.md``.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from flake8_xla.docs import (
    find_rule,
    help_uri,
    rule_markdown,
    rules_markdown,
    split_explanation,
    summary,
)
from flake8_xla.rules import ALL_RULES, Rule

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "rules.md"
CHECKS = ROOT / "checks"
EVAL_DIR = ROOT / "tests" / "eval_files"
REGENERATE = "regenerate it: python -m flake8_xla.docs > docs/rules.md"

by_code = pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)


def test_rules_md_is_up_to_date() -> None:
    assert DOCS.is_file(), f"docs/rules.md is missing; {REGENERATE}"
    current, generated = DOCS.read_text(encoding="utf-8"), rules_markdown()
    diff = "".join(list(difflib.unified_diff(current.splitlines(True), generated.splitlines(True),
                                             "docs/rules.md", "generated"))[:40])
    assert current == generated, f"docs/rules.md is out of date; {REGENERATE}\n{diff}"


@by_code
def test_rule_is_documented(rule: type[Rule]) -> None:
    assert summary(rule) and rule.__doc__ and rule.__doc__.startswith(f"{rule.code}: "), \
        f"{rule.code}: the class docstring must start with '{rule.code}: <what it reports>'"
    parts = split_explanation(rule)
    for key in ("why", "example", "use_instead"):
        assert parts[key], f"{rule.code}: the explanation lacks its {key!r} part " \
                           "(text, then **Example** and **Use instead** code blocks)"
    assert "```" in parts["example"] and "```" in parts["use_instead"]
    assert rule.source and all(item.strip() for item in rule.source), \
        f"{rule.code}: list the documents the rule rests on in `source`"
    section = rule_markdown(rule)
    for heading in ("What it does", "Why is this bad?", "Example", "Use instead",
                    "Applies to torch_xla versions", "Source"):
        assert f"\n### {heading}\n" in section
    assert f"\n{section}" in f"\n{DOCS.read_text(encoding='utf-8')}", \
        f"{rule.code} is not documented in docs/rules.md; {REGENERATE}"
    assert help_uri(rule.code) == f"docs/rules.md#{rule.code.lower()}"
    assert f"\n## {rule.code}\n" in f"\n{section}"  # the anchor #xlannn of help_uri
    assert find_rule(rule.name) is rule and find_rule(rule.code.lower()) is rule


@pytest.mark.parametrize("rule", [r for r in ALL_RULES if r.measurable], ids=lambda r: r.code)
def test_rule_has_a_checks_pair(rule: type[Rule]) -> None:
    """Measurable rules only: the TorchTPU band (``measurable = False``) needs a TPU."""
    pair = CHECKS / rule.code
    for name in ("flagged.py", "fixed.py", "case.toml"):
        assert (pair / name).is_file(), f"{rule.code}: checks/{rule.code}/{name} is missing"
    case = tomllib.loads((pair / "case.toml").read_text(encoding="utf-8"))
    assert case.get("rule") == rule.code
    assert any(e.get("code") == rule.code for e in case.get("expect", [])), \
        f"checks/{rule.code}/case.toml has no [[expect]] for {rule.code}"
    claims = case.get("claim", [])
    assert claims, f"checks/{rule.code}/case.toml has no [[claim]]"
    section = rule_markdown(rule)
    for claim in claims:  # the measured claims reach the docs
        assert f"`{claim['metric']}`" in section


@by_code
def test_rule_has_an_eval_file(rule: type[Rule]) -> None:
    files = sorted(EVAL_DIR.glob(f"{rule.code}*.py"))
    assert files, f"{rule.code}: no tests/eval_files/{rule.code}*.py with # error: markers"
    assert any(f"# error: {rule.code}" in f.read_text(encoding="utf-8") for f in files)
