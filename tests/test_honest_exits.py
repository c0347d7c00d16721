"""Honest exits: XLA001 for files that could not be checked, default excludes, closed pipes,
and ``flake8 --format=json``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from flake8_xla.cli import main
from flake8_xla.config import DEFAULT_EXCLUDE
from flake8_xla.sources import UnreadableSource, decode_python, encoding_problem

ROOT = Path(__file__).resolve().parent.parent
FLAGGED_201 = ROOT / "checks" / "XLA201" / "flagged.py"
HAZARD = "import torch_xla\nimport torch\nm = torch.nn.Linear(2, 2).cuda()\n"  # XLA501


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_syntax_error_exits_1_and_names_the_file(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "broken.py"
    bad.write_text("import torch_xla\ndef step(:\n    pass\n", encoding="utf-8")
    status, out, _ = _run(capsys, str(bad))
    assert status == 1
    assert out.startswith(f"{bad}:2:") and "XLA001 file not checked: SyntaxError" in out
    # Also in a folder, and whatever XLA codes are selected.
    status, out, _ = _run(capsys, "--select=XLA5", str(tmp_path))
    assert status == 1 and "XLA001" in out
    # An explicit ignore is the user's choice.
    assert _run(capsys, "--ignore=XLA001", str(bad))[:2] == (0, "")


def test_a_file_python_refuses_to_decode(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    latin = tmp_path / "latin.py"
    latin.write_bytes(HAZARD.encode() + "print('é')\n".encode("latin-1"))
    with pytest.raises(UnreadableSource, match="not valid utf-8.*line 4"):
        decode_python(latin.read_bytes())
    status, out, _ = _run(capsys, str(latin))
    assert status == 1 and out.startswith(f"{latin}:1:1: XLA001 ") and "not valid utf-8" in out
    assert "XLA501" not in out  # nothing in it was linted
    # Declared, it is fine: Python runs it, and it is linted.
    declared = tmp_path / "declared.py"
    declared.write_bytes(b"# -*- coding: latin-1 -*-\n" + latin.read_bytes())
    status, out, _ = _run(capsys, str(declared))
    assert status == 1 and "XLA501" in out and "XLA001" not in out
    # Under plain flake8 too (flake8 itself reads the file as latin-1 and says nothing).
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=XLA", str(latin)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "XLA001" in proc.stdout


def test_encoding_problem_costs_nothing_for_ascii_and_ignores_other_text(tmp_path: Path) -> None:
    assert encoding_problem("/nonexistent.py", "x = 1\n") is None
    path = tmp_path / "a.py"
    path.write_bytes("x = 'é'\n".encode("latin-1"))
    assert encoding_problem(str(path), "x = 'é'\n") is not None  # what flake8 read
    assert encoding_problem(str(path), "y = 'ü'\n") is None  # stdin shown under this name
    with pytest.raises(UnreadableSource, match="unknown encoding"):
        decode_python(b"# coding: no-such-codec\nx = 1\n")


def test_an_unreadable_file_in_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "gone.py").symlink_to(tmp_path / "missing.py")
    status, out, _ = _run(capsys, str(tmp_path))
    assert status == 1 and "gone.py:" in out and "XLA001 file not checked" in out


def test_a_virtualenv_inside_the_project_is_skipped(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for folder in (".venv/lib/python3.11/site-packages/torch_xla", "venv/lib", "build/lib",
                   "node_modules/x", "src/dist"):
        (tmp_path / folder).mkdir(parents=True)
        shutil.copy(FLAGGED_201, tmp_path / folder / "hazard.py")
    (tmp_path / "src" / "ok.py").write_text("import torch_xla\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert _run(capsys, ".")[:2] == (0, "")
    assert {".venv", "venv", ".tox", ".nox", "build", "dist", "site-packages", "node_modules",
            "__pypackages__"} <= set(DEFAULT_EXCLUDE)
    # --exclude replaces the defaults; --extend-exclude adds to them.
    status, out, _ = _run(capsys, "--exclude=node_modules", ".")
    assert status == 1 and "./.venv/" in out and "./node_modules/" not in out
    shutil.copy(FLAGGED_201, tmp_path / "src" / "train.py")
    status, out, _ = _run(capsys, ".")
    assert status == 1 and out.startswith("./src/train.py:39:")
    assert _run(capsys, "--extend-exclude=src", ".")[:2] == (0, "")
    # An explicitly named file is linted even inside an excluded folder (pre-commit does so).
    status, out, _ = _run(capsys, ".venv/lib/python3.11/site-packages/torch_xla/hazard.py")
    assert status == 1


def test_a_closed_pipe_ends_quietly() -> None:
    proc = subprocess.run(f"{sys.executable} -m flake8_xla --xla-target=all checks tests | head -1",
                          shell=True, capture_output=True, text=True, cwd=ROOT, timeout=300,
                          check=False)
    assert proc.stdout.count("\n") == 1
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr


def _dist_info_from_pyproject(dest: Path) -> None:
    """A dist-info whose entry points are this checkout's pyproject.toml.

    It comes first on sys.path, so flake8 (which keeps the first distribution of a
    name) loads these report plugins, not those of an older install.
    """
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = dest / f"flake8_xla-{project['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n", encoding="utf-8")
    groups = []
    for group, entries in project["entry-points"].items():
        groups.append(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    (info / "entry_points.txt").write_text("\n".join(groups), encoding="utf-8")


def test_flake8_format_json(tmp_path: Path) -> None:
    import json

    _dist_info_from_pyproject(tmp_path / "site")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=XLA", "--format=json",
                           str(FLAGGED_201)], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False, env=env)
    assert proc.returncode == 1, proc.stderr
    (record,) = json.loads(proc.stdout)
    assert record["code"] == "XLA201" and record["line"] == 39
