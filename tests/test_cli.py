"""The ``flake8-xla`` command: same findings as ``flake8 --select=XLA``, config, exit codes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from flake8_xla.cli import main
from flake8_xla.docs import rule_markdown
from flake8_xla.rules import ALL_RULES, LISTED_RULES

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "checks"
FLAGGED_201 = CHECKS / "XLA201" / "flagged.py"
LINE_201 = 39  # checks/XLA201/case.toml [[expect]] line
FLAGGED_401 = CHECKS / "XLA401" / "flagged.py"
HELPER = "def to_gpu(model):\n    return model.cuda()\n"  # XLA501 only with --xla-target=all


def _with_comment(src: Path, line: int, comment: str) -> str:
    lines = src.read_text(encoding="utf-8").splitlines()
    lines[line - 1] += f"  {comment}"
    return "\n".join(lines) + "\n"


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A project with nested folders, noqa comments, a helper module and a flake8 config."""
    proj = tmp_path / "proj"
    (proj / "pkg" / "sub").mkdir(parents=True)
    (proj / "ignored").mkdir()
    shutil.copy(FLAGGED_201, proj / "pkg" / "train.py")
    shutil.copy(FLAGGED_401, proj / "pkg" / "sub" / "amp.py")
    (proj / "pkg" / "sub" / "noqa_specific.py").write_text(
        _with_comment(FLAGGED_201, LINE_201, "# noqa: XLA201"), encoding="utf-8")
    (proj / "pkg" / "sub" / "noqa_prefix.py").write_text(
        _with_comment(FLAGGED_201, LINE_201, "# noqa:XLA2"), encoding="utf-8")
    (proj / "pkg" / "sub" / "noqa_blanket.py").write_text(
        _with_comment(FLAGGED_201, LINE_201, "# noqa"), encoding="utf-8")
    (proj / "pkg" / "sub" / "noqa_other.py").write_text(
        _with_comment(FLAGGED_201, LINE_201, "# noqa: XLA501"), encoding="utf-8")
    (proj / "pkg" / "helpers.py").write_text(HELPER, encoding="utf-8")
    shutil.copy(FLAGGED_201, proj / "ignored" / "train.py")
    (proj / "notes.txt").write_text("not python\n", encoding="utf-8")
    (proj / "setup.cfg").write_text(
        "[flake8]\n"
        "select = E,F,W,XLA\n"
        "extend-ignore = XLA401\n"
        "per-file-ignores =\n"
        "    ignored/*.py: XLA201\n"
        "xla-target = all\n",
        encoding="utf-8")
    return proj


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, check=False, cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONIOENCODING": "utf-8"})


def _findings(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return sorted(line for line in proc.stdout.splitlines() if line.strip())


def _flake8(cwd: Path, *paths: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "flake8", "--select=XLA", *paths], cwd)


def _flake8_xla(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, "-m", "flake8_xla", *args], cwd)


def test_same_findings_as_flake8_on_checks_and_a_tree(tree: Path) -> None:
    """No project config: checks/ and the temp tree given by absolute path, from the repo root."""
    paths = ("checks", str(tree / "pkg"))
    plugin, cli = _flake8(ROOT, *paths), _flake8_xla(ROOT, *paths)
    assert plugin.returncode == cli.returncode == 1, (plugin.stderr, cli.stderr)
    assert _findings(cli) == _findings(plugin)
    found = _findings(cli)
    codes = {line.split(": ", 1)[1].split()[0] for line in found}
    assert {rule.code for rule in ALL_RULES if (CHECKS / rule.code).is_dir()
            and not rule.opt_in} <= codes
    for name, reported in (("train.py", True), ("noqa_specific.py", False),
                           ("noqa_prefix.py", False), ("noqa_blanket.py", False),
                           ("noqa_other.py", True), ("helpers.py", False)):
        hits = [line for line in found if line.startswith(str(tree / "pkg")) and
                f"{name}:{LINE_201}:" in line and "XLA201" in line]
        assert bool(hits) is reported, (name, found)


