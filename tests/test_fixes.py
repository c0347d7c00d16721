"""``flake8-xla --fix`` / ``--diff`` / ``--unsafe-fixes`` and the LibCST fixers."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from flake8_xla.cli import main
from flake8_xla.context import Options
from flake8_xla.docs import fix_safety, rule_markdown
from flake8_xla.engine import lint_source
from flake8_xla.fixes import FIX_KINDS, FIX_SAFETY, Target, fix_until_stable, fixable_codes
from flake8_xla.fixes.rules import FIXERS
from flake8_xla.rules import ALL_RULES, LISTED_RULES

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "checks"
FIXABLE = [r for r in ALL_RULES if r.fix != "none"]
SAFE = [r for r in FIXABLE if r.fix == "safe"]
#: Safe rules whose finding also has an unsafe part (XLA506: the loader workers).
PARTLY_UNSAFE = {"XLA506"}


def linter(code: str | None = None) -> Callable[[str], list[Target]]:
    """The ``lint`` that :func:`fix_until_stable` takes: every finding of a text (or only
    ``code``'s) as fix targets."""
    def lint(text: str) -> list[Target]:
        return [Target(f.line, f.col, f.code) for f in lint_source(text, "t.py")
                if code is None or f.code == code]
    return lint


def _codes(path: Path, options: Options | None = None) -> list[str]:
    return [f.code for f in lint_source(path.read_text(encoding="utf-8"), str(path),
                                        options or Options())]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_rule_declares_its_fix_kind() -> None:
    assert all(r.fix in FIX_KINDS for r in LISTED_RULES)
    assert {r.code for r in FIXABLE} == set(FIXERS) == fixable_codes() == set(FIX_SAFETY)
    assert len(SAFE) >= 5
    for rule in LISTED_RULES:
        section = rule_markdown(rule)
        assert f"\n### Fix safety\n\n{fix_safety(rule)}\n" in section
        assert ("Safe fix" in section) == (rule.fix == "safe")
        assert ("Unsafe fix" in section) == (rule.fix == "unsafe")


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda r: r.code)
def test_fix_on_a_copy_of_the_flagged_script(rule: type, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``--fix --select=CODE`` (``--unsafe-fixes`` for unsafe rules) leaves no CODE and parses."""
    path = tmp_path / "flagged.py"
    shutil.copy(CHECKS / rule.code / "flagged.py", path)
    before = path.read_text(encoding="utf-8")
    assert rule.code in _codes(path)
    status, out, err = _run(capsys, "--fix", f"--select={rule.code}", str(path))
    safe_only = path.read_text(encoding="utf-8")
    if rule.fix == "unsafe":
        assert safe_only == before and status == 1 and "--unsafe-fixes" in err
    elif rule.code not in PARTLY_UNSAFE:
        assert status == 0 and out == "", (out, err)
        assert rule.code not in _codes(path)
    if rule.fix == "unsafe" or rule.code in PARTLY_UNSAFE:
        status, out, err = _run(capsys, "--fix", "--unsafe-fixes", f"--select={rule.code}",
                                str(path))
        assert status == 0 and out == "", (out, err)
    fixed = path.read_text(encoding="utf-8")
    assert fixed != before
    ast.parse(fixed)
    assert rule.code not in _codes(path)
    assert "applied" in err


def test_at_least_five_safe_fixes_clean_their_script(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    clean = []
    for rule in SAFE:
        path = tmp_path / f"{rule.code}.py"
        shutil.copy(CHECKS / rule.code / "flagged.py", path)
        status, _, _ = _run(capsys, "--fix", f"--select={rule.code}", str(path))
        if status == 0 and rule.code not in _codes(path):
            ast.parse(path.read_text(encoding="utf-8"))
            clean.append(rule.code)
    assert len(clean) >= 5, clean


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "train.py"
    shutil.copy(CHECKS / "XLA508" / "flagged.py", path)
    before = path.read_bytes()
    status, out, err = _run(capsys, "--diff", str(path))
    assert status == 1 and path.read_bytes() == before
    lines = out.splitlines()
    assert lines[0] == f"--- {path}" and lines[1] == f"+++ {path}" and lines[2].startswith("@@")
    assert "-    device = xm.xla_device()" in lines and "+    device = torch_xla.device()" in lines
    assert "-        xm.mark_step()" in lines and "+        torch_xla.sync()" in lines
    assert "would apply 2 fixes in 1 file" in err
    # Nothing to change: no diff, status 0.
    clean = tmp_path / "clean.py"
    shutil.copy(CHECKS / "XLA508" / "fixed.py", clean)
    assert _run(capsys, "--diff", str(clean))[:2] == (0, "")


def test_comments_and_layout_survive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = ("import torch  # the framework\n"
           "import torch_xla.core.xla_model as xm\n\n\n"
           "def step(model, x):\n"
           "    # move the model\n"
           "    device = xm.xla_device()   # deprecated\n"
           "    model.to( device )\n"
           "    xm.mark_step()  # barrier\n")
    path = tmp_path / "t.py"
    path.write_text(src, encoding="utf-8")
    assert _run(capsys, "--fix", str(path))[0] == 0
    assert path.read_text(encoding="utf-8") == (
        "import torch  # the framework\n"
        "import torch_xla\n\n\n"
        "def step(model, x):\n"
        "    # move the model\n"
        "    device = torch_xla.device()   # deprecated\n"
        "    model.to( device )\n"
        "    torch_xla.sync()  # barrier\n")


def test_noqa_lines_and_unselected_codes_are_left_alone(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    src = ("import torch_xla\nimport torch_xla.core.xla_model as xm\n"
           "d = xm.xla_device()  # noqa: XLA508\n"
           "m = torch.nn.Linear(2, 2).cuda()\n"
           "xm.mark_step()\n")
    path = tmp_path / "t.py"
    path.write_text(src, encoding="utf-8")
    status, out, _ = _run(capsys, "--fix", "--select=XLA508", str(path))
    fixed = path.read_text(encoding="utf-8")
    assert "d = xm.xla_device()  # noqa: XLA508" in fixed and ".cuda()" in fixed
    assert "torch_xla.sync()" in fixed and status == 0 and out == ""


@pytest.mark.parametrize(("version", "barrier"), [("2.9", "torch_xla.sync()"),
                                                  ("2.7", "xm.mark_step()")])
def test_fixes_follow_the_targeted_version(version: str, barrier: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "train.py"
    shutil.copy(CHECKS / "XLA301" / "flagged.py", path)
    _run(capsys, "--fix", "--unsafe-fixes", f"--xla-version={version}", str(path))
    text = path.read_text(encoding="utf-8")
    assert f"        optimizer.step()\n        {barrier}\n" in text
    if barrier.startswith("xm."):
        assert "import torch_xla.core.xla_model as xm\n" in text
    assert "XLA301" not in _codes(path, Options(version=(int(version[0]), int(version[2]))))


def test_import_forms_and_the_removed_apis() -> None:
    src = ("from torch_xla.core.xla_model import mark_step, optimizer_step\n"
           "import torch_xla.core.xla_model as xm\n"
           "import torch_xla.amp\n"
           "rank = xm.get_ordinal()\n"
           "size = xm.xrt_world_size(1)\n"
           "scaler = torch_xla.amp.GradScaler(init_scale=2.0)\n"
           "for x in data:\n"
           "    optimizer_step(opt)\n"
           "    mark_step()\n")

    lint = linter()

    result = fix_until_stable(src, lint, version=(2, 9))
    assert result.text == (
        "from torch_xla.core.xla_model import optimizer_step\n"
        "from torch_xla import sync as mark_step\n"
        "import torch_xla.core.xla_model as xm\n"
        "import torch_xla.amp\n"
        "import torch\n"
        "import torch_xla.runtime as xr\n"
        "\n"
        "rank = xr.global_ordinal()\n"
        "size = xm.xrt_world_size(1)\n"
        "scaler = torch.amp.GradScaler(\"xla\", init_scale=2.0)\n"
        "for x in data:\n"
        "    optimizer_step(opt)\n"
        "    mark_step()\n")
    # xrt_world_size(1) passes defval, which xr.world_size() does not take: not fixed.
    assert [t.code for t in result.remaining] == ["XLA507"]


def test_cuda_devices_and_autocast_forms() -> None:
    src = ("import torch\nimport torch_xla\nfrom torch.cuda.amp import autocast\n"
           "def load(path, device='cuda'):\n"
           "    state = torch.load(path, map_location='cuda:0')\n"
           "    net = Net().cuda(non_blocking=True)\n"
           "    with autocast(True, torch.float16):\n"
           "        y = net(torch.device(f'cuda:{rank}'))\n"
           "    with torch.autocast(device_type='cuda'):\n"
           "        pass\n")

    lint = linter()

    safe = fix_until_stable(src, lint, version=(2, 9))
    assert safe.text == (
        "import torch\nimport torch_xla\n"
        "def load(path, device='xla'):\n"
        "    state = torch.load(path, map_location='cuda:0')\n"
        "    net = Net().to(\"xla\", non_blocking=True)\n"
        "    with torch.autocast(\"xla\", dtype=torch.bfloat16, enabled=True):\n"
        "        y = net(torch.device('xla'))\n"
        "    with torch.autocast(device_type='xla', dtype=torch.bfloat16):\n"
        "        pass\n")
    assert [t.code for t in safe.remaining] == ["XLA501"] and safe.hidden_unsafe == 1
    unsafe = fix_until_stable(src, lint, version=(2, 9), unsafe=True)
    assert "map_location='cpu'" in unsafe.text and unsafe.remaining == []


def test_autocast_with_a_positional_dtype_gets_bfloat16() -> None:
    """``torch.autocast("cuda", torch.float16, True)``: the device and the positional dtype
    are both rewritten, the rest is kept."""
    src = ("import torch\nimport torch_xla\n"
           "def step(net, x):\n"
           "    with torch.autocast(\"cuda\", torch.float16, True):\n"
           "        return net(x.to(torch_xla.device()))\n")
    safe = fix_until_stable(src, linter("XLA401"), version=(2, 9))
    assert "    with torch.autocast(\"xla\", torch.bfloat16, True):\n" in safe.text
    assert safe.remaining == []


def test_host_sync_moves_only_statements_whose_value_is_not_used() -> None:
    src = ("import torch_xla\n"
           "def train(model, loader, opt, log):\n"
           "    for step, x in enumerate(loader):\n"
           "        loss = model(x)\n"
           "        loss.backward(); opt.step()\n"
           "        log.info('%d %f', step, loss.item())\n"
           "        if loss.item() > 10:\n"
           "            break\n"
           "        torch_xla.sync()\n")

    lint = linter("XLA201")

    result = fix_until_stable(src, lint, version=(2, 9), unsafe=True)
    assert ("        xm.add_step_closure(lambda log, step, loss: log.info('%d %f', step, "
            "loss.item()), args=(log, step, loss))\n") in result.text
    assert "import torch_xla.core.xla_model as xm\n" in result.text
    assert [(t.line, t.code) for t in result.remaining] == [(9, "XLA201")]  # the `if`


def test_host_sync_fix_in_a_module_level_loop_captures_the_module_variables() -> None:
    """A training loop at module level (a script or notebook cell): the closure takes the
    module's variables it reads as arguments (this step's values), not its imports."""
    src = ("import torch\nimport torch_xla\n"
           "model = torch.nn.Linear(4, 2).to(torch_xla.device())\n"
           "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
           "for step in range(10):\n"
           "    loss = model(torch.randn(8, 4, device=torch_xla.device())).sum()\n"
           "    loss.backward()\n"
           "    opt.step()\n"
           "    print(f'{step} {loss.item():.3f}', torch.__version__)\n"
           "    torch_xla.sync()\n")
    result = fix_until_stable(src, linter("XLA201"), version=(2, 9), unsafe=True)
    assert ("    xm.add_step_closure(lambda step, loss: print(f'{step} {loss.item():.3f}', "
            "torch.__version__), args=(step, loss))\n") in result.text, result.text
    assert result.remaining == []
    compile(result.text, "<fixed>", "exec")


def test_a_fix_that_would_not_compile_is_never_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from flake8_xla.fixes import core, rules

    def broken(ctx: core.FixContext, target: Target) -> list[core.Edit]:
        node = rules._first(ctx.at(target), core.cst.Attribute)
        return [core.Edit(node, lambda updated: core.cst.Name("return"))] if node else []

    monkeypatch.setitem(rules.FIXERS, "XLA508", broken)
    src = "import torch_xla.core.xla_model as xm\nxm.mark_step()\n"

    lint = linter()

    result = fix_until_stable(src, lint, version=(2, 9))
    assert result.text == src and result.fixed == 0 and "would not compile" in result.error


def test_encoding_and_line_endings_are_kept(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.py"
    text = ("# -*- coding: latin-1 -*-\r\nimport torch_xla.core.xla_model as xm\r\n"
            "print('é')\r\nxm.mark_step()\r\n")
    path.write_bytes(text.encode("latin-1"))
    assert _run(capsys, "--fix", str(path))[0] == 0
    assert path.read_bytes() == ("# -*- coding: latin-1 -*-\r\nimport torch_xla\r\n\r\n"
                                 "print('é')\r\ntorch_xla.sync()\r\n").encode("latin-1")


def test_stdin_fix_prints_the_fixed_source() -> None:
    src = (CHECKS / "XLA508" / "flagged.py").read_text(encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "flake8_xla", "--fix", "-"], input=src,
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "    device = torch_xla.device()\n" in proc.stdout
    assert "        torch_xla.sync()\n" in proc.stdout and "    xm." not in proc.stdout
    ast.parse(proc.stdout)


def test_unsafe_fixes_needs_fix(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "--unsafe-fixes", str(CHECKS / "XLA201"))
    assert status == 2 and "--fix or --diff" in err


def test_the_plugin_never_imports_libcst() -> None:
    code = ("import sys\nfrom flake8.main.cli import main\n"
            "try:\n    main(['--select=XLA', '--format=sarif', 'checks'])\n"
            "except SystemExit:\n    pass\n"
            "print('libcst' in sys.modules, file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)
    assert proc.stderr.strip().splitlines()[-1] == "False", proc.stderr


@pytest.mark.slow
def test_fix_sweep_never_produces_code_that_fails_to_parse() -> None:
    """benchmarks/fix_sweep.py over a sample of the crash-sweep corpus plus checks/ and the
    eval files: in memory (engine), then through the command on copies (--fix, then --diff)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fix_sweep", ROOT / "benchmarks" /
                                                  "fix_sweep.py")
    assert spec is not None and spec.loader is not None
    sweep = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = sweep
    spec.loader.exec_module(sweep)
    files = sweep.corpus([], 200)
    outcomes = sweep.run_engine(files, workers=2)
    bad = [o for o in outcomes if o.status in ("broken", "crash")]
    assert not bad, bad[:3]
    assert sum(o.fixes for o in outcomes) >= 30  # the eval files and checks give fixes
    report = sweep.run_command(files)
    assert report["broken"] == 0 and not report["traceback"], report
    assert report["changed"] >= 20, report


