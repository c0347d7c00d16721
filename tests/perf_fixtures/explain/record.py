"""Record the probe documents the fast explain tests read (needs torch_xla).

    python tests/perf_fixtures/explain/record.py

Runs each script below once under ``python -m perf_validation.probe --explain`` with
``PJRT_DEVICE=CPU`` and writes ``NAME.json`` next to this file.  Paths are replaced
by placeholders so that no machine path is stored: the script by ``<SCRIPT>``,
installed packages by ``<SITE>/package/...``, anything else by ``<OTHER>/name``.
The tests put the script's real path back.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
#: name -> (script relative to the project root, XLA_CHECK_STEPS)
RECORDINGS = {
    "xla101_flagged": ("checks/XLA101/flagged.py", 4),
    "xla101_fixed": ("checks/XLA101/fixed.py", 3),
    "xla201_flagged": ("checks/XLA201/flagged.py", 3),
    "xla301_flagged": ("checks/XLA301/flagged.py", 3),
    "hf_bert_finetune": ("examples/hf_bert_finetune.py", 3),
}
_SITE = re.compile(r"^.*[\\/](?:site|dist)-packages[\\/]")


def sanitize(value: object, script: str) -> object:
    if isinstance(value, dict):
        return {k: sanitize(v, script) for k, v in value.items()}
    if isinstance(value, list):
        return [sanitize(v, script) for v in value]
    if isinstance(value, str) and os.path.isabs(value):
        if value == script:
            return "<SCRIPT>"
        if _SITE.match(value):
            return _SITE.sub("<SITE>/", value).replace("\\", "/")
        return f"<OTHER>/{os.path.basename(value)}"
    return value


def record(name: str, relative: str, steps: int) -> None:
    script = str(ROOT / relative)
    env = {**os.environ, "PJRT_DEVICE": "CPU", "XLA_CHECK_STEPS": str(steps),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "probe.json"
        subprocess.run([sys.executable, "-m", "perf_validation.probe", "--explain", script,
                        str(out)], env=env, check=True, stdout=subprocess.DEVNULL)
        document = json.loads(out.read_text())
    document = sanitize(document, script)
    (HERE / f"{name}.json").write_text(json.dumps(document, separators=(",", ":")) + "\n")
    print(f"{name}: {(HERE / f'{name}.json').stat().st_size} bytes")


if __name__ == "__main__":
    for key, (path, count) in RECORDINGS.items():
        record(key, path, count)