def test_same_findings_as_flake8_with_the_flake8_config(tree: Path) -> None:
    """Run inside the tree: both read its setup.cfg (extend-ignore, per-file-ignores, target)."""
    plugin, cli = _flake8(tree, "."), _flake8_xla(tree, ".")
    assert plugin.returncode == cli.returncode == 1, (plugin.stderr, cli.stderr)
    found = _findings(cli)
    assert found == _findings(plugin)
    assert any(line.startswith("./pkg/helpers.py:2:") and "XLA501" in line for line in found)
    assert not any("XLA401" in line for line in found)  # extend-ignore
    assert not any(line.startswith("./ignored/") for line in found)  # per-file-ignores
    assert any(line.startswith(f"./pkg/train.py:{LINE_201}:") for line in found)
    # Command-line ignores and per-file ignores add to the config's, never replace them.
    more = _findings(_flake8_xla(tree, "--ignore=XLA501", "--per-file-ignores=pkg/train.py:XLA2",
                                 "."))
    assert more == [line for line in found if "XLA501" not in line
                    and not line.startswith("./pkg/train.py:")]


def test_console_script_and_report_plugins_are_registered() -> None:
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    assert scripts.get("flake8-xla") == "flake8_xla.cli:main"
    reports = {ep.name: ep.value for ep in entry_points(group="flake8.report")}
    for name in ("xla-json", "xla-sarif", "xla-github", "sarif", "github"):
        assert reports.get(name, "").startswith("flake8_xla.formatters:"), name
    script = Path(sys.executable).with_name("flake8-xla")
    if script.exists():
        proc = _run([str(script), "--version"], ROOT)
        assert proc.returncode == 0 and "flake8-xla" in proc.stdout


