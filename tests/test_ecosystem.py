"""flake8-xla in other tools: the pre-commit hook and python-lsp-server (pylsp).

The pre-commit test builds the hook's environment with pip (from PyPI) and takes
about a minute: it is marked ``slow`` (deselect with ``-m "not slow"``). It is
skipped when pre-commit or git is missing, except under CI (``CI`` set), where a
missing tool fails the test.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FLAGGED_201 = ROOT / "checks" / "XLA201" / "flagged.py"
LINE_201 = 39
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def _require(module: str) -> None:
    """Skip without ``module`` (a fast skip), but fail under CI, where it must run."""
    try:
        __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail(f"{module} is not installed (pip install -e '.[test]')")
        pytest.skip(f"{module} is not installed")


def _git(*args: str, cwd: Path) -> str:
    proc = subprocess.run(["git", *args], check=False, cwd=cwd, capture_output=True, text=True, timeout=60,
                          env={**os.environ, **GIT_ENV})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_hook_manifest() -> None:
    _require("pre_commit")
    from pre_commit.clientlib import load_manifest

    (hook,) = [h for h in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
               if h["id"] == "flake8-xla"]
    assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"]
    assert hook["entry"] == "flake8-xla"


def _snapshot_of_this_repo(dest: Path) -> Path:
    """A one-commit git repository holding this working tree (tracked and new files).

    pre-commit installs a hook repository from a commit; ``try-repo`` alone would only
    add tracked changes, so a new module in the working tree would be missing.
    """
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    for rel in filter(None, listed.split("\0")):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    _git("init", "-q", cwd=dest)
    _git("add", "-A", cwd=dest)
    _git("-c", "commit.gpgsign=false", "commit", "-q", "-m", "snapshot", cwd=dest)
    return dest


@pytest.mark.slow
def test_pre_commit_try_repo_fails_on_a_flagged_script(tmp_path: Path) -> None:
    _require("pre_commit")
    if shutil.which("git") is None:
        if os.environ.get("CI"):
            pytest.fail("git is not installed")
        pytest.skip("git is not installed")
    hook_repo = _snapshot_of_this_repo(tmp_path / "flake8-xla")
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(FLAGGED_201, project / "train.py")
    (project / "ok.py").write_text("print('no torch_xla here')\n", encoding="utf-8")
    (project / "broken.py").write_text("import torch_xla\ndef step(:\n", encoding="utf-8")
    _git("init", "-q", cwd=project)
    _git("add", "-A", cwd=project)
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(tmp_path / "cache"),
           "PRE_COMMIT_COLOR": "never", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "flake8-xla",
         "--all-files", "--verbose"],
        check=False, cwd=project, capture_output=True, text=True, timeout=900, env=env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "flake8-xla" in output and "Failed" in output, output
    assert f"train.py:{LINE_201}:36: XLA201 " in output, output
    assert "broken.py:2:" in output and "XLA001 file not checked: SyntaxError" in output, output
    assert "ok.py" not in output.split("Failed", 1)[1], output


# python-lsp-server ----------------------------------------------------------

class LspClient:
    """A minimal LSP client speaking JSON-RPC to ``pylsp`` over stdio."""

    def __init__(self, cwd: Path) -> None:
        from pylsp_jsonrpc.streams import JsonRpcStreamReader, JsonRpcStreamWriter

        self.proc = subprocess.Popen([sys.executable, "-m", "pylsp"], cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.writer = JsonRpcStreamWriter(self.proc.stdin)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        reader = JsonRpcStreamReader(self.proc.stdout)
        threading.Thread(target=reader.listen, args=(self.messages.put,), daemon=True).start()
        self._next_id = 0

    def request(self, method: str, params: dict[str, Any], timeout: float = 30) -> Any:
        self._next_id += 1
        self.writer.write({"jsonrpc": "2.0", "id": self._next_id, "method": method,
                           "params": params})
        msg = self.wait(lambda m: m.get("id") == self._next_id and "method" not in m, timeout)
        assert "error" not in msg, msg
        return msg.get("result")

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.writer.write({"jsonrpc": "2.0", "method": method, "params": params})

    def wait(self, predicate: Any, timeout: float) -> dict[str, Any]:
        """The first message (received from now on) matching ``predicate``; fails on timeout."""
        try:
            while True:
                msg = self.messages.get(timeout=timeout)
                if predicate(msg):
                    return msg
        except queue.Empty:
            pytest.fail(f"no matching LSP message within {timeout} s")

    def close(self) -> None:
        try:
            self.request("shutdown", {}, timeout=10)
            self.notify("exit", {})
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def lsp_settings() -> dict[str, Any]:
    """The pylsp settings of docs/editors.md: flake8 on, its XLA findings; other linters off."""
    flake8 = Path(sys.executable).with_name("flake8")
    return {"pylsp": {"configurationSources": ["flake8"], "plugins": {
        "flake8": {"enabled": True, **({"executable": str(flake8)} if flake8.exists() else {})},
        "pycodestyle": {"enabled": False}, "pyflakes": {"enabled": False},
        "mccabe": {"enabled": False}}}}


def test_pylsp_publishes_xla_diagnostics(tmp_path: Path) -> None:
    _require("pylsp")
    source = FLAGGED_201.read_text(encoding="utf-8")
    path = tmp_path / "train.py"
    path.write_text(source, encoding="utf-8")
    uri = path.as_uri()
    client = LspClient(tmp_path)
    try:
        client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(),
                                      "capabilities": {},
                                      "initializationOptions": lsp_settings()})
        client.notify("initialized", {})
        client.notify("workspace/didChangeConfiguration", {"settings": lsp_settings()})
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": 1, "text": source}})
        msg = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                          and m["params"]["uri"] == uri
                          and any(d.get("code") == "XLA201" for d in m["params"]["diagnostics"]),
                          timeout=60)
    finally:
        client.close()
    (diag,) = [d for d in msg["params"]["diagnostics"] if d.get("code") == "XLA201"]
    assert diag["source"] == "flake8"
    assert diag["range"]["start"]["line"] == LINE_201 - 1  # LSP lines are 0-based
    assert diag["message"].startswith("XLA201 host sync in the step loop")


def test_every_package_of_the_source_tree_goes_into_the_wheel() -> None:
    """A subpackage left out of the wheel breaks every non-editable install at import
    time (``pip install flake8-xla``, the pre-commit hook), while editable installs and
    the fast lane keep passing; so the wheel's package list is checked here."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    shipped = set(find_packages(str(ROOT), include=include))
    for top in ("flake8_xla", "perf_validation"):
        for folder in (ROOT / top).rglob("*.py"):
            pkg = folder.parent
            if pkg.name == "__pycache__" or not (pkg / "__init__.py").exists():
                continue
            dotted = ".".join(pkg.relative_to(ROOT).parts)
            assert dotted in shipped, f"{dotted} is not in the wheel"
