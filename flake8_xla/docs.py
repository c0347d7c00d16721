"""Rule documentation generated from the rule classes (``docs/rules.md``, ``--explain``).

Regenerate the reference with::

    python -m flake8_xla.docs > docs/rules.md

Every section comes from the registered rule classes (:data:`flake8_xla.rules.LISTED_RULES`):
the class docstring (summary and ``Source:`` paragraph), ``message``, ``explanation``
(split at its ``**Example**`` and ``**Use instead**`` markers), ``fix`` with the
rule's text in :data:`flake8_xla.fixes.FIX_SAFETY` (the "Fix safety" section),
``versions`` and ``source``. The measured numbers come from ``checks/XLAnnn/case.toml`` (its summary,
``[[claim]]`` tables and comments) when the checks folder is present (a source checkout).
"""

from __future__ import annotations

import ast
import inspect
import re
import string
import sys
from pathlib import Path
from typing import Any

from flake8_xla.context import NEWEST_KNOWN_XLA, ModuleContext, Options
from flake8_xla.fixes import FIX_SAFETY, SAFE, UNSAFE
from flake8_xla.rules import LISTED_RULES, RULES_BY_CODE, Rule

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None  # type: ignore[assignment]

#: Where ``helpUri`` and the JSON ``url`` point by default: the rule reference relative
#: to the repository root (set ``--xla-docs-url`` / ``docs-url`` for an absolute URL).
DEFAULT_DOCS_URL = "docs/rules.md"
#: The ``checks/`` folder of a source checkout (absent from an installed wheel).
CHECKS_DIR = Path(__file__).resolve().parent.parent / "checks"

_MARKER = re.compile(r"^\*\*(Example|Use instead)\*\*[ \t]*", re.MULTILINE)
_CODE_PREFIX = re.compile(r"^XLA\d{3}\s*:\s*")


class UnknownRuleError(KeyError):
    """Raised by :func:`find_rule` for a code or name that no registered rule has."""


def find_rule(code_or_name: str) -> type[Rule]:
    """The rule registered as ``code_or_name`` (code such as ``xla101`` or kebab-case name).

    Raises :class:`UnknownRuleError` when no registered rule matches.
    """
    key = code_or_name.strip()
    rule = RULES_BY_CODE.get(key.upper())
    if rule is not None:
        return rule
    for rule in LISTED_RULES:
        if rule.name == key.lower():
            return rule
    raise UnknownRuleError(key)


def help_uri(code: str, base: str | None = None) -> str:
    """URL of ``code``'s section in the rule reference: ``{base}#{code lowercased}``.

    ``base`` defaults to :data:`DEFAULT_DOCS_URL` (relative to the repository root).
    """
    base = base or DEFAULT_DOCS_URL
    return f"{base.split('#', 1)[0]}#{code.lower()}"


def _docstring_parts(rule: type[Rule]) -> tuple[str, str]:
    """(summary sentence, ``Source:`` paragraph) of the rule's class docstring."""
    doc = inspect.cleandoc(rule.__doc__ or "")
    paragraphs = [p.strip() for p in doc.split("\n\n") if p.strip()]
    summary = _CODE_PREFIX.sub("", paragraphs[0]).replace("\n", " ") if paragraphs else ""
    source = ""
    for para in paragraphs[1:]:
        if para.startswith("Source:"):
            source = para[len("Source:"):].strip()
    return _rst_to_md(summary), _rst_to_md(" ".join(source.split()))


def _rst_to_md(text: str) -> str:
    return text.replace("``", "`")


def summary(rule: type[Rule]) -> str:
    """One sentence saying what ``rule`` reports (from the first docstring paragraph)."""
    text = _docstring_parts(rule)[0]
    if text.startswith(("torch.", "torch_")):
        return text  # (a package's name keeps its spelling: ``torch_xla world size``)
    return text[:1].upper() + text[1:] if text else rule.name.replace("-", " ")