def test_stdin_with_display_name() -> None:
    proc = subprocess.run([sys.executable, "-m", "flake8_xla", "-", "--stdin-display-name",
                           "train.py"], check=False, input=FLAGGED_201.read_text(encoding="utf-8"),
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith(f"train.py:{LINE_201}:36: XLA201 "), proc.stdout


# In-process runs ------------------------------------------------------------

def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_exit_status(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert _main(capsys, "checks/XLA201/fixed.py")[0] == 0
    status, out, _ = _main(capsys, "checks/XLA201/flagged.py")
    assert status == 1 and f"checks/XLA201/flagged.py:{LINE_201}:36: XLA201 " in out
    assert _main(capsys, "--exit-zero", "checks/XLA201/flagged.py")[0] == 0


@pytest.mark.parametrize("args, message", [
    (["does/not/exist.py"], "no such file"),
    (["--explain", "XLA999"], "unknown rule"),
    (["--bogus"], "unrecognized arguments"),
    (["--format", "xml", "checks"], "invalid choice"),
    (["--select", "E501", "checks"], "not an XLA code"),
    (["--ignore", "not-a-code", "checks"], "not an error code"),
    (["--xla-version", "two", "checks"], "not a torch_xla version"),
    (["--config", "missing.cfg", "checks"], "does not exist"),
])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                             args: list[str], message: str) -> None:
    monkeypatch.chdir(ROOT)
    status, out, err = _main(capsys, *args)
    assert status == 2
    assert message in err and not out


def test_select_and_ignore(capsys: pytest.CaptureFixture[str],
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    _, everything, _ = _main(capsys, "checks")
    assert "XLA201" in everything and "XLA501" in everything
    status, out, _ = _main(capsys, "--select", "XLA2", "checks")
    assert status == 1 and {line.split()[1] for line in out.splitlines()} == {"XLA201", "XLA202"}
    status, out, _ = _main(capsys, "--select=XLA5,XLA2", "--ignore=XLA201", "checks")
    xla5 = {line.split()[1] for line in everything.splitlines()
            if line.split()[1][:4] in ("XLA5", "XLA2") and line.split()[1] != "XLA201"}
    assert "XLA501" in xla5
    assert status == 1 and {line.split()[1] for line in out.splitlines()} == xla5
    status, out, _ = _main(capsys, "--select", "XLA201", "--extend-ignore", "XLA2",
                           "checks/XLA501")
    assert (status, out) == (0, "")


def test_pyproject_table(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    shutil.copy(FLAGGED_201, tmp_path / "train.py")
    shutil.copy(FLAGGED_201, tmp_path / "sub" / "train.py")
    (tmp_path / "helpers.py").write_text(HELPER, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n'
        '[tool.flake8-xla]\n'
        'select = ["XLA2", "XLA5"]\n'
        'per-file-ignores = { "sub/*.py" = ["XLA201"] }\n'
        'xla-target = "all"\n'
        'xla-version = "2.6"\n'
        'format = "json"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path / "sub")  # the nearest pyproject.toml with the table is used
    status, out, err = _main(capsys, "..")
    assert status == 1, err
    found = {(Path(f["filename"]).name, Path(f["filename"]).parent.name, f["code"])
             for f in json.loads(out)}
    assert ("helpers.py", "..", "XLA501") in found  # xla-target = "all"
    assert ("train.py", "..", "XLA201") in found
    assert ("train.py", "sub", "XLA201") not in found  # per-file-ignores, relative to pyproject
    assert {code for *_, code in found} <= {"XLA201", "XLA501"}  # select
    messages = [f["message"] for f in json.loads(out) if f["code"] == "XLA501"]
    assert messages and all("xm.xla_device()" in m for m in messages)  # xla-version = "2.6"
    # The command line wins over the table.
    status, out, _ = _main(capsys, "--format=text", "--select=XLA5", "--xla-version=2.9", "..")
    assert status == 1 and "torch_xla.device()" in out and "XLA201" not in out
    # --isolated ignores the table (and the flake8 config).
    status, out, _ = _main(capsys, "--isolated", "..")
    assert status == 1 and "XLA501" not in out and "sub/train.py" in out


def test_pyproject_extend_select_turns_on_an_opt_in_rule(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``extend-select = ["XLA302"]`` in the table adds the opt-in rule to the default
    selection (every XLA rule), as ``--extend-select`` does; ``select`` with it narrows."""
    shutil.copy(CHECKS / "XLA302" / "flagged.py", tmp_path / "train.py")
    shutil.copy(FLAGGED_201, tmp_path / "step.py")
    monkeypatch.chdir(tmp_path)
    _, out, _ = _main(capsys, "--format=text", ".")
    assert "XLA302" not in out and "XLA201" in out  # opt-in: off by default
    (tmp_path / "pyproject.toml").write_text(
        '[tool.flake8-xla]\nextend-select = ["XLA302"]\n', encoding="utf-8")
    status, out, err = _main(capsys, "--format=text", ".")
    assert status == 1, err
    assert "XLA302" in out and "XLA201" in out
    (tmp_path / "pyproject.toml").write_text(
        '[tool.flake8-xla]\nselect = ["XLA3"]\nextend-select = ["XLA302"]\n',
        encoding="utf-8")
    _, out, _ = _main(capsys, "--format=text", ".")
    assert "XLA302" in out and "XLA201" not in out


@pytest.mark.parametrize("body, message", [
    ('colour = "red"\n', "unknown key"),
    ('xla-version = 2.10\n', "quoted version"),
    ('xla-target = "some"\n', "expected one of"),
    ('select = ["E501"]\n', "not an XLA code"),
    ('per-file-ignores = ["x"]\n', "expected a table"),
])
def test_pyproject_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch, body: str,
                                 message: str) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.flake8-xla]\n" + body, encoding="utf-8")
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, _, err = _main(capsys, "a.py")
    assert status == 2 and message in err and "pyproject.toml" in err


def test_bad_version_in_flake8_config_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".flake8").write_text("[flake8]\nxla-version = banana\n", encoding="utf-8")
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, _, err = _main(capsys, "a.py")
    assert status == 2 and "banana" in err


def test_explain_prints_the_rule_docs(capsys: pytest.CaptureFixture[str]) -> None:
    for rule in ALL_RULES:
        status, out, _ = _main(capsys, "--explain", rule.code.lower())
        assert status == 0 and out == rule_markdown(rule)
    status, out, _ = _main(capsys, "--explain", ALL_RULES[0].name)
    assert status == 0 and out.startswith(f"## {ALL_RULES[0].code}\n")


def test_list_rules(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _main(capsys, "--list-rules")
    assert status == 0
    shown = {"safe": "fix", "unsafe": "unsafe-fix", "none": "-"}
    assert [line.split()[:3] for line in out.splitlines()] == \
        [[r.code, r.name, shown[r.fix]] for r in LISTED_RULES]
    status, out, _ = _main(capsys, "--list-rules", "--format=json")
    listed = json.loads(out)
    assert [r["code"] for r in listed] == [r.code for r in LISTED_RULES]
    assert [r["fix"] for r in listed] == [r.fix for r in LISTED_RULES]
    assert {r["fix"] for r in listed} == {"safe", "unsafe", "none"}


def test_stdin_alone_leaves_the_folders_notebooks_alone(tmp_path: Path) -> None:
    """``flake8-xla -`` checks what it reads from stdin, not the notebooks of the folder it
    runs in (no path left after ``-`` is not flake8's default ``.``)."""
    (tmp_path / "nbs").mkdir()
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": FLAGGED_201.read_text(encoding="utf-8")}
    (tmp_path / "nbs" / "explore.ipynb").write_text(json.dumps(
        {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}),
        encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "flake8_xla", "--isolated", "-"], check=False,
                          input="x = 1\n", capture_output=True, text=True, cwd=tmp_path,
                          timeout=120, env=env)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    proc = subprocess.run([sys.executable, "-m", "flake8_xla", "--isolated", "."], check=False,
                          capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    assert proc.returncode == 1 and "explore.ipynb" in proc.stdout, proc.stdout + proc.stderr


def test_extend_select_in_the_flake8_config_adds_to_the_xla_rules(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``extend-select = XLA901`` (an opt-in rule) turns that rule on beside every other XLA
    rule, as in flake8; it does not narrow ``flake8-xla`` to the one rule."""
    shutil.copy(FLAGGED_201, tmp_path / "train.py")
    (tmp_path / ".flake8").write_text("[flake8]\nextend-select = XLA901\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, _ = _main(capsys, "train.py")
    assert status == 1 and f"train.py:{LINE_201}:36: XLA201 " in out, out


def test_extend_select_option_adds_an_opt_in_rule_to_the_selection(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``--extend-select`` adds to ``--select`` (or to the default ``XLA``), as flake8's and
    ruff's option: the default rules keep reporting, and a non-XLA code is a usage error."""
    shutil.copy(FLAGGED_201, tmp_path / "train.py")
    monkeypatch.chdir(tmp_path)
    status, out, _ = _main(capsys, "--isolated", "--extend-select=XLA901", "train.py")
    assert status == 1 and f"train.py:{LINE_201}:36: XLA201 " in out, out
    status, out, _ = _main(capsys, "--isolated", "--select=XLA3",
                           "--extend-select=XLA201", "train.py")
    assert status == 1 and f"train.py:{LINE_201}:36: XLA201 " in out, out
    status, out, _ = _main(capsys, "--isolated", "--select=XLA3", "train.py")
    assert "XLA201" not in out, out
    status, _, err = _main(capsys, "--isolated", "--extend-select=E501", "train.py")
    assert status == 2 and "not an XLA code" in err, err
