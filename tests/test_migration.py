"""The TorchTPU migration band (XLA6xx, ``--xla-migrate=torchtpu``).

Off by default; on, every line of a torch_xla training script that uses a torch_xla
API gets a finding that names its TorchTPU counterpart; TorchTPU's own traps are
reported in files that use only TorchTPU too; the hazards that stay keep their rules
and speak TorchTPU's terms. Every TorchTPU name the band recommends exists in the
facts read from the torch-tpu 0.2.0 wheel.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_xla.context import Options
from flake8_xla.engine import lint_source
from flake8_xla.facts import torchtpu_api
from flake8_xla.rules import ALL_RULES
from flake8_xla.rules.migration import COUNTERPARTS, MIGRATION_RULES

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "checks"
MIGRATE = Options(migrate="torchtpu")

TRAINING_SCRIPT = '''\
"""A typical torch_xla 2.x training script (ResNet-style classifier)."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
import torch_xla
import torch_xla.core.xla_model as xm
import torch_xla.debug.metrics as met
import torch_xla.distributed.parallel_loader as pl
import torch_xla.distributed.xla_backend  # noqa: F401
import torch_xla.distributed.xla_multiprocessing as xmp
import torch_xla.runtime as xr
from torch_xla.amp import syncfree

FLAGS = {"batch_size": 32, "epochs": 2, "lr": 0.1}


def train_loop(model, loader, optimizer, loss_fn, device):
    model.train()
    for step, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        with torch.autocast("xla", dtype=torch.bfloat16):
            loss = loss_fn(model(data), target)
        loss.backward()
        xm.optimizer_step(optimizer)
        if step % 20 == 0:
            xm.add_step_closure(lambda s, l: print(s, l.item()), args=(step, loss))


