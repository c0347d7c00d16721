"""flake8 report plugins (``flake8.report``): JSON, SARIF 2.1.0 and GitHub annotations.

Registered as ``xla-json``, ``xla-sarif``, ``xla-github`` (the names ``flake8-xla``
uses) and, for plain flake8 users, ``json``, ``sarif`` and ``github``::

    flake8 --select=XLA --format=sarif src/ > flake8-xla.sarif

A finding in a notebook comes from ``flake8-xla`` under the file name
``NB.ipynb:cell_K`` (:mod:`flake8_xla.notebooks`): the text format prints it as
it is (``NB.ipynb:cell_3:4:5: XLA201 ...``, as nbQA and ruff do); JSON gives the
notebook's path in ``filename`` and the code cell in ``cell``; SARIF puts the
cell in the result's ``properties`` and the line inside the cell in the region;
GitHub annotations name the cell in their title.

They format any flake8 violation; XLA codes carry their rule name and a link to
``docs/rules.md``. Columns in these formats count characters (1-based; SARIF
``columnKind`` is ``unicodeCodePoints``), and every result has an end position
computed by :mod:`flake8_xla.spans`.

flake8 imports every installed report plugin on every run, whatever ``--format``
says, so this module imports the rules (and astroid with them) and the docs
only when a formatter of ours first needs a rule: a plain ``flake8`` run stays
as light as the plugin's ``auto`` gate makes it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote, urlsplit

from flake8 import utils as flake8_utils
from flake8.formatting.base import BaseFormatter
from flake8.violation import Violation

from flake8_xla import __version__
from flake8_xla.notebooks import Notebook, NotebookError, split_cell
from flake8_xla.spans import SourceSpans, Span, read_source

SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
SRCROOT = "%SRCROOT%"
DEFAULT_LEVEL = "warning"


def _rules() -> ModuleType:
    """:mod:`flake8_xla.rules` (``ALL_RULES``, ``RULES_BY_CODE``), imported on first
    use: it loads astroid."""
    import flake8_xla.rules

    return flake8_xla.rules


def rule_level(code: str) -> str:
    """SARIF level of ``code``: the rule class's ``level`` attribute, else ``'warning'``."""
    rule = _rules().RULES_BY_CODE.get(code)
    return getattr(rule, "level", DEFAULT_LEVEL) if rule is not None else DEFAULT_LEVEL


def display_path(filename: str) -> str:
    """``filename`` relative to the working directory with ``/`` separators.

    A file outside the working directory keeps its absolute path.
    """
    path = os.path.abspath(filename)
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        rel = path
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        rel = path
    return rel.replace(os.sep, "/")


class _XlaFormatter(BaseFormatter):
    """Shared parts: the ``--xla-docs-url`` option, source ranges per file."""

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        """Register ``--xla-docs-url`` once (several report names share these classes)."""
        if "xla-docs-url" in option_manager.config_options_dict:
            return
        option_manager.add_option(
            "--xla-docs-url", default=None, parse_from_config=True,
            help="base URL of the flake8-xla rule reference used in JSON url and, when "
                 "absolute, SARIF helpUri (default: docs/rules.md, relative to the "
                 "flake8-xla repository; SARIF then has no helpUri)")

    def after_init(self) -> None:
        self._spans: dict[str, SourceSpans] = {}
        self.docs_url: str | None = getattr(self.options, "xla_docs_url", None)
        #: ``flake8-xla --runtime``: a :class:`flake8_xla.runtime.RuntimeEvidence`, or None.
        self.runtime: Any = getattr(self.options, "xla_runtime", None)

    def runtime_state(self, error: Violation) -> dict[str, Any] | None:
        """``{"state", "compilations", "executions", "transfers", "steps"}`` of ``error``
        from ``--runtime`` explain.json files, or None."""
        if self.runtime is None:
            return None
        entry = self.runtime.lookup(error.filename, error.line_number, error.code)
        if entry is None:
            return None
        cost = entry.get("cost") or {}
        return {"state": entry.get("runtime"),
                **{k: cost.get(k) for k in ("compilations", "executions", "transfers",
                                            "steps")}}

    def span(self, error: Violation) -> Span:
        """The character range of ``error`` (the file is parsed once, never imported)."""
        spans = self._spans.get(error.filename)
        if spans is None:
            spans = self._spans[error.filename] = SourceSpans(self._source(error.filename))
        return spans.span(error.line_number, error.column_number)

    def _source(self, filename: str) -> str | None:
        path, cell = split_cell(filename)
        if cell is not None:
            try:
                cells = Notebook.read(path).cells
            except NotebookError:
                return None
            return cells[cell - 1].masked if 0 < cell <= len(cells) else None
        if flake8_utils.is_using_stdin(list(getattr(self.options, "filenames", []) or [])) and \
                filename == getattr(self.options, "stdin_display_name", "stdin"):
            return flake8_utils.stdin_get_value()
        return read_source(filename)


