"""Bad input never crashes the linter, never makes it slow, never makes it guess.

Every case is linted the way flake8 does it: flake8's own ``FileProcessor``
reads the bytes (encoding cookie, BOM, latin-1 fallback) and builds the tree,
and the engine runs in strict mode, so that a rule exception the plugin would
normally swallow fails the test. Times are measured inside the tests. One test
runs the same files through a real ``python -m flake8`` and checks that it
reports only what it should, without a traceback or a "critical error".

Also here: hypothesmith-generated programs, the guarantee that linting neither
imports nor executes the checked code (nor torch), the engine's strict and
no-gate switches, the gates' soundness (gated and ungated runs agree on every
sample the project has) and the astroid ``builtins`` stub.
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flake8.processor import FileProcessor

from flake8_xla import engine
from flake8_xla.context import Finding, Options
from flake8_xla.engine import lint_source, lint_tree
from flake8_xla.rules import ALL_RULES, Rule

ROOT = Path(__file__).resolve().parent.parent
TIME_BOUND_S = 10.0
#: The shared corpus beside the project (../shared/corpus) holds labels only; its files
#: are materialized into the user cache by ../shared/tools/materialize_corpus.py.
SHARED = ROOT.parent / "shared"
CORPUS_CACHE = Path.home() / ".cache" / "flake8-xla-corpus" / "corpus" / "corpus"


def corpus_files() -> list[Path]:
    """The materialized corpus files, or [] when the corpus is not built here."""
    if not (SHARED / "corpus").is_dir() or not CORPUS_CACHE.is_dir():
        return []
    return sorted(CORPUS_CACHE.glob("*.py"))
_FLAKE8_OPTIONS = argparse.Namespace(hang_closing=False, indent_size=4, max_line_length=79,
                                     max_doc_length=None, verbose=0, disable_noqa=False,
                                     stdin_display_name="stdin")

# A hard-coded CUDA device (XLA501) on line 5: findings must stay on that line
# whatever the encoding, BOM or line endings.
HAZARD = """\
import torch
import torch_xla

name = "caf\u00e9"
device = torch.device("cuda")
"""
HAZARD_FINDING = [(5, "XLA501")]

CLEAN_LOOP = """\
import torch
import torch_xla


def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        torch_xla.sync()
"""


def _deep_nesting(depth: int = 300) -> str:
    """A step loop whose body holds ``depth``-deep expressions of several shapes."""
    exprs = {
        "chain": "1" + " + 1" * depth,
        "attrs": "cfg" + ".a" * depth,
        "nots": "not " * depth + "flag",
        "ternary": "a if c else " * depth + "a",
        "lambdas": "lambda: " * depth + "0",
        "subscripts": "table" + "[0]" * depth,
        "calls": "f" + "(1)" * depth,
        "unary": "-" * depth + "x",
        "power": " ** ".join(["2"] * depth),
    }
    body = "".join(f"        {name} = {expr}\n" for name, expr in exprs.items())
    return CLEAN_LOOP + body


RECURSION = """\
import torch
import torch_xla


def ping(x, n):
    return pong(x, n - 1) if n else x


def pong(x, n):
    return ping(x * 2, n) + ping(x, n - 1)


def forever(loader):
    for batch in loader:
        yield from forever(loader)


class Trainer:
    def a(self, x):
        return self.b(x)

    def b(self, x):
        return self.a(x)

    def fit(self, loader):
        for x, y in loader:
            loss = self.model(x)
            loss.backward()
            self.optimizer.step()
            torch_xla.sync()
            self.fit(loader)
            out = self.a(loss)


def train(model, loader, optimizer, depth=0):
    a = b = loss = None
    for x, y in forever(loader):
        loss = model(x)
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        a = b
        b = a
        loss = loss
        value = ping(loss, 3)
        train(model, loader, optimizer, depth + 1)
"""

# Two names that refer to each other (a global saved and restored): the finding in the
# training loop must survive the cycle.
NAME_CYCLE = """\
import torch
import torch_xla
from torch.utils.data import DataLoader

CALLBACKS = []


