"""Notebooks: code cells linted as one module, positions per cell, --fix writes cells back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from flake8_xla.cli import main
from flake8_xla.notebooks import Notebook, NotebookError, split_cell

ROOT = Path(__file__).resolve().parent.parent
FLAGGED_201 = ROOT / "checks" / "XLA201" / "flagged.py"
LINE_201, COL_201 = 39, 36  # checks/XLA201/case.toml [[expect]]; flake8's 1-based column


def _notebook(cells: list[tuple[str, str]], **meta: Any) -> str:
    """nbformat 4 JSON as Jupyter writes it (indent 1, UTF-8 kept, final newline)."""
    out = []
    for i, (kind, source) in enumerate(cells):
        cell: dict[str, Any] = {"cell_type": kind, "metadata": {"id": f"c{i}"},
                                "source": source.splitlines(True)}
        if kind == "code":
            cell.update(execution_count=i, outputs=[{"name": "stdout", "output_type": "stream",
                                                     "text": [f"out {i}\n"]}])
        out.append(cell)
    data = {"cells": out, "metadata": {"kernelspec": {"display_name": "Python 3",
                                                      "language": "python", "name": "python3"},
                                       **meta},
            "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def _split_201() -> tuple[list[tuple[str, str]], int, int]:
    """checks/XLA201/flagged.py in three code cells (with magics and markdown between).

    Returns the cells, the code cell K holding line 39 and its line L in that cell.
    """
    lines = FLAGGED_201.read_text(encoding="utf-8").splitlines(True)
    cut = next(i for i, line in enumerate(lines) if line.startswith("def main"))
    cells = [("markdown", "# Training on a TPU\n"),
             ("code", "%pip install torch_xla\n!nvidia-smi\n"),
             ("code", "".join(lines[:cut])),
             ("markdown", "The loop:"),
             ("code", "%%time\n" + "".join(lines[cut:]))]
    return cells, 3, LINE_201 - cut + 1  # the %%time line is line 1 of the cell


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_xla201_is_reported_at_its_cell_and_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    cells, cell, line = _split_201()
    nb = tmp_path / "NB.ipynb"
    nb.write_text(_notebook(cells), encoding="utf-8")
    status, out, err = _run(capsys, str(nb))
    assert status == 1, err
    assert out.splitlines() == [f"{nb}:cell_{cell}:{line}:{COL_201}: XLA201 " + out.split(
        " XLA201 ", 1)[1].splitlines()[0]]
    assert line == 15 and cell == 3  # hand-checked: the loop's print() in the third code cell


def test_json_and_sarif_carry_the_cell(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cells, cell, line = _split_201()
    (tmp_path / "NB.ipynb").write_text(_notebook(cells), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, out, _ = _run(capsys, "--format=json", "NB.ipynb")
    (record,) = json.loads(out)
    assert (record["filename"], record["cell"], record["line"], record["column"]) == \
        ("NB.ipynb", cell, line, COL_201)
    assert record["end_column"] == COL_201 + len("loss.item()")  # the span inside the cell
    _, out, _ = _run(capsys, "--format=sarif", "NB.ipynb")
    (result,) = json.loads(out)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "NB.ipynb"
    assert location["region"]["startLine"] == line and result["properties"] == {"cell": cell}
    _, out, _ = _run(capsys, "--format=github", "NB.ipynb")
    assert out.startswith("::warning file=NB.ipynb,title=XLA201 (host-sync-in-step) in cell 3")


def test_folders_find_notebooks_and_skip_checkpoints(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    cells, cell, line = _split_201()
    (tmp_path / "nbs" / ".ipynb_checkpoints").mkdir(parents=True)
    (tmp_path / "nbs" / "train.ipynb").write_text(_notebook(cells), encoding="utf-8")
    (tmp_path / "nbs" / ".ipynb_checkpoints" / "train-checkpoint.ipynb").write_text(
        _notebook(cells), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    status, out, _ = _run(capsys, ".")
    assert status == 1
    assert [row.split(": ")[0] for row in out.splitlines()] == \
        [f"./nbs/train.ipynb:cell_{cell}:{line}:{COL_201}"]


def test_noqa_and_per_file_ignores_in_notebooks(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    cells, _, _ = _split_201()
    cells[-1] = ("code", cells[-1][1].replace("loss.item():.4f}\")", "loss.item():.4f}\")  "
                                              "# noqa: XLA201"))
    (tmp_path / "quiet.ipynb").write_text(_notebook(cells), encoding="utf-8")
    loud, _, _ = _split_201()
    (tmp_path / "loud.ipynb").write_text(_notebook(loud), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert _run(capsys, "quiet.ipynb")[:2] == (0, "")
    assert _run(capsys, "--per-file-ignores=loud.ipynb:XLA201", "loud.ipynb")[:2] == (0, "")
    assert _run(capsys, "loud.ipynb")[0] == 1


def test_magics_are_masked() -> None:
    source = ("%matplotlib inline\nfiles = !ls\nfor f in files:\n    !echo $f\n"
              "torch.save?\n?torch.load\ntext = '''\n%not a magic inside a string\n'''\n"
              "!pip install \\\n    torch_xla\n")
    nb = Notebook.loads(_notebook([("code", source), ("code", ("%%bash\nif true; then\n"
                                                              "  echo hi\nfi\n"))]))
    module = nb.module()
    compile(module, "nb", "exec")
    assert "%not a magic inside a string" in module and "!ls" not in module
    assert nb.with_module(module) == {}  # the masks restore to the original cells
    # Module line 1 is cell 1's marker, lines 2-12 its 11 lines, 13 the marker of cell 2.
    assert [nb.cell_position(n) for n in (1, 2, 12, 13, 14, 15)] == \
        [(1, 1), (1, 1), (1, 11), (2, 1), (2, 1), (2, 2)]


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "invalid JSON"),
    ('{"nbformat": 3, "worksheets": []}', "only nbformat 4"),
    ('{"cells": [{"cell_type": "code", "source": 3}]}', "neither a string"),
    ("[]", "no 'cells' list"),
])
def test_a_broken_notebook_is_an_xla001_finding(tmp_path: Path, text: str, message: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    nb = tmp_path / "broken.ipynb"
    nb.write_text(text, encoding="utf-8")
    with pytest.raises(NotebookError, match=message):
        Notebook.read(str(nb))
    status, out, err = _run(capsys, str(nb))
    assert status == 1 and "Traceback" not in err
    assert out.startswith(f"{nb}:1:1: XLA001 file not checked: ") and message in out


def test_a_syntax_error_in_a_cell_names_the_cell(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    nb = tmp_path / "NB.ipynb"
    nb.write_text(_notebook([("code", "import torch_xla\n"), ("code", "x = 1\ndef f(:\n")]),
                  encoding="utf-8")
    status, out, _ = _run(capsys, str(nb))
    assert status == 1 and out.startswith(f"{nb}:cell_2:2:") and "XLA001" in out


def test_fix_writes_the_cells_back_and_keeps_the_rest(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    cells, cell, _line = _split_201()
    nb = tmp_path / "NB.ipynb"
    before = _notebook(cells)
    nb.write_text(before, encoding="utf-8")
    assert _run(capsys, "--fix", str(nb))[0] == 1  # XLA201's fix is unsafe
    assert nb.read_text(encoding="utf-8") == before
    status, out, err = _run(capsys, "--diff", "--unsafe-fixes", str(nb))
    assert status == 1 and nb.read_text(encoding="utf-8") == before
    assert f"--- {nb}:cell_{cell}\n+++ {nb}:cell_{cell}\n" in out and "+        xm.add_step_closure(" in out
    status, out, err = _run(capsys, "--fix", "--unsafe-fixes", str(nb))
    assert (status, out) == (0, ""), err
    after = nb.read_text(encoding="utf-8")
    old, new = json.loads(before), json.loads(after)
    assert old["metadata"] == new["metadata"]
    for a, b in zip(old["cells"], new["cells"]):
        assert {k: v for k, v in a.items() if k != "source"} == \
            {k: v for k, v in b.items() if k != "source"}  # outputs, counts, metadata
    sources = ["".join(c["source"]) for c in new["cells"]]
    assert sources[1] == "%pip install torch_xla\n!nvidia-smi\n"  # magics restored
    assert "import torch_xla.core.xla_model as xm\n" in sources[2]
    assert sources[4].startswith("%%time\n") and "xm.add_step_closure(lambda step, loss: " \
        in sources[4]
    # Only the changed source lines differ: Jupyter's layout is kept.
    changed = [line for line in after.splitlines() if line not in before.splitlines()]
    assert len(changed) == 2, changed


def test_split_cell() -> None:
    assert split_cell("a/NB.ipynb:cell_12") == ("a/NB.ipynb", 12)
    assert split_cell("a/train.py") == ("a/train.py", None)


def test_plain_flake8_tells_what_to_run_on_a_notebook(tmp_path: Path) -> None:
    cells, _, _ = _split_201()
    nb = tmp_path / "NB.ipynb"
    nb.write_text(_notebook(cells), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=XLA", str(nb)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"{nb}:1:1: XLA001 ") and "nbqa flake8" in proc.stdout


def test_nbqa_flake8_reports_the_same_position(tmp_path: Path) -> None:
    """The README's command for people who stay on flake8 (needs nbqa: the test extra)."""
    pytest.importorskip("nbqa")
    cells, cell, line = _split_201()
    nb = tmp_path / "NB.ipynb"
    nb.write_text(_notebook(cells), encoding="utf-8")
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    proc = subprocess.run([sys.executable, "-m", "nbqa", "flake8", "NB.ipynb", "--select=XLA",
                           "--nbqa-shell"], capture_output=True, text=True, timeout=300,
                          check=False, cwd=tmp_path, env=env)
    assert f"NB.ipynb:cell_{cell}:{line}:{COL_201}: XLA201 " in proc.stdout, proc.stderr
