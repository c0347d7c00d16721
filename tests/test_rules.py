"""Rule tests: eval files with inline expectations, and the checks/ pairs.

An eval file in tests/eval_files/ marks every expected finding with a trailing
``# error: XLAnnn`` comment on its line; every unmarked line is a true negative.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from flake8_xla.context import Options
from flake8_xla.engine import lint_source
from flake8_xla.rules import ALL_RULES

ROOT = Path(__file__).resolve().parent.parent
EVAL_DIR = Path(__file__).resolve().parent / "eval_files"
CHECKS = ROOT / "checks"
MARK = re.compile(r"#\s*error:\s*(XLA\d{3}(?:\s*,\s*XLA\d{3})*)")
#: An eval file's first lines may set options: ``# flake8-xla: --xla-migrate=torchtpu``.
OPTIONS_MARK = re.compile(r"^#\s*flake8-xla:\s*(.+)$", re.MULTILINE)


def eval_options(path: Path) -> Options:
    """The Options an eval file asks for in a ``# flake8-xla: --opt=value ...`` line."""
    m = OPTIONS_MARK.search(path.read_text(encoding="utf-8")[:2000])
    fields: dict[str, object] = {}
    for arg in (m.group(1).split() if m else []):
        key, _, value = arg.lstrip("-").partition("=")
        if key == "xla-migrate":
            fields["migrate"] = value
        elif key == "xla-version":
            fields["version"] = tuple(int(p) for p in value.split("."))
        elif key == "xla-target":
            fields["target"] = value
        else:
            raise ValueError(f"{path.name}: unknown eval-file option {arg!r}")
    return Options(selected=OPT_IN, **fields)  # type: ignore[arg-type]


def expected_findings(path: Path) -> set[tuple[int, str]]:
    """(line, code) pairs marked with ``# error: CODE`` in an eval file."""
    out = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = MARK.search(line)
        if m:
            out |= {(lineno, code.strip()) for code in m.group(1).split(",")}
    return out


#: Eval files and checks pairs mark the findings of the opt-in rules too.
OPT_IN = tuple(r.code for r in ALL_RULES if r.opt_in)


def actual_findings(path: Path, options: Options | None = None) -> set[tuple[int, str]]:
    found = lint_source(path.read_text(encoding="utf-8"), str(path),
                        options or Options(selected=OPT_IN))
    return {(f.line, f.code) for f in found}


EVAL_FILES = sorted(EVAL_DIR.glob("*.py"))


@pytest.mark.parametrize("path", EVAL_FILES, ids=lambda p: p.stem)
def test_eval_file(path: Path) -> None:
    expected = expected_findings(path)
    actual = actual_findings(path, eval_options(path))
    assert expected, f"{path.name} marks no expected finding"
    missing = sorted(expected - actual)
    extra = sorted(actual - expected)
    assert not missing and not extra, f"missing={missing} unexpected={extra}"


def test_every_rule_has_an_eval_file() -> None:
    stems = {p.stem.split("_", 1)[0] for p in EVAL_FILES}
    assert {r.code for r in ALL_RULES} <= stems


CASES = sorted(p for p in CHECKS.iterdir() if (p / "case.toml").exists())


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_checks_pair(case: Path) -> None:
    spec = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))
    expected = {(e["line"], e["code"]) for e in spec["expect"]}
    assert actual_findings(case / "flagged.py") == expected
    assert actual_findings(case / "fixed.py") == set()


def test_every_rule_has_a_checks_pair() -> None:
    """Every measurable rule; the TorchTPU band (``measurable = False``) needs a TPU."""
    assert {r.code for r in ALL_RULES if r.measurable} <= {c.name for c in CASES}
    assert not {r.code for r in ALL_RULES if not r.measurable} & {c.name for c in CASES}