def run_callbacks(loss):
    global CALLBACKS
    callbacks = CALLBACKS
    CALLBACKS = []
    try:
        for callback in callbacks:
            callback(loss)
    finally:
        CALLBACKS = callbacks


def train(model, optimizer, dataset):
    loader = DataLoader(dataset, batch_size=8, drop_last=True)
    for x, y in loader:
        loss = model(x.to(torch_xla.device()))
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        print(loss.item())
        run_callbacks(loss)
"""

STAR_IMPORT = """\
import torch
from torch.utils.data import DataLoader
from torch_xla.core.xla_model import *

loader = DataLoader(dataset, batch_size=8, drop_last=True)
for x, y in loader:
    loss = model(x)
    loss.backward()
    optimizer.step()
    mark_step()
"""

MODULE_GETATTR = """\
import torch_xla
import torch_xla.core.xla_model as xm


def __getattr__(name):
    return getattr(xm, name)


def __dir__():
    return dir(xm)


def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x)
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        loss_value = xm.anything_else
"""


def _megabyte_line() -> str:
    numbers = ", ".join(str(i % 1000) for i in range(260_000))
    return CLEAN_LOOP + f"\nDATA = [{numbers}]\n"


_BLOCK = '''

class Net{i}(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(16, 16)

    def forward(self, x):
        return self.layer(x).relu()


def make_batches_{i}(n):
    return [torch.ones(4, 16) for _ in range(n)]


def train_{i}(model, loader, optimizer):
    model.train()
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = model(x.to(device)) + y.to(device).sum()
        loss.backward()
        optimizer.step()
        torch_xla.sync()
        if step % 10 == 0:
            print(f"block {i} step {{step}} loss {{loss.item()}}")
'''
_BLOCK_FINDING_LINE = _BLOCK.count("\n")  # the print, last line of the block
_HEADER = "import torch\nimport torch_xla\n\ndevice = torch_xla.device()\n"


def generated_script(lines: int = 50_000) -> tuple[str, list[tuple[int, str]]]:
    """A training script of about ``lines`` lines and the XLA201 findings it holds.

    Each block holds a model, a helper and a training loop that reads
    ``loss.item()`` in a print every tenth step (one real host sync).
    """
    per_block = _BLOCK.count("\n")
    blocks = max(1, (lines - _HEADER.count("\n")) // per_block)
    source = _HEADER + "".join(_BLOCK.format(i=i) for i in range(blocks))
    first = _HEADER.count("\n") + _BLOCK_FINDING_LINE
    expected = [(first + k * per_block, "XLA201") for k in range(blocks)]
    return source, expected


# name -> (file bytes, expected (line, code) findings; None: flake8 cannot parse it (E999))
CASES: dict[str, tuple[bytes, list[tuple[int, str]] | None]] = {
    "syntax_error": (b"import torch_xla\n\ndef f(:\n    pass\n", None),
    "null_bytes": (b"import torch_xla\x00\nx = 1\n", None),
    "bom": (b"\xef\xbb\xbf" + HAZARD.encode(), HAZARD_FINDING),
    "latin1_cookie": (b"# -*- coding: latin-1 -*-\n" + HAZARD.encode("latin-1"),
                      [(6, "XLA501")]),
    "crlf": (HAZARD.replace("\n", "\r\n").encode(), HAZARD_FINDING),
    "non_utf8_without_cookie": (HAZARD.encode("latin-1"), HAZARD_FINDING),
    "empty": (b"", []),
    "only_bom": (b"\xef\xbb\xbf", []),
    "whitespace_and_comments": (b"\n\n   \n# import torch_xla\n\t\n", []),
    "megabyte_line": (_megabyte_line().encode(), []),
    "deep_nesting": (_deep_nesting().encode(), []),
    "mutual_recursion": (RECURSION.encode(), []),
    "name_cycle": (NAME_CYCLE.encode(), [(26, "XLA201")]),
    "star_import_from_torch_xla": (STAR_IMPORT.encode(), []),
    "module_getattr": (MODULE_GETATTR.encode(), []),
}
# case name -> why it is expected to fail for now (strict xfail: it must be removed once
# fixed). Empty: the star-import barrier and the name cycle were fixed in analysis.py.
KNOWN_FALSE_POSITIVES: dict[str, str] = {}
# What the plugin reports under flake8 instead of the engine's findings: flake8 reads a
# file that is not UTF-8 and has no coding line as latin-1, Python refuses to run it.
THROUGH_FLAKE8: dict[str, list[tuple[int, str]]] = {"non_utf8_without_cookie": [(1, "XLA001")]}


def lint_like_flake8(path: Path, options: Options | None = None) -> tuple[list[Finding], float]:
    """Read and parse ``path`` as flake8 does, lint it strictly; findings and plugin seconds.

    Raises SyntaxError/ValueError when flake8 could not parse the file (E999).
    """
    processor = FileProcessor(str(path), _FLAKE8_OPTIONS)
    tree = processor.build_ast()
    source = "".join(processor.lines)
    started = time.perf_counter()
    found = lint_tree(tree, source, str(path), options or Options(target="all"), strict=True)
    return found, time.perf_counter() - started


def _codes(found: list[Finding]) -> list[tuple[int, str]]:
    return sorted((f.line, f.code) for f in found)


@pytest.fixture(scope="module")
def case_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every case written to its own file."""
    folder = tmp_path_factory.mktemp("bad_inputs")
    paths = {}
    for name, (data, _) in CASES.items():
        paths[name] = folder / f"{name}.py"
        paths[name].write_bytes(data)
    return paths