class _DocumentFormatter(_XlaFormatter):
    """A formatter that writes one document when the run ends."""

    def after_init(self) -> None:
        super().after_init()
        self.violations: list[Violation] = []

    def start(self) -> None:
        """Open ``--output-file`` for writing (replacing it: one document per file)."""
        if self.filename:
            os.makedirs(os.path.dirname(os.path.abspath(self.filename)), exist_ok=True)
            self.output_fd = open(self.filename, "w", encoding="utf-8")  # noqa: SIM115

    def handle(self, error: Violation) -> None:
        """Collect ``error``; the document is written by :meth:`stop`."""
        self.violations.append(error)

    def format(self, error: Violation) -> str | None:  # pragma: no cover - handle() is used
        """Unused: documents are written whole by :meth:`stop`."""
        return None

    def show_statistics(self, statistics: Any) -> None:
        """No statistics inside a JSON document."""

    def show_benchmarks(self, benchmarks: list[tuple[str, float]]) -> None:
        """No benchmarks inside a JSON document."""

    def document(self) -> Any:
        """The JSON-serialisable document for :attr:`violations`."""
        raise NotImplementedError

    def stop(self) -> None:
        """Write the document, then close the output file."""
        self._write(json.dumps(self.document(), indent=2, ensure_ascii=False))
        super().stop()


class JsonFormatter(_DocumentFormatter):
    """``--format=xla-json``: a JSON array, one object per finding.

    Keys: ``filename`` (as flake8 reports it), ``line``, ``column``, ``end_line``,
    ``end_column`` (1-based, characters, end exclusive), ``code``, ``name`` (the rule's
    kebab-case name, or null for a non-XLA code), ``message`` (without the code) and
    ``url`` (the rule's docs, or null). A finding in a notebook also has ``cell`` (the
    code cell, counted from 1) and its lines count inside that cell. With
    ``flake8-xla --runtime explain.json``, a finding that explain.json knows also gets
    ``runtime``: ``state`` (``confirmed``, ``not-triggered``, ``not-run``) and its
    measured ``compilations``, ``executions``, ``transfers`` and ``steps``.
    """

    def document(self) -> list[dict[str, Any]]:
        """The findings as a list of dicts, in flake8's report order."""
        from flake8_xla.docs import help_uri

        by_code = _rules().RULES_BY_CODE
        out = []
        for error in self.violations:
            span = self.span(error)
            rule = by_code.get(error.code)
            path, cell = split_cell(error.filename)
            record = {
                "filename": path, "line": span.line, "column": span.column,
                "end_line": span.end_line, "end_column": span.end_column, "code": error.code,
                "name": rule.name if rule else None, "message": error.text,
                "url": help_uri(error.code, self.docs_url) if rule else None,
            }
            if cell is not None:
                record["cell"] = cell
            runtime = self.runtime_state(error)
            if runtime is not None:
                record["runtime"] = runtime
            out.append(record)
        return out


def artifact_location(filename: str) -> dict[str, str]:
    """SARIF artifactLocation: a percent-encoded URI relative to ``%SRCROOT%`` (the cwd).

    Files outside the working directory get an absolute ``file://`` URI.
    """
    shown = display_path(filename)
    if os.path.isabs(shown):
        return {"uri": Path(shown).as_uri()}
    return {"uri": quote(shown), "uriBaseId": SRCROOT}


