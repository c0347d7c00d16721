"""The findings store (:mod:`flake8_xla.project.results`): a file's findings are reused
only while its text, the settings, the linter and (project-aware) every module of its
project are unchanged."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from flake8_xla import plugin as plugin_mod
from flake8_xla import project
from flake8_xla.context import Options
from flake8_xla.plugin import Plugin
from flake8_xla.project import results

ROOT = Path(__file__).resolve().parent.parent

TRAIN = """\
import torch_xla
import helpers


def main(model, loader, opt):
    for x, y in loader:
        loss = model(x, y)
        loss.backward()
        opt.step()
        helpers.report(loss)
        torch_xla.sync()
"""
HELPERS = """\
def report(loss):
    print(loss.item())
"""


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    top = tmp_path / "proj"
    top.mkdir()
    (top / "pyproject.toml").write_text("")
    (top / "train.py").write_text(TRAIN)
    (top / "helpers.py").write_text(HELPERS)
    project.reset()
    yield top
    project.reset()


class Counting:
    """Counts the checks actually run (``lint_tree`` calls) behind the plugin."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        real = plugin_mod.lint_tree

        def counted(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(plugin_mod, "lint_tree", counted)


def run(path: Path, target: str = "auto", text: str | None = None) -> list[tuple[int, str]]:
    """(line, code) of the plugin's findings in ``path``, as a fresh flake8 process
    would give them (per-process project state forgotten first)."""
    project.reset()
    source = path.read_text() if text is None else text
    Plugin.options = Options(target=target, version=(2, 9))
    p = Plugin(ast.parse(source), source.splitlines(keepends=True), str(path))
    return [(line, msg.split()[0]) for line, _, msg, _ in p.run()]


def bump(path: Path, text: str) -> None:
    """Rewrite ``path`` with a modification time a second later (as an edit would)."""
    st = path.stat()
    path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def stored_files() -> list[Path]:
    return sorted(Path(os.environ["FLAKE8_XLA_CACHE_DIR"]).glob("projects/*/results/*.json"))


def test_an_unchanged_file_is_answered_from_the_store(proj: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    count = Counting(monkeypatch)
    first = run(proj / "helpers.py")
    assert first == [(2, "XLA201")] and count.calls == 1
    assert run(proj / "helpers.py") == first and count.calls == 1
    [entry] = stored_files()
    assert json.loads(entry.read_text())["findings"][0][:2] == [2, 10]


def test_an_edit_of_the_file_itself_is_checked_again(proj: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    count = Counting(monkeypatch)
    assert run(proj / "helpers.py") == [(2, "XLA201")]
    # the editor's unsaved buffer: new text, same file on disk
    assert run(proj / "helpers.py", text="def report(loss):\n    pass\n") == []
    assert count.calls == 2


def test_an_edit_of_another_module_checks_the_project_again(
        proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """helpers.py is XLA code only because train.py (which imports torch_xla) imports it:
    once train.py stops importing it, the stored finding is no longer the answer."""
    count = Counting(monkeypatch)
    assert run(proj / "helpers.py") == [(2, "XLA201")]
    bump(proj / "train.py", TRAIN.replace("import helpers\n", "").replace(
        "        helpers.report(loss)\n", ""))
    assert run(proj / "helpers.py") == []
    assert count.calls == 2


def test_the_settings_are_part_of_the_key(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = Counting(monkeypatch)
    assert run(proj / "helpers.py") == [(2, "XLA201")]
    assert run(proj / "helpers.py", target="file") == []  # no torch_xla in the file itself
    assert run(proj / "helpers.py", target="all") == [(2, "XLA201")]
    assert count.calls == 3
    monkeypatch.setenv("FLAKE8_XLA_NO_GATES", "1")
    run(proj / "helpers.py")
    assert count.calls == 4


@pytest.mark.parametrize("garbage", ["", "{", "[]", "null", '{"format": "flake8-xla findings"}',
                                     "SAME_KEY_BAD_FINDINGS"])
def test_a_corrupt_entry_is_checked_again_never_trusted(
        proj: Path, monkeypatch: pytest.MonkeyPatch, garbage: str) -> None:
    count = Counting(monkeypatch)
    assert run(proj / "helpers.py") == [(2, "XLA201")]
    [entry] = stored_files()
    if garbage == "SAME_KEY_BAD_FINDINGS":
        data = json.loads(entry.read_text())
        data["findings"] = [["2", 10, 7]]
        garbage = json.dumps(data)
    entry.write_text(garbage)
    assert run(proj / "helpers.py") == [(2, "XLA201")] and count.calls == 2
    assert json.loads(entry.read_text())["findings"][0][:2] == [2, 10]  # rewritten


def test_the_store_can_be_turned_off(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = Counting(monkeypatch)
    for env in ("FLAKE8_XLA_NO_RESULTS", "FLAKE8_XLA_NO_CACHE"):
        monkeypatch.setenv(env, "1")
        run(proj / "helpers.py")
        run(proj / "helpers.py")
        monkeypatch.delenv(env)
    assert count.calls == 4 and stored_files() == []


def test_a_file_not_on_disk_is_never_stored(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    count = Counting(monkeypatch)
    source = "import torch_xla\n\nfor x in range(3):\n    print(x)\n"
    for _ in range(2):
        Plugin.options = Options(version=(2, 9))
        list(Plugin(ast.parse(source), source.splitlines(True), "stdin").run())
    assert count.calls == 2 and stored_files() == []


def test_flake8_runs_give_the_same_answer_cold_and_warm(proj: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=XLA",
                            *jobs, "."], cwd=proj, capture_output=True, text=True, env=env,
                           check=False) for jobs in ([], ["-j2"], [])]
    assert {r.returncode for r in runs} == {1}
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    assert "helpers.py:2:11: XLA201" in runs[0].stdout
    assert len(stored_files()) == 2
    assert not [p for p in stored_files()[0].parent.iterdir() if p.name.startswith(".tmp-")]


def test_an_edited_linter_never_reuses_old_answers(proj: Path, tmp_path: Path) -> None:
    """A development install: editing any file of the package changes the key."""
    copy = tmp_path / "pkg"
    shutil.copytree(ROOT / "flake8_xla", copy / "flake8_xla",
                    ignore=shutil.ignore_patterns("__pycache__"))
    script = textwrap.dedent("""\
        from flake8_xla.project.results import tool_fingerprint
        print(tool_fingerprint())
        """)
    env = dict(os.environ, PYTHONPATH=str(copy))

    def fingerprint() -> str:
        return subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path,
                              capture_output=True,
                              text=True, check=True).stdout.strip()

    before = fingerprint()
    assert before == fingerprint()
    rule = copy / "flake8_xla" / "rules" / "syncs.py"
    st = rule.stat()
    rule.write_text(rule.read_text() + "\n")
    os.utime(rule, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert fingerprint() != before
    assert results.tool_fingerprint()  # this process's own: computed, cached


def test_an_edit_whose_mtime_was_put_back_is_still_seen(
        proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same size, same modification time (a copy that preserves times): the status-change
    time differs, so the stored answer is not reused."""
    count = Counting(monkeypatch)
    assert run(proj / "helpers.py") == [(2, "XLA201")]
    st = (proj / "train.py").stat()
    text = TRAIN.replace("helpers.report(loss)", "helpers.repor_(loss)")  # same size
    (proj / "train.py").write_text(text)
    os.utime(proj / "train.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (proj / "train.py").stat().st_size == st.st_size
    assert run(proj / "helpers.py") == []  # report() is no longer called from the step
    assert count.calls == 2


def test_a_symlinked_module_keeps_its_own_answer(symlinked_project: Path) -> None:
    """``data.py -> data_v1.py``: the same text and the same file on disk, but only
    ``data.py`` is imported by the XLA program, so only it has the finding, cold or warm."""
    top = symlinked_project
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=XLA",
                            "data.py", "data_v1.py"], cwd=top, capture_output=True, text=True,
                           env=env, check=False).stdout for _ in range(2)]
    assert runs[0] == runs[1]
    assert "data.py:6:12: XLA102" in runs[0] and "data_v1.py" not in runs[0]