def test_unmeasurable_rules_say_so() -> None:
    for rule in ALL_RULES:
        if not rule.measurable:
            # The TorchTPU band cannot run here; an opt-in variant names the pair of the
            # rule whose cost it shares.
            assert ("without a TPU" in rule.explanation or rule.opt_in) and \
                "checks/" in rule.explanation, rule.code


def test_flake8_reports_checks_at_case_lines() -> None:
    """The user-facing command of the README: flake8 --select=XLA over checks/."""
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=XLA", str(CHECKS)],
        capture_output=True, text=True, cwd=ROOT, check=False)
    got = set()
    for line in proc.stdout.splitlines():
        path, lineno, _col, rest = line.split(":", 3)
        got.add((Path(path).parent.name, Path(path).name, int(lineno), rest.split()[0]))
    want = set()
    for case in CASES:
        spec = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))
        want |= {(case.name, "flagged.py", e["line"], e["code"]) for e in spec["expect"]
                 if e["code"] not in OPT_IN}  # --select=XLA leaves the opt-in rules off
    assert got == want, proc.stderr
    assert proc.returncode == 1


def test_auto_target_skips_files_without_xla() -> None:
    src = ("import torch\nloader = torch.utils.data.DataLoader(ds)\nfor x in loader:\n"
           "    loss = model(x)\n    loss.backward()\n    opt.step()\n")
    assert lint_source(src, "t.py", Options(target="auto")) == []
    assert [f.code for f in lint_source(src, "t.py", Options(target="all"))] == ["XLA301"]


def test_xla_device_string_enables_auto_target() -> None:
    src = ("import torch\ndevice = torch.device('xla')\nm = torch.nn.Linear(2, 2).cuda()\n")
    assert [f.code for f in lint_source(src, "t.py")] == ["XLA501"]


@pytest.mark.parametrize(("version", "spelling"), [((2, 9), "torch_xla.sync()"),
                                                   ((2, 7), "xm.mark_step()")])
def test_messages_follow_target_version(version: tuple[int, int], spelling: str) -> None:
    found = lint_source((CHECKS / "XLA301" / "flagged.py").read_text(), "f.py",
                        Options(version=version))
    assert found and spelling in found[0].message


def test_noqa_and_extend_ignore() -> None:
    src = ("import torch, torch_xla\n"
           "a = torch.device('cuda')  # noqa: XLA501\n"
           "b = torch.device('cuda')\n")
    args = [sys.executable, "-m", "flake8", "--select=XLA", "-"]
    proc = subprocess.run(args, input=src, capture_output=True, text=True, check=False)
    assert [ln.split(":")[1] for ln in proc.stdout.splitlines()] == ["3"]
    assert proc.returncode == 1
    proc = subprocess.run(args + ["--extend-ignore=XLA501"], input=src, capture_output=True,
                          text=True, check=False)
    assert proc.stdout == "" and proc.returncode == 0