def _mp_fn(index, flags):
    dist.init_process_group("xla", init_method="xla://")
    torch.manual_seed(1)
    device = torch_xla.device()
    world, rank = xr.world_size(), xr.global_ordinal()
    dataset = torch.utils.data.TensorDataset(torch.randn(256, 64), torch.randint(0, 10, (256,)))
    sampler = torch.utils.data.distributed.DistributedSampler(
        dataset, num_replicas=world, rank=rank, shuffle=True)
    loader = torch.utils.data.DataLoader(dataset, batch_size=flags["batch_size"],
                                         sampler=sampler, drop_last=True, num_workers=2)
    train_loader = pl.MpDeviceLoader(loader, device)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
    optimizer = syncfree.SGD(model.parameters(), lr=flags["lr"] * world, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(flags["epochs"]):
        train_loop(model, train_loader, optimizer, loss_fn, device)
        xm.master_print(f"epoch {epoch} done")
        xm.mark_step()
    if xm.is_master_ordinal():
        print(met.short_metrics_report())
    xm.save(model.state_dict(), os.path.join("/tmp", "model.pt"))
    xm.rendezvous("done")


if __name__ == "__main__":
    xmp.spawn(_mp_fn, args=(FLAGS,))
'''

#: A line uses torch_xla when it imports it, names one of its modules' aliases, or
#: passes the 'xla' device / backend string. Independent of the linter's own resolver.
USES_TORCH_XLA = re.compile(r"\btorch_xla\b|\b(?:xm|xr|pl|xmp|met|syncfree)\.|[\"']xla(?::\d+|://)?[\"']")


def _lines_using_torch_xla(source: str) -> set[int]:
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        code = line.split("#", 1)[0]
        if lineno > 1 and USES_TORCH_XLA.search(code):
            out.add(lineno)
    return out


def _flake8(path: Path, *extra: str) -> list[tuple[int, str]]:
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=XLA", *extra, str(path)],
                          capture_output=True, text=True, check=False, cwd=path.parent)
    assert proc.returncode in (0, 1), proc.stderr
    out = []
    for line in proc.stdout.splitlines():
        _, lineno, _, rest = line.split(":", 3)
        out.append((int(lineno), rest.split()[0]))
    return out


def test_every_torch_xla_line_of_a_training_script_gets_a_migration_finding(
        tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(TRAINING_SCRIPT, encoding="utf-8")
    expected = _lines_using_torch_xla(TRAINING_SCRIPT)
    assert len(expected) > 20
    found = _flake8(script, "--xla-migrate=torchtpu")
    band = {line for line, code in found if code.startswith("XLA6")}
    assert band == expected, (f"missing {sorted(expected - band)}, "
                              f"unexpected {sorted(band - expected)}")
    # one finding per use: the band never reports one node twice
    per_use = [(f.line, f.col) for f in lint_source(TRAINING_SCRIPT, "t.py", MIGRATE)
               if f.code.startswith("XLA6")]
    assert len(per_use) == len(set(per_use))
    without = _flake8(script)
    assert without and not [c for _, c in without if c.startswith("XLA6")]


def test_the_standalone_command_and_configs_turn_the_band_on(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(TRAINING_SCRIPT, encoding="utf-8")

    def band(*args: str) -> int:
        proc = subprocess.run([sys.executable, "-m", "flake8_xla", *args, "train.py"],
                              cwd=tmp_path, capture_output=True, text=True, check=False)
        assert proc.returncode in (0, 1), proc.stderr
        return sum(" XLA6" in line for line in proc.stdout.splitlines())

    assert band() == 0
    on = band("--xla-migrate=torchtpu")
    assert on > 20
    (tmp_path / "pyproject.toml").write_text('[tool.flake8-xla]\nxla-migrate = "torchtpu"\n',
                                             encoding="utf-8")
    assert band() == on
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "setup.cfg").write_text("[flake8]\nxla-migrate = torchtpu\n", encoding="utf-8")
    assert band() == on
    assert sum(c.startswith("XLA6") for _, c in _flake8(script)) == on


@pytest.mark.parametrize("config, command", [
    ("[flake8]\nxla-migrate = tpu\n", ["-m", "flake8", "--select=XLA"]),
    ("", ["-m", "flake8", "--select=XLA", "--xla-migrate=jax"]),
    ("", ["-m", "flake8_xla", "--xla-migrate=jax"]),
])
def test_unknown_migration_is_a_usage_error(tmp_path: Path, config: str,
                                            command: list[str]) -> None:
    (tmp_path / "a.py").write_text("import torch_xla\n", encoding="utf-8")
    if config:
        (tmp_path / "setup.cfg").write_text(config, encoding="utf-8")
    proc = subprocess.run([sys.executable, *command, "a.py"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "torchtpu" in proc.stderr


TORCHTPU_ONLY = '''\
import torch

device = torch.device("tpu")
model = torch.nn.Linear(4, 4).to(device)
step = torch.compile(model, dynamic=True)
for x in range(3):
    loss = model(torch.randn(2, 4, device=device)).sum()
    loss.backward()
torch.tpu.synchronize()
'''


def test_torchtpu_only_file_gets_the_traps_and_nothing_else() -> None:
    found = {(f.line, f.code) for f in lint_source(TORCHTPU_ONLY, "t.py", MIGRATE)}
    assert found == {(5, "XLA620"), (9, "XLA622")}  # no XLA301: TorchTPU needs no barrier
    assert lint_source(TORCHTPU_ONLY, "t.py", Options()) == []
    plain = "import torch\nx = torch.ones(2)\ntorch.compile(f, dynamic=True)\n"
    assert lint_source(plain, "t.py", MIGRATE) == []  # neither torch_xla nor TorchTPU


@pytest.mark.parametrize("code", ["XLA101", "XLA102", "XLA103", "XLA104", "XLA201"])
def test_hazards_that_stay_speak_torchtpu(code: str) -> None:
    """The same findings on the checks/ pair, with TorchTPU's wording under the option."""
    source = (CHECKS / code / "flagged.py").read_text(encoding="utf-8")
    plain = [f for f in lint_source(source, "f.py", Options()) if f.code == code]
    migrated = [f for f in lint_source(source, "f.py", MIGRATE) if f.code == code]
    assert plain and [(f.line, f.col) for f in plain] == [(f.line, f.col) for f in migrated]
    assert all("TorchTPU" not in f.message for f in plain)
    assert all("TorchTPU" in f.message and "XLA" not in f.message.split(" ", 1)[1]
               for f in migrated)


# ---------------------------------------------------------- facts from the wheel
def test_the_issue_claims_hold_in_the_wheel() -> None:
    """What issue 14 says of torch-tpu 0.2.0, checked against the facts of its wheel."""
    tpu = torchtpu_api()
    traps, public = tpu["traps"], tpu["public"]
    assert tpu["torch_min"] == [2, 11] and tpu["torch_max"] == [2, 15]
    assert traps["compile_dynamic_true"]["raises"] == "NotImplementedError"
    assert "dynamic=True" in traps["compile_dynamic_true"]["message"]
    assert traps["compile_inductor_tpu_inputs"]["raises"] == "RuntimeError"
    for name in ("synchronize", "is_available", "device_count"):
        entry = public[f"torch.tpu.{name}"]
        assert entry["stage"] == "internal_or_experimental"
        assert entry["internal_for_all_supported_torch"] is True
        assert entry["prefer"] == f"torch.accelerator.{name}"
    assert "forked subprocess" in traps["forked_child"]["message"]
    assert public["torch.tpu.precision"]["graph_break"]
    assert "torch.tpu.distributed.set_tpu_launch_env" in public
    assert traps["device_name"]["device"] == "tpu"
    assert "tpu" in traps["process_group_backends"]["names"]
    assert traps["autocast_default_dtype"]["dtype"] == "torch.bfloat16"


def _band_text() -> str:
    parts = []
    for rule in MIGRATION_RULES:
        parts += [rule.message, rule.explanation, *rule.source]
    parts += [advice for _, _, advice in COUNTERPARTS]
    return "\n".join(parts)


def test_every_torchtpu_name_the_band_recommends_exists_in_the_wheel() -> None:
    tpu = torchtpu_api()
    public = set(tpu["public"])
    modules = {e["module"] for e in tpu["public"].values()}
    prefers = {e.get("prefer") for e in tpu["public"].values()} - {None}
    text = _band_text()
    for name in set(re.findall(r"\btorch\.tpu(?:\.[A-Za-z_]\w*)+", text)):
        if name in modules or name in public:
            continue
        parent = name.rsplit(".", 1)[0]  # torch.tpu.Precision.HIGHEST, EagerMode.DEFER_NEVER
        assert parent in public, f"{name} is not in the torch.tpu table of the wheel"
    for name in set(re.findall(r"\btorch\.accelerator(?:\.[A-Za-z_]\w*)+", text)):
        if name == "torch.accelerator.current_accelerator":
            continue  # upstream torch (2.6+), named only as a description of 'tpu'
        assert name in prefers, f"{name} is not an API TorchTPU names as preferred"


def test_band_rules_cite_the_wheel_and_are_off_by_default() -> None:
    for rule in MIGRATION_RULES:
        assert rule in ALL_RULES and rule.code.startswith("XLA6") and not rule.measurable
        assert any("torch-tpu 0.2.0" in s for s in rule.source), rule.code
        assert any(re.search(r"torch_tpu/\S+\.py", s) for s in rule.source), rule.code
        assert "torch-tpu 0.2.0" in (rule.__doc__ or ""), rule.code
        assert "without a TPU" in rule.explanation, rule.code
    source = (ROOT / "tests" / "eval_files" / "XLA601_torchtpu_device.py").read_text()
    assert not [f for f in lint_source(source, "t.py", Options()) if f.code.startswith("XLA6")]