def sarif_rule(code: str, docs_url: str | None = None) -> dict[str, Any]:
    """The SARIF reportingDescriptor of ``code`` (minimal for a non-XLA code).

    ``helpUri`` is written only for a ``docs_url`` that is an absolute URI: SARIF 2.1.0
    types it ``format: uri`` (RFC 3986, absolute), and the default rule reference,
    ``docs/rules.md``, is relative to the flake8-xla repository; the descriptor's
    ``help`` carries the whole reference text either way."""
    from flake8_xla.docs import help_uri, message_template, rule_markdown, summary

    rule = _rules().RULES_BY_CODE.get(code)
    if rule is None:
        return {"id": code, "defaultConfiguration": {"level": DEFAULT_LEVEL}}
    markdown = rule_markdown(rule)
    descriptor: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": summary(rule)},
        "fullDescription": {"text": message_template(rule)},
        "help": {"text": markdown, "markdown": markdown},
    }
    if docs_url and urlsplit(docs_url).scheme:
        descriptor["helpUri"] = help_uri(rule.code, docs_url)
    descriptor["defaultConfiguration"] = {"level": rule_level(rule.code)}
    descriptor["properties"] = {"tags": ["performance", "pytorch-xla"]}
    return descriptor


class SarifFormatter(_DocumentFormatter):
    """``--format=xla-sarif`` / ``--format=sarif``: a SARIF 2.1.0 log with one run.

    ``tool.driver.rules`` lists every registered rule (plus any other code reported);
    results carry ``ruleId``/``ruleIndex``, a level, the message and a region with
    start and end line/column; artifact URIs are relative to ``%SRCROOT%``, the
    working directory, given in ``originalUriBaseIds``. With ``flake8-xla --runtime``,
    a result known to explain.json gets ``properties.runtime`` (as in the JSON format)
    and a confirmed one ends its message with ``[confirmed at run time: ...]``.
    """

    def document(self) -> dict[str, Any]:
        """The SARIF log as a dict."""
        rules = [sarif_rule(r.code, self.docs_url) for r in _rules().LISTED_RULES]
        index = {r["id"]: i for i, r in enumerate(rules)}
        results = []
        for error in self.violations:
            if error.code not in index:
                index[error.code] = len(rules)
                rules.append(sarif_rule(error.code, self.docs_url))
            span = self.span(error)
            path, cell = split_cell(error.filename)
            result: dict[str, Any] = {
                "ruleId": error.code,
                "ruleIndex": index[error.code],
                "level": rule_level(error.code),
                "message": {"text": error.text if cell is None else
                            f"{error.text} (code cell {cell}, line {span.line})"},
                "locations": [{"physicalLocation": {
                    "artifactLocation": artifact_location(path),
                    "region": {"startLine": span.line, "startColumn": span.column,
                               "endLine": span.end_line, "endColumn": span.end_column},
                }}],
            }
            properties = {}
            if cell is not None:
                properties["cell"] = cell
            runtime = self.runtime_state(error)
            if runtime is not None:
                properties["runtime"] = runtime
            if properties:
                result["properties"] = properties
            results.append(result)
        driver: dict[str, Any] = {"name": "flake8-xla", "version": __version__,
                                  "semanticVersion": __version__, "rules": rules}
        if "://" in (self.docs_url or ""):
            driver["informationUri"] = self.docs_url.split("#", 1)[0]
        return {
            "$schema": SARIF_SCHEMA_URI,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": driver},
                "originalUriBaseIds": {SRCROOT: {"uri": Path(os.getcwd()).as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }],
        }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class GithubFormatter(_XlaFormatter):
    """``--format=xla-github`` / ``--format=github``: GitHub Actions workflow commands.

    One ``::warning file=…,line=…,col=…,endLine=…,endColumn=…,title=CODE (name)::message``
    line per finding (``::error`` for a rule whose level is ``error``); GitHub shows
    them as annotations on the pull request.
    """

    def format(self, error: Violation) -> str:
        """The workflow command for ``error``."""
        span = self.span(error)
        rule = _rules().RULES_BY_CODE.get(error.code)
        path, cell = split_cell(error.filename)
        title = f"{error.code} ({rule.name})" if rule else error.code
        if cell is not None:
            title += f" in cell {cell}, line {span.line}"
        command = "error" if rule_level(error.code) == "error" else "warning"
        props: dict[str, object] = {"file": display_path(path)}
        if cell is None:
            props.update({"line": span.line, "col": span.column, "endLine": span.end_line,
                          "endColumn": span.end_column})
        props["title"] = title
        joined = ",".join(f"{k}={_escape_property(str(v))}" for k, v in props.items())
        return f"::{command} {joined}::{_escape_data(error.text)}"

    def show_source(self, error: Violation) -> str | None:
        """No source excerpt: it would not be a workflow command."""
        return None