class _Placeholders(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _api_spellings() -> dict[str, list[tuple[tuple[int, int], str]]]:
    """For each version-dependent message field, the spelling and the first version using it.

    Derived from :class:`ModuleContext`'s ``sync_api``/``device_api`` by scanning
    torch_xla 2.0 .. the newest known release, so the docs follow the code.
    """
    empty = ast.Module(body=[], type_ignores=[])
    out: dict[str, list[tuple[tuple[int, int], str]]] = {}
    for field, attr in (("sync", "sync_api"), ("device", "device_api")):
        changes: list[tuple[tuple[int, int], str]] = []
        for minor in range(NEWEST_KNOWN_XLA[1] + 1):
            version = (NEWEST_KNOWN_XLA[0], minor)
            spelled = getattr(ModuleContext(empty, "", "<docs>", Options(version=version)), attr)
            if not changes or changes[-1][1] != spelled:
                changes.append((version, spelled))
        out[field] = changes
    return out


def message_template(rule: type[Rule]) -> str:
    """The rule's message as reported for the newest known torch_xla.

    ``{sync}`` and ``{device}`` are spelled for that release; the per-finding fields
    (``{what}`` ...) stay as they are.
    """
    ctx = ModuleContext(ast.Module(body=[], type_ignores=[]), "", "<docs>", Options())
    fields = _Placeholders(sync=ctx.sync_api, device=ctx.device_api)
    return f"{rule.code} " + rule.message.format_map(fields)


def _message_intro(rule: type[Rule]) -> str:
    fields = [name for _, name, _, _ in string.Formatter().parse(rule.message)
              if name and name not in ("sync", "device")]
    fields = list(dict.fromkeys(fields))
    if not fields:
        return "Message:"
    listed = ", ".join(f"`{{{name}}}`" for name in fields)
    return f"Message ({listed} {'is' if len(fields) == 1 else 'are'} filled in per finding):"


def split_explanation(rule: type[Rule]) -> dict[str, str]:
    """The rule's ``explanation`` cut at ``**Example**`` / ``**Use instead**``.

    Returns ``{'why': ..., 'example': ..., 'use_instead': ...}``; a part the
    explanation lacks is the empty string.
    """
    text = inspect.cleandoc(rule.explanation or "")
    parts = {"why": "", "example": "", "use_instead": ""}
    pieces = _MARKER.split(text)
    parts["why"] = pieces[0].strip()
    for label, body in zip(pieces[1::2], pieces[2::2]):
        key = "example" if label == "Example" else "use_instead"
        parts[key] = body.strip()
    return parts


def _load_case(code: str, checks_dir: Path | None) -> dict[str, Any] | None:
    if checks_dir is None or _toml is None:
        return None
    path = checks_dir / code / "case.toml"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    try:
        data = _toml.loads(text)
    except ValueError:
        return None
    data["_comments"] = _comment_blocks(text)
    return data


def _comment_blocks(text: str) -> list[str]:
    """Blocks of consecutive full-line ``#`` comments of a TOML file (inline ones are skipped)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            current.append(stripped[1:].rstrip()[1:] if stripped[1:2] == " " else
                           stripped[1:].rstrip())
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return ["\n".join(b) for b in blocks]


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def measured(rule: type[Rule], checks_dir: Path | None = CHECKS_DIR) -> str:
    """Markdown with the measured numbers of ``checks/<code>/case.toml``, or '' without one.

    Lists the case summary, the ``[[claim]]`` table (metric, flagged, fixed, why) and
    the file's comment blocks, which hold the numbers measured by ``perf_validation``.
    """
    case = _load_case(rule.code, checks_dir)
    if case is None:
        return ""
    out = [f"Measured with the script pair in `checks/{rule.code}/` "
           f"(`python -m perf_validation checks/{rule.code}`)"
           + (f": {case['summary']}." if case.get("summary") else ".")]
    claims = case.get("claim") or []
    if claims:
        out += ["", "| metric | flagged | fixed | why |", "| --- | --- | --- | --- |"]
        for claim in claims:
            out.append(f"| `{_cell(claim.get('metric', ''))}` | `{_cell(claim.get('flagged', ''))}`"
                       f" | `{_cell(claim.get('fixed', ''))}` | {_cell(claim.get('why', ''))} |")
    comments = case["_comments"]
    if comments:
        out += ["", "Notes from `case.toml`:", "", "```text", "\n\n".join(comments), "```"]
    return "\n".join(out)


def _version_text(rule: type[Rule]) -> str:
    versions = (rule.versions or "all").strip()
    lines = ["All torch_xla versions." if versions == "all" else f"torch_xla {versions}."]
    spellings = _api_spellings()
    for field, what in (("sync", "step barrier"), ("device", "device getter")):
        changes = spellings[field]
        if "{" + field + "}" not in rule.message or len(changes) < 2:
            continue
        described = []
        for i, (version, spelled) in enumerate(changes):
            if i + 1 < len(changes):
                nxt = changes[i + 1][0]
                described.append(f"`{spelled}` before {nxt[0]}.{nxt[1]}")
            else:
                described.append(f"`{spelled}` from {version[0]}.{version[1]} on")
        lines.append(f"The message names the {what} of the targeted release "
                     f"(`--xla-version`): {', '.join(described)}.")
    return " ".join(lines)


def fix_safety(rule: type[Rule]) -> str:
    """The "Fix safety" paragraph of ``rule``: its fix kind and what the fix does.

    Raises ValueError for a ``fix`` that is not ``safe``, ``unsafe`` or ``none``.
    """
    kind = getattr(rule, "fix", "none")
    detail = FIX_SAFETY.get(rule.code, "")
    if kind == SAFE:
        head = "Safe fix: `flake8-xla --fix` applies it (`--diff` shows it first)."
    elif kind == UNSAFE:
        head = ("Unsafe fix: applied only with `flake8-xla --fix --unsafe-fixes`, because it "
                "changes behaviour you must review.")
    elif kind == "none":
        return "No automatic fix: `flake8-xla --fix` leaves this finding to you."
    else:
        raise ValueError(f"{rule.code}: fix = {kind!r}, expected 'safe', 'unsafe' or 'none'")
    return f"{head} {detail}".strip()


def rule_markdown(rule: type[Rule], checks_dir: Path | None = CHECKS_DIR) -> str:
    """The reference section of one rule (markdown, starts with ``## XLAnnn``).

    This is the text ``flake8-xla --explain XLAnnn`` prints and the SARIF ``help``.
    """
    parts = split_explanation(rule)
    what = summary(rule)
    raw_summary, doc_source = _docstring_parts(rule)  # as the author wrote it ("a ...")
    out = [f"## {rule.code}", "", f"Name: `{rule.name}`", "",
           "### What it does", "",
           f"Reports {raw_summary}" if raw_summary else what, "",
           _message_intro(rule), "",
           "```text", message_template(rule), "```", ""]
    if rule.migrate_message:
        out += ["Under `--xla-migrate=torchtpu` (TorchTPU's terms):", "",
                "```text", f"{rule.code} {rule.migrate_message}", "```", ""]
    out += ["### Why is this bad?", "", parts["why"] or "_Not documented yet._"]
    numbers = measured(rule, checks_dir)
    if numbers:
        out += ["", numbers]
    out += ["", "### Example", "", parts["example"] or "_Not documented yet._",
            "", "### Use instead", "", parts["use_instead"] or "_Not documented yet._",
            "", "### Fix safety", "", fix_safety(rule),
            "", "### Applies to torch_xla versions", "", _version_text(rule),
            "", "### Source", ""]
    if doc_source:
        out += [doc_source, ""]
    out += [f"- <{item}>" if re.match(r"https?://\S+$", item) else f"- {item}"
            for item in rule.source] or ["_No source listed._"]
    return "\n".join(out).rstrip() + "\n"


def rules_markdown(checks_dir: Path | None = CHECKS_DIR) -> str:
    """The whole ``docs/rules.md``: a header, an index table and one section per rule."""
    out = ["# flake8-xla rules", "",
           ("<!-- Generated by `python -m flake8_xla.docs > docs/rules.md` from the rule "
            "classes and checks/*/case.toml; do not edit by hand. -->"), "",
           ("Every rule has a runnable flagged/fixed pair in `checks/XLAnnn/` whose claims "
            "`python -m perf_validation` verifies under torch_xla, except the TorchTPU "
            "migration band XLA6xx (off unless `--xla-migrate=torchtpu`), which cannot be "
            "measured without a TPU. `flake8-xla --explain XLAnnn` prints one section."), "",
           ("Unit tests are not training steps: inside what pytest or unittest collects "
            "(a `test*` function of a `test_*.py` file, a `TestCase` subclass or a pytest "
            "`Test*` class), only XLA001, XLA507, XLA508 and the XLA6xx band report "
            "(see `flake8_xla/testcode.py`)."), "",
           "| code | name | what it reports |", "| --- | --- | --- |"]
    for rule in LISTED_RULES:
        out.append(f"| [{rule.code}](#{rule.code.lower()}) | {rule.name} | {_cell(summary(rule))} |")
    out.append("")
    for rule in LISTED_RULES:
        out += [rule_markdown(rule, checks_dir)]
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    """Print ``docs/rules.md`` to stdout; returns the exit status (0)."""
    sys.stdout.write(rules_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