def _case_params() -> list[object]:
    params = []
    for name in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_FALSE_POSITIVES[name])] \
            if name in KNOWN_FALSE_POSITIVES else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


@pytest.mark.parametrize("name", _case_params())
def test_bad_input(name: str, case_files: dict[str, Path]) -> None:
    """No exception (strict mode), only the real findings, within the time bound."""
    expected = CASES[name][1]
    if expected is None:
        with pytest.raises((SyntaxError, ValueError)):
            lint_like_flake8(case_files[name])
        return
    for target in ("all", "auto"):
        found, seconds = lint_like_flake8(case_files[name], Options(target=target))
        assert _codes(found) == expected, (target, found)
        assert seconds < TIME_BOUND_S, f"{name}: {seconds:.1f} s"


def test_generated_50k_line_training_script(tmp_path: Path) -> None:
    """A 50,000-line script: every real host sync found, nothing else, in bounded time."""
    source, expected = generated_script(50_000)
    assert source.count("\n") >= 49_000
    path = tmp_path / "big_train.py"
    path.write_text(source)
    found, seconds = lint_like_flake8(path, Options(target="auto"))
    assert _codes(found) == expected
    # A bound against superlinear time, not a speed figure (benchmarks/ measure speed):
    # it passed under 20 s in earlier sessions and took 23-33 s on a loaded 2-core machine.
    assert seconds < TIME_BOUND_S * 5, f"{seconds:.1f} s for {source.count(chr(10))} lines"


def test_bad_inputs_through_flake8(case_files: dict[str, Path]) -> None:
    """A real flake8 run: no traceback, no critical error, E999 only where expected."""
    files = [case_files[name] for name in CASES if name != "megabyte_line"]
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--xla-target=all",
                           "--select=XLA,E999,E902", *map(str, files)],
                          capture_output=True, text=True, timeout=120, check=False)
    elapsed = time.monotonic() - started
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and "critical error" not in proc.stderr.lower()
    assert elapsed < TIME_BOUND_S * 3
    reported: dict[str, list[tuple[int, str]]] = {}
    for line in proc.stdout.splitlines():
        path, lineno, _col, rest = line.split(":", 3)
        reported.setdefault(Path(path).stem, []).append((int(lineno), rest.split()[0]))
    for name in CASES:
        if name == "megabyte_line":
            continue
        expected = THROUGH_FLAKE8.get(name, CASES[name][1])
        got = sorted(reported.get(name, []))
        if expected is None:
            assert [code for _, code in got] == ["E999"], (name, got)
        elif name in KNOWN_FALSE_POSITIVES:
            continue
        else:
            assert got == expected, (name, got)


# -- hypothesmith ------------------------------------------------------------------------
hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