def test_padding_fix_only_touches_calls_that_take_a_padding_strategy() -> None:
    """XLA101 reports the ``max(...)`` that sizes a tensor factory by the batch's longest
    item in a collate function; neither takes ``padding=``, so the unsafe fix leaves them
    alone (and still sets ``padding="max_length"`` on a tokenizer call)."""
    src = ("import torch\nimport torch_xla\nfrom torch.utils.data import DataLoader\n"
           "def collate(batch):\n"
           "    n = max(len(ids) for ids in batch)\n"
           "    return torch.full((len(batch), n), 0)\n"
           "def tokens(tokenizer, texts):\n"
           "    return tokenizer(texts, padding='longest')\n")

    lint = linter("XLA101")

    assert [t.line for t in lint(src)] == [5, 8]
    result = fix_until_stable(src, lint, version=(2, 9), unsafe=True)
    assert "torch.full((len(batch), n), 0)\n" in result.text
    assert "n = max(len(ids) for ids in batch)\n" in result.text
    assert "padding='max_length'" in result.text
    assert [(t.line, t.code) for t in result.remaining] == [(5, "XLA101")]


def test_drop_last_fix_leaves_evaluation_and_prediction_loaders_whole() -> None:
    """XLA102's unsafe fix adds ``drop_last=True`` to a loader that shuffles or takes a
    sampler (training), never to one that does neither (a test or prediction loader,
    whose dropped rows would be missing predictions)."""
    src = ("import torch_xla\nimport torch_xla.distributed.parallel_loader as pl\n"
           "from torch.utils.data import DataLoader\n"
           "def fit(model, opt, train_ds, test_ds):\n"
           "    device = torch_xla.device()\n"
           "    train = DataLoader(train_ds, batch_size=64, shuffle=True)\n"
           "    test = DataLoader(test_ds, batch_size=64)\n"
           "    for loader in (train, test):\n"
           "        for x, y in pl.MpDeviceLoader(loader, device):\n"
           "            model(x).sum().backward()\n"
           "            opt.step()\n")

    lint = linter("XLA102")

    assert [t.line for t in lint(src)] == [6, 7]
    result = fix_until_stable(src, lint, version=(2, 9), unsafe=True)
    assert "DataLoader(train_ds, batch_size=64, shuffle=True, drop_last=True)" in result.text
    assert "DataLoader(test_ds, batch_size=64)\n" in result.text