def test_xla_target_from_config(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text(
        "from torch.utils.data import DataLoader\n"
        "def train(model, dataset, opt):\n"
        "    for x in DataLoader(dataset, batch_size=4):\n"
        "        model(x).backward()\n"
        "        opt.step()\n")
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = XLA\nxla-target = all\n")
    proc = subprocess.run([sys.executable, "-m", "flake8", "helper.py"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert "XLA301" in proc.stdout, proc.stderr


def test_linting_imports_neither_torch_nor_checked_code(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    script = tmp_path / "train.py"
    script.write_text(
        "import torch_xla\nimport pathlib\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "import local_side_effect\n")
    (tmp_path / "local_side_effect.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\n")
    code = (
        "import sys\n"
        "from flake8.main.cli import main\n"
        "try:\n"
        f"    main(['--select=XLA', {str(script)!r}, {str(CHECKS)!r}])\n"
        "except SystemExit:\n"
        "    pass\n"
        "bad = [m for m in ('torch', 'torch_xla', 'transformers', 'local_side_effect') "
        "if m in sys.modules]\n"
        "print('IMPORTED', bad)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, check=False)
    assert "IMPORTED []" in proc.stdout, proc.stdout + proc.stderr
    assert not marker.exists()


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_case_names_match_rules(case: Path) -> None:
    from flake8_xla.rules import RULES_BY_CODE

    spec = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))
    assert spec["rule"] == case.name
    assert spec["name"] == RULES_BY_CODE[case.name].name


def test_device_advice_follows_version() -> None:
    src = "import torch, torch_xla\nd = torch.device('cuda')\n"
    new = lint_source(src, "t.py", Options(version=(2, 9)))
    old = lint_source(src, "t.py", Options(version=(2, 7)))
    assert "torch_xla.device()" in new[0].message
    assert "xm.xla_device()" in old[0].message


def test_bad_xla_version_is_a_usage_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=XLA", "--xla-version=banana",
         str(CHECKS / "XLA301" / "flagged.py")], capture_output=True, text=True, check=False)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "--xla-version" in proc.stderr


@pytest.mark.parametrize(("version", "expected"), [
    ((2, 9), {(2, "XLA507"), (3, "XLA508")}),  # get_ordinal gone in 2.7, mark_step deprecated 2.8
    ((2, 6), {(2, "XLA508")}),                 # get_ordinal deprecated in 2.5, still there
    ((2, 4), set()),
])
def test_version_rules_follow_target(version: tuple[int, int],
                                     expected: set[tuple[int, str]]) -> None:
    src = ("import torch_xla.core.xla_model as xm\n"
           "rank = xm.get_ordinal()\n"
           "xm.mark_step()\n")
    found = lint_source(src, "t.py", Options(version=version))
    assert {(f.line, f.code) for f in found} == expected


def test_opt_in_rules_are_off_unless_selected_by_a_longer_prefix() -> None:
    """``--select=XLA`` keeps the opt-in band off; ``--extend-select=XLA302`` turns it on."""
    path = CHECKS / "XLA302" / "flagged.py"
    assert OPT_IN, "no opt-in rule"
    assert all(code not in {c for _, c in actual_findings(path, Options(selected=("XLA",)))}
               for code in OPT_IN)
    assert "XLA302" in {c for _, c in actual_findings(path, Options(selected=("XLA", "XLA302")))}
    assert "XLA302" in {c for _, c in actual_findings(path, Options(selected=("XLA3",)))}


def test_a_value_converted_when_it_is_a_tensor_is_read_once() -> None:
    """``wandb.log({k: (v.item() if torch.is_tensor(v) else v) ...})``: the ``.item()`` is
    the one host read; the logging call then gets host numbers only (no second finding)."""
    source = (
        "import torch\nimport torch_xla\nimport torch_xla.distributed.parallel_loader as pl\n"
        "import wandb\n\n\ndef fit(model, optimizer, loader):\n"
        "    device = torch_xla.device()\n"
        "    for x, y in pl.MpDeviceLoader(loader, device):\n"
        "        loss = torch.nn.functional.cross_entropy(model(x), y)\n"
        "        loss.backward()\n        optimizer.step()\n"
        "        metrics = {'loss': loss, 'lr': 0.1}\n"
        "        wandb.log({k: (v.item() if torch.is_tensor(v) else v) "
        "for k, v in metrics.items()})\n")
    found = [f for f in lint_source(source, "t.py", Options(version=(2, 9))) if f.line == 14]
    assert [f.code for f in found] == ["XLA201"], [f.message for f in found]


def test_an_xla_process_group_makes_replicas_unless_ddp_wraps_the_model() -> None:
    """``dist.init_process_group("xla")`` is a torchrun job of one replica per device
    (XLA502 on a bare step); with the model under DDP, or another backend, it is not."""
    def codes(setup: str, wrap: str = "") -> list[str]:
        src = ("import torch\nimport torch.distributed as dist\nimport torch_xla\n"
               "import torch_xla.distributed.parallel_loader as pl\n"
               "from torch.nn.parallel import DistributedDataParallel as DDP\n"
               "def main(loader):\n"
               f"    {setup}\n"
               "    device = torch_xla.device()\n"
               "    model = torch.nn.Linear(4, 2).to(device)\n"
               f"    {wrap or 'pass'}\n"
               "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
               "    for x in pl.MpDeviceLoader(loader, device):\n"
               "        model(x).sum().backward()\n"
               "        opt.step()\n")
        return [f.code for f in lint_source(src, "t.py", Options(version=(2, 9)))
                if f.code == "XLA502"]

    assert codes('dist.init_process_group("xla")') == ["XLA502"]
    assert codes('dist.init_process_group(backend="xla")') == ["XLA502"]
    assert codes('dist.init_process_group("xla")', "model = DDP(model)") == []
    assert codes('dist.init_process_group("gloo")') == []
    assert codes("pass") == []
    assert codes('dist.init_process_group("xla" if torch_xla else "nccl")') == ["XLA502"]
    # SPMD: one process; its distributed checkpointing sets up a gloo group over xla://
    assert codes('dist.init_process_group("gloo", init_method="xla://")') == []
    assert codes('dist.init_process_group("xla")',
                 "import torch_xla.distributed.spmd as xs; "
                 "xs.mark_sharding(model.weight, None, (0, 1))") == []


def test_pad_sequence_advice_names_a_fixed_length_not_tokenizer_options() -> None:
    """XLA101 on ``pad_sequence`` (which has no ``padding=`` option) advises one fixed
    length per item, not the tokenizer's ``padding='max_length'``."""
    src = ROOT.joinpath("tests", "eval_files", "XLA101_dynamic_padding.py").read_text(
        encoding="utf-8")
    found = [f for f in lint_source(src, "t.py", Options(target="all"))
             if f.code == "XLA101" and "pad_sequence" in f.message]
    assert found, "no pad_sequence finding"
    for f in found:
        assert "fixed length" in f.message and "padding='max_length'" not in f.message


def test_a_trainer_script_that_xla_spawn_cannot_start_needs_no_mp_fn() -> None:
    """xla_spawn.py appends ``--tpu_num_cores N`` to the script's arguments: an argparse
    parser read with a strict ``parse_args()`` and no such option rejects it, so the
    script is not the launcher's (XLA509 silent); declaring the option, or reading the
    arguments with ``parse_known_args``, makes it one again."""
    script = '''\
import argparse

import torch_xla
from transformers import Trainer, TrainingArguments


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir", default="out")
    args = parser.parse_args()
    trainer = Trainer(model=None, args=TrainingArguments(args.output_dir))
    trainer.train()


if __name__ == "__main__":
    main()
'''

    def codes(source: str) -> set[str]:
        return {f.code for f in lint_source(source, "run_train.py", Options(target="all"))}

    assert "XLA509" not in codes(script)
    declared = script.replace('default="out")\n', 'default="out")\n'
                              '    parser.add_argument("--tpu_num_cores", type=int)\n')
    assert "XLA509" in codes(declared)
    assert "XLA509" in codes(script.replace("parser.parse_args()",
                                            "parser.parse_known_args()[0]"))
    # (argparse takes ``--tpu_num_cores`` only as declared: dashes do not accept it)
    dashed = declared.replace("--tpu_num_cores", "--tpu-num-cores")
    assert "XLA509" not in codes(dashed)
    assert "XLA509" not in codes(script.replace("parse_args()", "parse_args(sys.argv[1:])")
                                 .replace("import argparse", "import argparse\nimport sys"))
    # a parser handed to a helper, which may add the option
    helped = script.replace('    args = parser.parse_args()', '    add_tpu_args(parser)\n'
                            '    args = parser.parse_args()')
    assert "XLA509" in codes(helped)
