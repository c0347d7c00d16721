"""The fixes, measured: perf_validation on ``--fix``-ed copies of the flagged scripts.

For every rule with a fix, ``checks/CODE/flagged.py`` is copied and fixed with
``flake8-xla --fix --unsafe-fixes --select=CODE``; the copy then stands in for
``fixed.py`` next to the original flagged script and the rule's ``case.toml``, and
``python -m perf_validation`` must find every claim's ``fixed`` side holding on it
(the flagged side too, as for the hand-written pairs). Runs every fixable pair
under torch_xla on the CPU: marked ``xla`` (about 2-3 minutes on 2 cores).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_xla.cli import main
from flake8_xla.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "checks"
FIXABLE = [r.code for r in ALL_RULES if r.fix != "none" and (CHECKS / r.code).is_dir()]

try:
    import torch_xla  # noqa: F401
    HAS_TORCH_XLA = True
except ImportError:  # pragma: no cover - the validate extra is missing
    HAS_TORCH_XLA = False


@pytest.mark.xla
@pytest.mark.skipif(not HAS_TORCH_XLA, reason="needs torch_xla (validate extra)")
def test_fixed_copies_meet_the_fixed_side_of_the_claims(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    suite = tmp_path / "checks"
    for code in FIXABLE:
        case = suite / code
        case.mkdir(parents=True)
        shutil.copy(CHECKS / code / "flagged.py", case / "flagged.py")
        shutil.copy(CHECKS / code / "case.toml", case / "case.toml")
        shutil.copy(CHECKS / code / "flagged.py", case / "fixed.py")
        status = main(["--fix", "--unsafe-fixes", f"--select={code}", str(case / "fixed.py")])
        _, err = capsys.readouterr()
        assert status == 0, (code, err)
        assert (case / "fixed.py").read_text() != (case / "flagged.py").read_text()
    out = tmp_path / "report"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    proc = subprocess.run([sys.executable, "-m", "perf_validation", str(suite), "--steps", "4",
                           "--out", str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=1500, check=False)
    document = json.loads((out / "report.json").read_text(encoding="utf-8"))
    failed = {}
    for pair in document["pairs"]:
        bad = [c["metric"] for c in pair["claims"]
               if c["fixed"] is not None and c["fixed"]["holds"] is not True]
        if bad or pair["status"] != "holds":
            failed[pair["rule"]] = (pair["status"], bad)
    assert sorted(p["rule"] for p in document["pairs"]) == sorted(FIXABLE)
    assert not failed and proc.returncode == 0, (failed, proc.stdout[-3000:])