# Imports, a device, a training loop: arms every gate, so all rules see the program.
_ARMING = """\
import torch
import torch_xla
import torch_xla.core.xla_model as xm
from torch.utils.data import DataLoader
device = torch_xla.device()
for x, y in DataLoader(dataset, batch_size=8):
    loss = model(x.to(device))
    loss.backward()
    optimizer.step()
    print(loss.item(), torch.device("cuda"), tokenizer(x, padding=True))
"""


@hypothesis.settings(max_examples=25, deadline=None, database=None,
                     suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.given(source=hypothesmith.from_grammar())
def test_generated_programs_never_crash_the_engine(source: str) -> None:
    """Programs from Python's grammar, alone and after an arming prelude: no exception."""
    for text in (source, _ARMING + source):
        try:
            ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # flake8 reports E999; the plugin never sees it
        started = time.perf_counter()
        lint_source(text, "generated.py", Options(target="all"), strict=True)
        assert time.perf_counter() - started < TIME_BOUND_S


# -- the checked code is never run --------------------------------------------------------
def test_linting_never_imports_or_executes_the_checked_code(tmp_path: Path) -> None:
    """Neither the file, nor a module it imports, nor torch/torch_xla get imported."""
    imported, executed = tmp_path / "imported.marker", tmp_path / "executed.marker"
    (tmp_path / "sitecustomize_marker.py").write_text(
        f"open({str(imported)!r}, 'w').close()\n")
    checked = tmp_path / "train.py"
    checked.write_text(textwrap.dedent(f"""\
        import sitecustomize_marker
        import torch
        import torch_xla
        import torch_xla.core.xla_model as xm
        from transformers import AutoTokenizer
        from sitecustomize_marker import *

        open({str(executed)!r}, "w").close()
        device = torch.device("cuda")
        for x, y in loader:
            loss = model(x)
            loss.backward()
            optimizer.step()
            print(loss.item())
        """))
    script = textwrap.dedent("""\
        import json, sys
        from flake8.main import cli
        status = cli.main(["--isolated", "--select=XLA", "--xla-target=all", sys.argv[1]])
        names = ("torch", "torch_xla", "transformers", "sitecustomize_marker", "train")
        print(json.dumps({"status": status, "imported": [n for n in names if n in sys.modules]}))
        """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-c", script, str(checked)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["status"] == 1  # it did lint: there are findings
    assert "XLA501" in proc.stdout and "XLA201" in proc.stdout
    assert result["imported"] == []
    assert not imported.exists() and not executed.exists()


# -- the engine's switches ----------------------------------------------------------------
class _Broken(Rule):
    code = "XLA998"
    name = "broken"
    message = "never"

    def check(self) -> Iterator[Finding]:
        raise RuntimeError("rule bug")


class _Fine(Rule):
    code = "XLA997"
    name = "fine"
    message = "always"

    def check(self) -> Iterator[Finding]:
        yield Finding(1, 0, self.code, "XLA997 always")


def test_a_failing_rule_is_swallowed_unless_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    tree = ast.parse("import torch_xla\n")
    args = (tree, "import torch_xla\n", "t.py", Options())
    limit = sys.getrecursionlimit()
    assert [f.code for f in lint_tree(*args, rules=[_Broken, _Fine], strict=False)] == ["XLA997"]
    with pytest.raises(RuntimeError, match="rule bug"):
        lint_tree(*args, rules=[_Broken, _Fine], strict=True)
    monkeypatch.setenv(engine.STRICT_ENV, "1")
    with pytest.raises(RuntimeError, match="rule bug"):
        lint_tree(*args, rules=[_Broken, _Fine])
    monkeypatch.setenv(engine.STRICT_ENV, "0")
    assert [f.code for f in lint_tree(*args, rules=[_Broken, _Fine])] == ["XLA997"]
    # The process state the engine touches is restored, even after an exception.
    assert gc.isenabled() and sys.getrecursionlimit() == limit


def test_a_failing_gate_runs_every_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(self: object, tree: ast.AST) -> None:
        raise MemoryError

    monkeypatch.setattr(engine.FileFacts, "__init__", explode)
    found = lint_source(HAZARD, "t.py", Options(), strict=False)
    assert _codes(found) == HAZARD_FINDING
    with pytest.raises(MemoryError):
        lint_source(HAZARD, "t.py", Options(), strict=True)


def test_no_gate_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """FLAKE8_XLA_NO_GATES=1 runs a rule whose gate fails."""
    source = "x = 1\n"

    class Always(_Fine):
        code = "XLA503"

        @classmethod
        def precondition(cls, facts: object) -> bool:
            return False  # a gate that fails on every file

    assert lint_tree(ast.parse(source), source, "t.py", Options(target="all"),
                     rules=[Always]) == []
    monkeypatch.setenv(engine.NO_GATES_ENV, "1")
    assert [f.code for f in lint_tree(ast.parse(source), source, "t.py",
                                      Options(target="all"), rules=[Always])] == ["XLA503"]


def test_non_xla_file_never_loads_astroid() -> None:
    """--xla-target=auto on code without XLA: the rules and astroid are never imported."""
    script = textwrap.dedent("""\
        import ast, sys
        from flake8_xla.engine import lint_tree
        from flake8_xla.context import Options
        src = "import os\\nfor x in range(3):\\n    print(x)\\n"
        assert lint_tree(ast.parse(src), src, "t.py", Options(target="auto")) == []
        print("astroid" in sys.modules, "flake8_xla.rules" in sys.modules)
        """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]


def test_a_whole_flake8_run_without_xla_never_loads_astroid(tmp_path: Path) -> None:
    """flake8 imports every installed plugin, report formatters included, on every run:
    none of ours may pull in the rules or astroid until a file needs them."""
    checked = tmp_path / "plain.py"
    checked.write_text("import os\n\nfor x in range(3):\n    print(os.sep, x)\n")
    script = textwrap.dedent(f"""\
        import sys
        from flake8.main import cli
        code = cli.main(["--isolated", "--select=XLA,F", {str(checked)!r}])
        print(code, "flake8_xla.plugin" in sys.modules, "flake8_xla.formatters" in sys.modules,
              "astroid" in sys.modules, "flake8_xla.rules" in sys.modules)
        """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "True", "True", "False", "False"]


# -- the gates are sound -----------------------------------------------------------------
def _samples() -> list[Path]:
    files = sorted((ROOT / "tests" / "eval_files").glob("**/*.py"))
    files += sorted((ROOT / "checks").glob("*/*.py"))
    files += corpus_files()
    return files


def test_the_corpus_is_part_of_the_samples_when_built() -> None:
    """The gate and crash checks also read the shared corpus; say so when it is absent."""
    files = corpus_files()
    if not files:
        pytest.skip("the shared corpus is not built here: run "
                    "python ../shared/tools/materialize_corpus.py (it lists the snapshots)")
    assert len(files) >= 60 and set(files) <= set(_samples())


def test_gates_never_hide_a_finding(case_files: dict[str, Path]) -> None:
    """On every eval file, check pair, corpus script and bad input: gated == ungated."""
    samples = _samples() + [p for n, p in case_files.items() if n != "megabyte_line"]
    assert len(samples) > 20
    # With the TorchTPU band on, so that its gates are checked too.
    options = Options(target="all", version=(2, 9), migrate="torchtpu")
    compared = 0
    for path in samples:
        try:
            processor = FileProcessor(str(path), _FLAKE8_OPTIONS)
            tree = processor.build_ast()
        except (SyntaxError, ValueError):
            continue
        source = "".join(processor.lines)
        # Not strict: crashes are the other tests' business (KNOWN_FALSE_POSITIVES has one).
        gated = lint_tree(tree, source, str(path), options, gates=True, strict=False)
        ungated = lint_tree(tree, source, str(path), options, gates=False, strict=False)
        assert gated == ungated, f"{path}: the gates hid {sorted(set(ungated) - set(gated))}"
        compared += 1
    assert compared > 20


def test_every_rule_fires_on_its_eval_file_through_the_gates() -> None:
    """Each rule with an eval file reports there with the gates on (a dead gate would not)."""
    for rule in ALL_RULES:
        files = sorted((ROOT / "tests" / "eval_files").glob(f"{rule.code}_*.py"))
        if not files:
            continue
        opts = Options(target="all", version=(2, 9), migrate="torchtpu", selected=(rule.code,))
        found = lint_source(files[0].read_text(encoding="utf-8"), str(files[0]), opts,
                            gates=True, strict=True)
        assert rule.code in {f.code for f in found}, rule.code


def test_every_rule_has_a_gate() -> None:
    """A rule without a gate builds astroid for every file under --xla-target=all.

    Give the rule class a ``precondition`` (or a ``table`` of qualified names), and an
    eval file that fires through it.
    """
    ungated = [rule.code for rule in ALL_RULES if engine.gate_for(rule) is None]
    assert ungated == [], f"rules without a precondition: {ungated}"


def test_gate_words_come_from_the_api_model() -> None:
    """The preconditions' word sets are derived from the API model, so a library function
    added there (a barrier, a loader, a launcher) reaches the gates too."""
    from flake8_xla.analysis.apimodel import model
    from flake8_xla.filefacts import words

    api = model()
    w = words()

    def last(names: object) -> set[str]:
        return {str(n).rsplit(".", 1)[-1] for n in names}  # type: ignore[attr-defined]

    assert last(api.names_with(barrier=True)) <= w["barrier"]
    assert {"sync", "mark_step", "optimizer_step", "compile"} <= w["barrier"]
    assert {"MpDeviceLoader", "ParallelLoader", "per_device_loader"} <= w["xla_loader"]
    assert {"backward", "step", "optimizer_step"} <= w["update"]
    from flake8_xla.analysis.steps import UPDATE_NAMES
    assert w["update"] <= UPDATE_NAMES  # the syntax filter of Steps.update_kind
    assert last(api.names_with(effect="launch")) == w["launch"] >= {"spawn", "launch"}
    assert {"nonzero", "masked_select", "unique"} <= w["dynamic"]
    assert {"item", "tolist"} <= w["scalar_sync"]


def test_builtins_stub_changes_no_finding_and_leaves_astroid_clean() -> None:
    """Findings with the stub equal those with astroid's real builtins; the stub is removed."""
    script = textwrap.dedent("""\
        import json, sys
        from pathlib import Path
        from flake8_xla.engine import lint_source
        from flake8_xla.context import Options
        options = Options(target="all", version=(2, 9))
        def run():
            out = {}
            for path in sys.argv[1:]:
                text = Path(path).read_text(encoding="utf-8")
                out[path] = [list(f) for f in lint_source(text, path, options, strict=True)]
            return out
        stub = run()
        from astroid import MANAGER, raw_building, extract_node
        clean = not raw_building.InspectBuilder.bootstrapped and \\
            "builtins" not in MANAGER.astroid_cache
        inferred = next(extract_node("len([1, 2])").infer()).value  # astroid still works
        real = run()
        print(json.dumps({"same": stub == real, "clean": clean, "inferred": inferred,
                          "findings": sum(map(len, real.values()))}))
        """)
    samples = [str(p) for p in _samples()]
    proc = subprocess.run([sys.executable, "-c", script, *samples], capture_output=True,
                          text=True, timeout=180, check=False, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"same": True, "clean": True, "inferred": 2,
                      "findings": result["findings"]}
    assert result["findings"] > 20


def test_astroid_built_from_flake8s_tree_leaves_it_unchanged() -> None:
    """astroid rebuilt from flake8's ast tree equals astroid's own parse, and the ast
    tree that pyflakes and mccabe read after us keeps every docstring and position."""
    from astroid import nodes as astroid_nodes

    from flake8_xla.analysis import build_module

    files = _samples() + sorted((ROOT / "flake8_xla" / "analysis").glob("*.py"))
    for path in files:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        before = ast.dump(tree, include_attributes=True)
        from_tree = build_module(source, "m", tree)
        assert ast.dump(tree, include_attributes=True) == before, path
        # (the name spans of defs and classes, ``position``, are not rebuilt: no rule
        # reads them)
        assert _no_positions(from_tree.repr_tree()) == _no_positions(
            build_module(source, "m").repr_tree()), path
        assert all(n.position is None for n in from_tree.nodes_of_class(
            (astroid_nodes.FunctionDef, astroid_nodes.ClassDef))), path


def _no_positions(shown: str) -> str:
    """``repr_tree()`` text with every ``position=`` field set to None."""
    return re.sub(r"position=(?:None|\[[^\]]*\])", "position=None", shown)


def test_a_failed_rebuild_falls_back_to_parsing_and_is_an_error_when_strict(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """If astroid cannot rebuild flake8's tree, the findings come from astroid's own
    parse; the strict engine (the crash sweep's) reports the failed rebuild instead."""
    from flake8_xla.analysis import build as analysis

    source = (ROOT / "tests" / "eval_files" / "XLA201_host_sync.py").read_text(encoding="utf-8")
    expected = lint_source(source, strict=True)
    assert expected

    def broken(self, *args: object) -> None:
        raise RecursionError("simulated")

    monkeypatch.setattr(analysis._ReadOnlyRebuilder, "visit_module", broken)
    assert lint_source(source, strict=False) == expected
    with pytest.raises(analysis.TreeRebuildError):
        lint_source(source, strict=True)



_HASH_PROBE = """\
import astroid
from flake8_xla.analysis.values import Kind, Value, host, make, tensor
module = astroid.parse("def f():\\n    return 1\\n")
values = [
    Value(Kind.TENSOR, device="xla", qual="torch.randn", flags=frozenset({"param", "input"})),
    Value(Kind.DICT, items=(("loss", tensor("xla")), ("step", host("int")))),
    make(Kind.FUNCTION, module.body[0]),
    Value(Kind.HOST, qual="str", text="cuda"),
    Value(Kind.LOADER, flags=frozenset({"drop_last"}), elem=tensor("cpu")),
    Value(Kind.OBJECT, qual="Trainer"), Value(Kind.OBJECT, qual="MegatronTrainer"),
]
print([hash(v) for v in values], [v.qual for v in frozenset(values)])
"""


def test_value_sets_iterate_in_the_same_order_in_every_process() -> None:
    """The analysis iterates sets of values (the receivers of a method call, the branches
    that reach a name), and around a cycle or at its budget its answer follows that
    order: the hashes, and so the order, must not depend on ``PYTHONHASHSEED`` or on
    where objects live in memory, or the same code gets different findings from run
    to run (found on fairseq's trainer, whose ``trainer`` is one of two classes)."""
    outs = set()
    for seed in ("1", "2", "3"):
        proc = subprocess.run([sys.executable, "-c", _HASH_PROBE], capture_output=True,
                              text=True, timeout=120, check=False,
                              env={**os.environ, "PYTHONHASHSEED": seed})
        assert proc.returncode == 0, proc.stderr
        outs.add(proc.stdout)
    assert len(outs) == 1, outs


def test_deeply_nested_values_keep_a_bounded_depth() -> None:
    """A tuple grown around a loop (``t = t + (x,)``) nests values inside values. Equal
    values built apart are compared part by part, and a part that several positions share
    is compared once per position, so the cost doubles with each level: diffusers'
    ``attention_processor.py`` (5,679 lines) took minutes. Past ``MAX_NEST`` levels the
    innermost parts are unknown, so such a comparison stays cheap."""
    from flake8_xla.analysis import values as V

    def grown(levels: int) -> V.Value:
        v = V.Value(V.Kind.TENSOR, device="xla")
        for _ in range(levels):
            part = frozenset({v})
            v = V.Value(V.Kind.TUPLE, elts=(part, part))
        return v

    a, b = grown(60), grown(60)
    assert a.nest <= V.MAX_NEST and b.nest <= V.MAX_NEST
    assert a is not b and a == b and hash(a) == hash(b)
    inner = a
    while inner.elts is not None:
        inner = next(iter(inner.elts[0]))
    assert inner.kind is V.Kind.UNKNOWN
    shallow = grown(3)
    innermost = next(iter(next(iter(next(iter(shallow.elts[0])).elts[0])).elts[0]))
    assert shallow.nest == 4 and innermost == V.Value(V.Kind.TENSOR, device="xla")
