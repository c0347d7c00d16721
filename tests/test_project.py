"""Whole projects (issue 11): the project index, its disk cache, the project-aware
``--xla-target=auto`` and findings whose cause lies in another module.

Every project here is written into ``tmp_path`` by the test itself.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from astroid import nodes as nodes_mod

from flake8_xla import project
from flake8_xla.context import Options
from flake8_xla.engine import lint_source
from flake8_xla.project.cache import CACHE_DIR_NAME, INDEX_NAME, cache_dir
from flake8_xla.project.index import ProjectIndex, index_for
from flake8_xla.project.roots import find_root
from flake8_xla.project.summary import Summary, summarize

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Each test starts with no per-process project state and its own cache folder."""
    monkeypatch.setenv("FLAKE8_XLA_CACHE_DIR", str(tmp_path / "user-cache"))
    monkeypatch.delenv("FLAKE8_XLA_NO_CACHE", raising=False)
    project.reset()
    yield
    project.reset()


def write(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text, dedented) under ``root``; return ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def lint(path: Path, target: str = "auto") -> list[tuple[int, str]]:
    """(line, code) of the findings in ``path`` as flake8 would report them."""
    text = path.read_text(encoding="utf-8")
    found = lint_source(text, str(path), Options(target=target, version=(2, 9)), strict=True)
    return sorted((f.line, f.code) for f in found)


def messages(path: Path, target: str = "auto") -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [f.message for f in lint_source(text, str(path), Options(target=target,
                                                                    version=(2, 9)))]


# ----------------------------------------------------------------------------- a project
TRAIN = """\
    import torch
    import torch_xla
    import torch_xla.core.xla_model as xm

    import engine
    import metrics
    import utils
    from data import make_loader


    def main():
        device = torch_xla.device()
        model = torch.nn.Linear(4, 2).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = make_loader(32)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = engine.train_step(model, opt, x, y)
            metrics.report(loss)
            torch_xla.sync()
        utils.save(model, "model.pt")


    if __name__ == "__main__":
        main()
    """
ENGINE = """\
    import torch.nn.functional as F


    def train_step(model, opt, x, y):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    """
METRICS = """\
    def report(loss):
        print("loss", loss.item())
    """
DATA = """\
    import torch
    from torch.utils.data import DataLoader, TensorDataset


    def make_loader(batch_size):
        ds = TensorDataset(torch.randn(100, 4), torch.randint(0, 2, (100,)))
        return DataLoader(ds, batch_size=batch_size, shuffle=True)
    """
UTILS = """\
    import torch


    def save(model, path):
        torch.save(model.state_dict(), path)
    """
UNRELATED = """\
    def first(t):
        return t.item()
    """


@pytest.fixture()
def proj(tmp_path: Path) -> Path:
    """A training script and four helpers that never name XLA, plus an unrelated module."""
    return write(tmp_path / "proj", {
        "pyproject.toml": "[project]\nname = 'p'\n", "train.py": TRAIN, "engine.py": ENGINE,
        "metrics.py": METRICS, "data.py": DATA, "utils.py": UTILS,
        "unrelated.py": UNRELATED})


# ----------------------------------------------------------------------------- roots
def test_root_is_the_nearest_folder_with_a_marker(tmp_path: Path) -> None:
    for marker in ("pyproject.toml", "setup.cfg", "setup.py", ".git"):
        top = write(tmp_path / marker.strip("."), {"a/b/mod.py": "x = 1\n"})
        if marker == ".git":
            (top / ".git").mkdir()
        else:
            (top / marker).write_text("")
        assert find_root(top / "a" / "b" / "mod.py").path == top.resolve()
    outer = write(tmp_path / "outer", {"setup.py": "", "inner/pyproject.toml": "",
                                        "inner/m.py": "", "m.py": ""})
    assert find_root(outer / "inner" / "m.py").path == (outer / "inner").resolve()
    assert find_root(outer / "m.py").path == outer.resolve()


def test_root_without_a_marker_is_the_folder_above_the_outermost_package(tmp_path: Path
                                                                          ) -> None:
    top = write(tmp_path / "loose", {"pkg/__init__.py": "", "pkg/sub/__init__.py": "",
                                      "pkg/sub/m.py": "", "script.py": ""})
    root = find_root(top / "pkg" / "sub" / "m.py")
    assert root is not None and root.path == top.resolve() and not root.marked
    assert find_root(top / "script.py").path == top.resolve()


def test_without_a_marker_the_folder_flake8_runs_in_is_the_root(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``flake8 .`` at the top of a copy without ``.git``: a package in a ``src`` folder
    that is not one belongs to the project of the script beside ``src`` that imports it,
    so its loader is reported there as in a git checkout; elsewhere (or too far above the
    package) the fallback stays the folder above the outermost package."""
    top = write(tmp_path / "copy", {
        "src/data/__init__.py": "",
        "src/data/loaders.py": """\
            from torch.utils.data import DataLoader

            def get_loader(ds, bs):
                return DataLoader(ds, batch_size=bs, shuffle=True)
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from src.data.loaders import get_loader

            def main(model, opt, ds):
                device = torch_xla.device()
                for x, y in pl.MpDeviceLoader(get_loader(ds, 32), device):
                    model(x).sum().backward()
                    opt.step()
            """})
    loaders = top / "src" / "data" / "loaders.py"
    monkeypatch.chdir(ROOT)  # (a folder that does not hold the copy)
    assert find_root(loaders).path == (top / "src").resolve()
    assert lint(loaders) == []
    project.reset()
    monkeypatch.chdir(top)
    root = find_root(loaders)
    assert root is not None and root.path == top.resolve() and not root.marked
    assert lint(loaders) == [(4, "XLA102")]
    deep = write(tmp_path / "a" / "b" / "c" / "d", {"pkg/__init__.py": "", "pkg/m.py": ""})
    monkeypatch.chdir(tmp_path)  # four folders above the package's parent: too far
    assert find_root(deep / "pkg" / "m.py").path == deep.resolve()
    stdlib = write(tmp_path / "usr" / "lib" / "python3.11", {"os.py": "", "site.py": ""})
    monkeypatch.chdir(tmp_path / "usr" / "lib")  # a standard library is no project code
    assert find_root(stdlib / "os.py").path == stdlib.resolve()


def test_no_project_for_missing_files_installed_packages_and_virtualenvs(tmp_path: Path
                                                                         ) -> None:
    top = write(tmp_path / "p", {"pyproject.toml": "", ".venv/lib/x.py": "",
                                  "build/y.py": "",
                                  "lib/site-packages/pkg/__init__.py": "",
                                  "lib/site-packages/pkg/core.py": "",
                                  "lib/site-packages/six.py": ""})
    assert find_root(top / "nope.py") is None
    assert find_root("<stdin>") is None
    assert find_root(top / ".venv" / "lib" / "x.py") is None
    assert find_root(top / "build" / "y.py") is None
    installed = find_root(top / "lib" / "site-packages" / "pkg" / "core.py")
    assert installed.path == (top / "lib" / "site-packages" / "pkg").resolve()
    assert installed.import_base == (top / "lib" / "site-packages").resolve()
    assert find_root(top / "lib" / "site-packages" / "six.py") is None


# ----------------------------------------------------------------------------- resolution
def test_module_resolution_follows_pythons_import_system(tmp_path: Path) -> None:
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "train.py": "",
        "utils.py": "",
        "helpers/__init__.py": "", "helpers.py": "",      # a package wins over a module
        "ns/part.py": "",                                  # a namespace package
        "src/lib/__init__.py": "", "src/lib/core.py": "",  # a src/ layout
        "pkg/__init__.py": "", "pkg/a.py": "", "pkg/utils.py": "", "pkg/sub/__init__.py": "",
        "pkg/sub/b.py": "",
        "tools/utils.py": "", "tools/run.py": "",          # same name, another folder
    })
    ix = ProjectIndex(find_root(top / "train.py"))
    ix.scan()
    assert ix.resolve("train.py", "utils") == "utils.py"
    assert ix.resolve("train.py", "helpers") == "helpers/__init__.py"
    assert ix.resolve("train.py", "ns") == "ns/"
    assert ix.resolve("train.py", "ns.part") == "ns/part.py"
    assert ix.resolve("train.py", "lib.core") == "src/lib/core.py"
    assert ix.resolve("tools/run.py", "utils") == "tools/utils.py"  # the script's folder first
    # absolute imports in a package start above it; relative ones climb from it
    assert ix.resolve("pkg/sub/b.py", "utils") == "utils.py"
    assert ix.resolve("pkg/sub/b.py", "utils", level=2) == "pkg/utils.py"
    assert ix.resolve("pkg/sub/b.py", "", level=1) == "pkg/sub/__init__.py"
    assert ix.resolve("pkg/a.py", "sub.b", level=1) == "pkg/sub/b.py"
    assert ix.resolve("pkg/a.py", "x", level=5) is None                # above the root
    assert ix.resolve("train.py", "torch") is None                    # not the project's
    assert ix.resolve_name("train.py", "utils.save") == ("utils.py", ["save"])
    assert ix.resolve_name("pkg/sub/b.py", "..a.f") == ("pkg/a.py", ["f"])


def test_a_script_folder_above_the_importers_packages_is_an_import_base(tmp_path: Path
                                                                        ) -> None:
    """``app/main.py`` puts ``app/`` on sys.path: a module of ``app/runtime/trainer/``
    (``runtime`` a namespace folder) imports ``runtime.trainer.base`` from there. Only a
    module file resolves that way, never a bare folder named like a library."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "app/main.py": "", "app/runtime/logs.py": "",
        "app/runtime/trainer/__init__.py": "", "app/runtime/trainer/base.py": "",
        "app/runtime/trainer/xla.py": "", "app/torch/readme.py": "",
    })
    ix = ProjectIndex(find_root(top / "app/main.py"))
    ix.scan()
    assert ix.resolve("app/runtime/trainer/xla.py", "runtime.trainer.base") == \
        "app/runtime/trainer/base.py"
    assert ix.resolve("app/runtime/trainer/xla.py", "runtime.logs") == "app/runtime/logs.py"
    assert ix.resolve("app/runtime/trainer/xla.py", "torch") is None


def test_the_project_wins_and_library_copies_are_left_alone(tmp_path: Path) -> None:
    top = write(tmp_path / "w", {
        "pyproject.toml": "",
        "datasets.py": "def make():\n    return 1\n",       # named like a library
        "torch_xla/__init__.py": "", "torch_xla/core/__init__.py": "",
        "torch_xla/core/xla_model.py": "def mark_step():\n    pass\n",
        "train.py": "import datasets\nimport torch_xla.core.xla_model as xm\n"
                    "if __name__ == '__main__':\n    datasets.make()\n",
    })
    ix = ProjectIndex(find_root(top / "train.py"))
    assert ix.resolve("train.py", "datasets") == "datasets.py"
    assert not ix.is_library("datasets.py")
    assert ix.is_library("torch_xla/core/xla_model.py")
    assert ix.import_targets("train.py") == ("datasets.py",)
    assert ix.xla_code() == frozenset({"train.py", "datasets.py"})


def test_a_project_package_named_like_a_library_is_the_projects(tmp_path: Path) -> None:
    """A ``datasets/`` package of the project's own dataset classes (DETR's
    ``datasets/coco.py``) is project code, which wins over the API model's ``datasets.``
    prefix: its classes are analysed (a known size in batches that divide it is no ragged
    last batch, another size is). A package that copies the library (a module or an
    ``__init__`` name the model lists under it: ``load_dataset``) stays a library copy."""
    top = write(tmp_path / "w", {
        "pyproject.toml": "",
        "datasets/__init__.py": "from .shapes import ShapesDataset\n",
        "datasets/base.py": """\
            from torch.utils.data import Dataset


            class FixedSize(Dataset):
                def __init__(self, num_samples, seed=0):
                    self.num_samples = num_samples
                    self.seed = seed

                def __len__(self):
                    return self.num_samples
            """,
        "datasets/shapes.py": """\
            import torch

            from .base import FixedSize


            class ShapesDataset(FixedSize):
                def __getitem__(self, idx):
                    return torch.zeros(3, 8, 8)
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from datasets.shapes import ShapesDataset


            def main(model, optimizer):
                device = torch_xla.device()
                train = DataLoader(ShapesDataset(num_samples=8192, seed=1), batch_size=128)
                val = DataLoader(ShapesDataset(1000), batch_size=128)
                for loader in (train, val):
                    for img in pl.MpDeviceLoader(loader, device):
                        model(img).sum().backward()
                        xm.optimizer_step(optimizer)
            """,
        "vendor/datasets/__init__.py": "from .load import load_dataset\n",
        "vendor/datasets/load.py": "def load_dataset(name):\n    return name\n",
    })
    ix = ProjectIndex(find_root(top / "train.py"))
    assert not ix.is_library("datasets/shapes.py")
    assert not ix.is_library("datasets/base.py")
    assert lint(top / "train.py") == [(12, "XLA102")]
    copy = write(tmp_path / "c", {
        "pyproject.toml": "",
        "datasets/__init__.py": "from .load import load_dataset\n",
        "datasets/load.py": "def load_dataset(name):\n    return name\n",
        "datasets/arrow.py": "X = 1\n",
    })
    cx = ProjectIndex(find_root(copy / "datasets" / "arrow.py"))
    assert cx.is_library("datasets/arrow.py")


def test_a_dataset_size_stored_elsewhere_is_not_known(tmp_path: Path) -> None:
    """A size set by the constructor is trusted only where nothing else may store that
    attribute on the object: not after a factory returns it to the checked file
    (``val_ds.num_samples = 1000``), nor when a helper module it is handed to may set it
    (``limit_samples``): the sizes stay unknown and the loaders are reported."""
    top = write(tmp_path / "w", {
        "pyproject.toml": "",
        "data.py": """\
            import torch
            from torch.utils.data import Dataset


            class SyntheticTokens(Dataset):
                def __init__(self, num_samples):
                    self.num_samples = num_samples

                def __len__(self):
                    return self.num_samples

                def __getitem__(self, i):
                    return torch.zeros(8)


            def build_dataset(n):
                return SyntheticTokens(n)
            """,
        "utils.py": """\
            def limit_samples(dataset, n):
                dataset.num_samples = min(n, dataset.num_samples)
                return dataset
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from data import build_dataset


            def main(model, optimizer):
                device = torch_xla.device()
                val_ds = build_dataset(8000)
                val_ds.num_samples = 1000
                loader = DataLoader(val_ds, batch_size=32)
                for x in pl.MpDeviceLoader(loader, device):
                    model(x).sum().backward()
                    xm.optimizer_step(optimizer)
            """,
        "eval.py": """\
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from data import SyntheticTokens
            from utils import limit_samples


            def main(model):
                device = torch_xla.device()
                ds = limit_samples(SyntheticTokens(8000), 1000)
                for x in pl.MpDeviceLoader(DataLoader(ds, batch_size=32), device):
                    model(x)
            """,
    })
    assert lint(top / "train.py") == [(13, "XLA102")]
    assert lint(top / "eval.py") == [(12, "XLA102")]


def test_vendored_library_copies_and_plain_project_bases(tmp_path: Path) -> None:
    """A vendored copy of a library the API model knows by a prefix alone (``scipy.``)
    stays a library copy; a plain project base class (``class BaseDataset(object)``) in
    another module leaves its subclass's kind to the name checks, so a guarded device
    choice in the dataset's own ``__init__`` is where its items are made (XLA501 silent)."""
    top = write(tmp_path / "w", {
        "pyproject.toml": "",
        "scipy/__init__.py": "", "scipy/stats.py": "def pearsonr(a, b):\n    return 0.0\n",
        "base.py": """\
            class BaseDataset(object):
                def __len__(self):
                    return len(self.items)

                def __getitem__(self, i):
                    return self.items[i]
            """,
        "data.py": """\
            import torch

            from base import BaseDataset


            class AudioDataset(BaseDataset):
                def __init__(self, items):
                    self.items = items
                    self.device = "cuda" if torch.cuda.is_available() else "cpu"
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from data import AudioDataset


            def main(model, optimizer, items):
                device = torch_xla.device()
                loader = DataLoader(AudioDataset(items), batch_size=8, drop_last=True)
                for x in pl.MpDeviceLoader(loader, device):
                    model(x).sum().backward()
                    xm.optimizer_step(optimizer)
            """,
    })
    ix = ProjectIndex(find_root(top / "train.py"))
    assert ix.is_library("scipy/stats.py")
    assert lint(top / "data.py") == []


# ----------------------------------------------------------------------------- XLA code
def test_auto_makes_the_helpers_of_an_xla_program_xla_code(proj: Path) -> None:
    ix = index_for(proj / "train.py")
    assert ix.xla_code() == {"train.py", "engine.py", "metrics.py", "data.py", "utils.py"}
    assert not ix.is_xla_code(proj / "unrelated.py")
    assert lint(proj / "metrics.py", "auto") == [(2, "XLA201")]
    assert lint(proj / "metrics.py", "file") == []
    assert lint(proj / "unrelated.py", "auto") == []
    assert lint(proj / "unrelated.py", "all") == []  # all: XLA code, but no step


def test_xla_code_reaches_through_other_modules_and_cycles(tmp_path: Path) -> None:
    top = write(tmp_path / "c", {
        "setup.cfg": "",
        "run.py": "import torch_xla\nfrom pkg import a\n",          # a program
        "pkg/__init__.py": "from .a import *\n",
        "pkg/a.py": "from . import b\n",
        "pkg/b.py": "import pkg.a\nfrom pkg.c import thing\n",     # a cycle a <-> b
        "pkg/c.py": "thing = 1\n",
        "lonely.py": "import pkg.c\n",
        "opt.py": "try:\n    import torch_xla\nexcept ImportError:\n    pass\n"
                  "import lonely\n",                               # optional XLA: no pull
    })
    ix = index_for(top / "run.py")
    assert ix.xla_code() == {"run.py", "pkg/__init__.py", "pkg/a.py", "pkg/b.py",
                             "pkg/c.py", "opt.py"}
    assert not ix.is_xla_code(top / "lonely.py")


def test_classes_named_by_config_files_are_reached_by_programs_that_build_them(
        tmp_path: Path) -> None:
    # A Hydra/hyperpyyaml program builds the classes its YAML files name: their modules are
    # XLA code (and what they import), as if the program imported them; a file name
    # under ``target:`` is no class, and a program that reads no config reaches nothing.
    top = write(tmp_path / "h", {
        "setup.cfg": "",
        "train.py": """\
            import hydra
            import torch_xla
            from hydra.utils import instantiate


            @hydra.main(config_path="conf", config_name="train")
            def main(cfg):
                model = instantiate(cfg.model).to(torch_xla.device())
            """,
        "conf/train.yaml": "model:\n  _target_: models.flow.Flow\n  dim: 8\n"
                           "data:\n  target: data.csv\n",
        "conf/tts.yaml": "llm: !new:models.llm.LM\n  size: 4\n",
        "models/__init__.py": "",
        "models/flow.py": "from models import blocks\n\n\nclass Flow:\n    pass\n",
        "models/blocks.py": "class Block:\n    pass\n",
        "models/llm.py": "class LM:\n    pass\n",
        "models/unused.py": "class Unused:\n    pass\n",
        "data.py": "def load():\n    pass\n",
    })
    ix = index_for(top / "train.py")
    assert ix.xla_code() == {"train.py", "models/flow.py", "models/blocks.py",
                             "models/llm.py", "models/__init__.py"}
    assert not ix.is_xla_code(top / "data.py")
    # a program that builds nothing from configuration reaches none of them
    plain = write(tmp_path / "p", {
        "setup.cfg": "",
        "train.py": "import torch_xla\n",
        "conf/train.yaml": "model:\n  _target_: models.flow.Flow\n",
        "models/__init__.py": "",
        "models/flow.py": "class Flow:\n    pass\n",
    })
    assert index_for(plain / "train.py").xla_code() == {"train.py"}
    # a config for GPUs (its path says so), or one only a script without XLA use names
    # (``config_name="gpu"``), is not the XLA program's
    write(top, {
        "conf/gpu.yaml": "trainer:\n  _target_: trainers.cuda.CudaTrainer\n",
        "conf/local.yaml": "trainer:\n  _target_: trainers.local.LocalTrainer\n",
        "train_local.py": """\
            import hydra


            @hydra.main(config_path="conf", config_name="local")
            def main(cfg):
                pass


            if __name__ == "__main__":
                main()
            """,
        "trainers/__init__.py": "",
        "trainers/cuda.py": "class CudaTrainer:\n    pass\n",
        "trainers/local.py": "class LocalTrainer:\n    pass\n",
    })
    # nor a test's or a run's YAML, nor a commented-out target; a name the package
    # re-exports reaches the package and the module defining it
    write(top, {
        "tests/conf/double.yaml": "model:\n  _target_: trainers.double.Double\n",
        "lightning_logs/version_0/hparams_config.yaml": "_target_: trainers.logged.Logged\n",
        "conf/model/fused.yaml": "# _target_: trainers.fused.Fused\n"
                                 "_target_: trainers.Exported  # the package's name\n",
        "trainers/__init__.py": "from trainers.exported import Exported\n",
        "trainers/double.py": "class Double:\n    pass\n",
        "trainers/logged.py": "class Logged:\n    pass\n",
        "trainers/fused.py": "class Fused:\n    pass\n",
        "trainers/exported.py": "class Exported:\n    pass\n",
    })
    project.reset()
    reached = index_for(top / "train.py").xla_code()
    assert "trainers/cuda.py" not in reached and "trainers/local.py" not in reached
    assert not {"trainers/double.py", "trainers/logged.py", "trainers/fused.py"} & reached
    assert {"trainers/__init__.py", "trainers/exported.py"} <= reached
    # a changed config file is read again (the cached layout is keyed on it)
    (top / "conf/tts.yaml").write_text("llm: !new:models.unused.Unused\n")
    project.reset()
    assert "models/unused.py" in index_for(top / "train.py").xla_code()


def test_plain_tensor_attributes_follow_what_importers_do_to_them(tmp_path: Path) -> None:
    # ``self.band = torch.tensor(band)`` stays on the CPU with the module's ``.to()``: a
    # constructor keyword of the same name in the script changes nothing; the script's
    # ``model.band = model.band.to(device)`` moves it.
    model = """\
        import torch
        from torch import nn


        class BandNet(nn.Module):
            def __init__(self, band=(16, 144)):
                super().__init__()
                self.band = torch.tensor(band)
                self.head = nn.Linear(128, 4)

            def forward(self, spec):
                return self.head(spec[:, self.band[0]:self.band[1]])
        """
    train = """\
        import torch_xla
        from models import BandNet


        def main():
            device = torch_xla.device()
            model = BandNet(band=(16, 144)).to(device){moved}


        if __name__ == "__main__":
            main()
        """
    kept = write(tmp_path / "kept", {"setup.cfg": "", "models.py": model,
                                     "train.py": train.format(moved="")})
    assert lint(kept / "models.py") == []
    moved = write(tmp_path / "moved", {
        "setup.cfg": "", "models.py": model,
        "train.py": train.format(moved="\n            model.band = model.band.to(device)")})
    assert lint(moved / "models.py") == [(12, "XLA104")]


def test_torchrun_variables_set_by_a_helper_module_are_not_missing(tmp_path: Path) -> None:
    # XLA504 for a sampler that reads WORLD_SIZE/RANK under xmp.spawn, unless a module of
    # the project sets them (``export_torchrun_env()`` from torch_xla's runtime)
    train = """\
        import os

        import torch
        import torch_xla.distributed.xla_multiprocessing as xmp
        from torch.utils.data import DistributedSampler, TensorDataset
        {imports}

        def _mp_fn(index):
            {call}
            ds = TensorDataset(torch.randn(64, 4))
            return DistributedSampler(ds, num_replicas=int(os.environ.get("WORLD_SIZE", 1)),
                                      rank=int(os.environ.get("RANK", 0)))


        if __name__ == "__main__":
            xmp.spawn(_mp_fn)
        """
    bare = write(tmp_path / "bare", {"setup.cfg": "",
                                     "train.py": train.format(imports="", call="pass")})
    assert lint(bare / "train.py") == [(11, "XLA504")]
    helped = write(tmp_path / "helped", {
        "setup.cfg": "",
        "train.py": train.format(imports="from envs import export_torchrun_env\n",
                                 call="export_torchrun_env()"),
        "envs.py": """\
            import os

            import torch_xla.runtime as xr


            def export_torchrun_env():
                os.environ["WORLD_SIZE"] = str(xr.world_size())
                os.environ["RANK"] = str(xr.global_ordinal())
            """})
    assert lint(helped / "train.py") == []


def test_a_script_that_runs_the_xla_code_of_its_helpers_is_an_xla_program(
        tmp_path: Path) -> None:
    # XLA is optional everywhere (imported under try:), so no module is a program by its
    # imports; main.py takes its device from get_device() and trains with train_model(),
    # both of which use torch_xla: it is a program of the XLA path, and the evaluation
    # and plotting helpers it calls on the trained model are XLA code. A script that only
    # borrows a helper without XLA use from a TPU script (set_seed), or a test module,
    # is not.
    optional = "try:\n    import torch_xla.core.xla_model as xm\nexcept ImportError:\n" \
               "    xm = None\n"
    top = write(tmp_path / "d", {
        "src/device_handler.py": optional + "def get_device():\n"
                                            "    return xm.xla_device() if xm else 'cpu'\n",
        "src/training.py": optional + "def set_seed(s):\n    pass\n\n"
                                      "def train_model(model, loader):\n"
                                      "    for x in loader:\n        model(x)\n"
                                      "        xm.mark_step()\n",
        "src/evaluation.py": "def evaluate(model, x):\n    return model(x).item()\n",
        "main.py": "from src.device_handler import get_device\n"
                   "from src.training import train_model\n"
                   "from src.evaluation import evaluate\n"
                   "if __name__ == '__main__':\n    d = get_device()\n"
                   "    train_model(None, [])\n    evaluate(None, 1)\n",
        "seeded.py": "from src.training import set_seed\n"
                     "if __name__ == '__main__':\n    set_seed(0)\n",
        "tests/test_main.py": "from src.training import train_model\n"
                              "import other\n"
                              "if __name__ == '__main__':\n    train_model(None, [])\n",
        "other.py": "x = 1\n",
    })
    ix = index_for(top / "main.py")
    assert ix.xla_code() == {"main.py", "src/device_handler.py", "src/training.py",
                             "src/evaluation.py"}
    assert lint(top / "src/evaluation.py", "auto") == lint(top / "src/evaluation.py", "all")


def test_modules_that_cannot_be_imported_without_torch_xla_are_xla_code(
        tmp_path: Path) -> None:
    # utils.py imports torch_xla at its top level; trainer.py imports utils there, and the
    # script imports trainer: neither can run without torch_xla, though neither names it.
    top = write(tmp_path / "n", {
        "pyproject.toml": "",
        "utils.py": "import torch_xla.core.xla_model as xm\n\n\ndef get_device():\n"
                    "    return xm.xla_device()\n",
        "trainer.py": "import torch\nfrom utils import get_device\n",
        "pkg/__init__.py": "",
        "pkg/run.py": "import trainer\n",
        "lazy.py": "def f():\n    import utils\n    return utils\n",
        "guarded.py": "try:\n    import utils\nexcept ImportError:\n    utils = None\n",
        "text.py": '"""\nimport utils\n"""\n',
        "helper.py": "X = 1\n",
        "script.py": "import trainer\nimport helper\n\nif __name__ == '__main__':\n    pass\n",
    })
    ix = index_for(top / "utils.py")
    xla = ix.xla_code()
    assert {"utils.py", "trainer.py", "pkg/run.py", "script.py"} <= xla
    # what such a module imports is XLA code too (the script runs on the device)
    assert "helper.py" in xla
    # an import inside a function or a try, or in a string, does not need torch_xla
    assert not {"lazy.py", "guarded.py", "text.py"} & xla


def test_framework_switches_count_as_xla_use(tmp_path: Path) -> None:
    top = write(tmp_path / "f", {
        "pyproject.toml": "",
        "acc.py": """\
            from accelerate import Accelerator, DistributedType
            acc = Accelerator()
            pad = 128 if acc.distributed_type == DistributedType.XLA else None
            """,
        "hf.py": "from transformers import is_torch_xla_available\nok = is_torch_xla_available()\n",
        "pl.py": "import lightning as L\ntrainer = L.Trainer(accelerator='tpu')\n",
        # Lightning 1.x: the TPU cores a run asks for, by a constant or a flag
        "pl1.py": "import pytorch_lightning as pl\ndef fit(m, n):\n"
                  "    pl.Trainer(tpu_cores=n, max_epochs=1).fit(m)\n",
        # the accelerator named by a module constant; one rebound later is no constant
        "plc.py": "from lightning import Trainer\nACCELERATOR = 'tpu'\n"
                  "def fit(m):\n    Trainer(accelerator=ACCELERATOR).fit(m)\n",
        "plv.py": "from lightning import Trainer\nACCELERATOR = 'tpu'\nACCELERATOR = 'gpu'\n"
                  "def fit(m):\n    Trainer(accelerator=ACCELERATOR).fit(m)\n",
        "not_pl.py": "def Trainer(**kw):\n    return kw\nt = Trainer(tpu_cores=8)\n",
        # accelerate launch runs a script that builds an Accelerator on the TPU it was
        # configured for; a module that merely imports accelerate's helpers does not
        "launched.py": "import accelerate\nacc = accelerate.Accelerator(mixed_precision='no')\n",
        "seed.py": "from accelerate.utils import set_seed\nset_seed(0)\n",
        "named.py": "class Accelerator:\n    pass\nacc = Accelerator()\n",
        # ignite's XLA backend by name: ``idist.Parallel(backend="xla-tpu")``; the same
        # string without ignite is nobody's switch
        "ig.py": """\
            import ignite.distributed as idist
            def main(backend):
                if backend == "xla-tpu":
                    print("on TPU")
                with idist.Parallel(backend=backend) as parallel:
                    parallel.run(print)
            """,
        "text_only.py": "NAMES = ['nccl', 'gloo', 'xla-tpu']\n",
    })
    ix = index_for(top / "acc.py")
    assert {"acc.py", "hf.py", "pl.py", "pl1.py", "plc.py", "launched.py", "ig.py"} <= \
        ix.xla_code()
    assert ix.summary("plc.py").program
    assert not ix.is_xla_code(top / "plv.py")
    assert not ix.is_xla_code(top / "not_pl.py")
    assert not ix.is_xla_code(top / "seed.py")
    assert not ix.is_xla_code(top / "named.py")
    assert not ix.is_xla_code(top / "text_only.py")
    s = ix.summary("acc.py")
    assert s.xla and not s.program


def test_framework_trainer_on_tpu_is_a_program(tmp_path: Path) -> None:
    """A module that builds Lightning's Trainer on the TPU (``tpu_cores=``, or
    ``accelerator="tpu"``) runs what it hands to ``fit`` on the XLA device: the modules it
    imports are XLA code, with or without a main block (a ``finetune()`` that a command-line
    entry point reaches through importlib). A module that only names the switch is not."""
    top = write(tmp_path / "g", {
        "pyproject.toml": "",
        "app/__init__.py": "",
        "app/main.py": """\
            import importlib
            def run(args):
                importlib.import_module("app.finetune").finetune(args.tpu_cores)
            """,
        "app/finetune.py": """\
            import pytorch_lightning as pl
            from app.data import Lines
            def finetune(tpu_cores):
                pl.Trainer(tpu_cores=tpu_cores, max_epochs=1).fit(None, Lines())
            """,
        "app/data.py": """\
            from app.text import tokenize
            class Lines:
                collate = staticmethod(tokenize)
            """,
        "app/text.py": "def tokenize(tok, batch):\n    return tok(batch, padding=True)\n",
        "app/probe.py": """\
            import lightning as L
            from app.other import helper
            NAMES = {"accelerator": "tpu"}
            """,
        "app/other.py": "def helper():\n    return 1\n",
    })
    ix = index_for(top / "app" / "main.py")
    assert ix.summary("app/finetune.py").program
    assert {"app/finetune.py", "app/data.py", "app/text.py"} <= ix.xla_code()
    assert not ix.summary("app/probe.py").program
    assert not ix.is_xla_code(top / "app" / "other.py")


def test_editor_and_tree_runs_agree(proj: Path) -> None:
    """flake8 on one file (as an editor runs it) reports what a run over the tree does."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    tree = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=XLA",
                           "-j2", "."], cwd=proj, capture_output=True, text=True, env=env,
                          check=False)
    assert tree.returncode == 1, tree.stderr
    by_file: dict[str, list[str]] = {}
    for line in tree.stdout.splitlines():
        by_file.setdefault(line.split(":", 1)[0].removeprefix("./"), []).append(line)
    assert set(by_file) == {"data.py", "metrics.py", "utils.py"}
    for name, lines in by_file.items():
        alone = subprocess.run([sys.executable, "-m", "flake8", "--isolated",
                                "--select=XLA", name], cwd=proj, capture_output=True,
                               text=True, env=env, check=False)
        assert sorted(alone.stdout.splitlines()) == sorted(
            line.removeprefix("./") for line in lines)


# ----------------------------------------------------------------------------- findings
def test_findings_whose_cause_is_in_another_module(proj: Path) -> None:
    # The loader is built in data.py and iterated in train.py's step loop: the finding
    # stays on data.py's DataLoader(...) line and names train.py's loop.
    assert lint(proj / "data.py") == [(7, "XLA102")]
    [ragged] = messages(proj / "data.py")
    assert "which the step loop iterates at train.py:16" in ragged
    assert all(code != "XLA102" for _, code in lint(proj / "train.py"))
    assert lint(proj / "data.py", "file") == []
    # utils.save gets the model that train.py moved to the device.
    assert lint(proj / "utils.py") == [(5, "XLA503")]
    assert lint(proj / "utils.py", "file") == []
    assert lint(proj / "train.py", "file") == []


#: A training loop in its own module, and the script that hands it a loader from data.py.
LOOPS = """\
    import torch_xla


    def fit(model, opt, loader, device):
        for x, y in loader:
            opt.zero_grad()
            model(x.to(device)).sum().backward()
            opt.step()
            torch_xla.sync()
    """
RUN_LOOPS = """\
    import torch
    import torch_xla
    import loops
    from data import make_loader

    if __name__ == "__main__":
        device = torch_xla.device()
        model = torch.nn.Linear(4, 2).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loops.fit(model, opt, make_loader(32), device)
    """


def test_a_loader_passed_on_through_two_modules_is_reported_where_it_is_built(
        tmp_path: Path) -> None:
    top = write(tmp_path / "chain", {
        "pyproject.toml": "",
        "data.py": DATA,
        "loops.py": LOOPS,
        "run.py": RUN_LOOPS,
    })
    assert lint(top / "data.py") == [(7, "XLA102")]
    [ragged] = messages(top / "data.py")
    assert "loops.py:5" in ragged
    assert lint(top / "run.py") == [] and lint(top / "loops.py") == []


def test_a_loader_is_followed_past_many_model_modules_to_the_loop_that_runs_it(
        tmp_path: Path) -> None:
    """The modules asked where a loader goes are those that may loop over it: a data
    module that imports ten model modules still reaches the training loop two modules
    away (the neighbour budget is not spent on modules without a step loop)."""
    models = {f"models/m{i}.py": f"""\
        import torch


        class Net{i}(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = torch.nn.ModuleList(
                    [torch.nn.Linear(4, 4) for _ in range(2)])
                for layer in self.layers:
                    torch.nn.init.zeros_(layer.bias)

            def forward(self, x):
                return self.layers[1](self.layers[0](x))
        """ for i in range(10)}
    imports = "".join(f"from models.m{i} import Net{i}\n" for i in range(10))
    top = write(tmp_path / "wide", {
        "pyproject.toml": "",
        "models/__init__.py": "",
        **models,
        "data.py": imports + textwrap.dedent(DATA) + "\n\nMODELS = [" + ", ".join(
            f"Net{i}" for i in range(10)) + "]\n",
        "loops.py": LOOPS,
        "run.py": RUN_LOOPS,
    })
    assert lint(top / "data.py") == [(17, "XLA102")]
    [ragged] = messages(top / "data.py")
    assert "loops.py:5" in ragged


def test_a_function_only_modules_that_are_not_xla_code_call_is_off_the_xla_path(
        tmp_path: Path) -> None:
    """A helper module with a GPU builder beside the TPU one: the GPU builder, called only
    by the GPU script, is not XLA code; a helper nobody calls still is (a latent hazard),
    and so is one that names XLA itself. (A script that ran that helper, which makes the
    XLA device, would be a program of the XLA path: see
    test_a_script_that_runs_the_xla_code_of_its_helpers_is_an_xla_program.)"""
    top = write(tmp_path / "both", {
        "pyproject.toml": "",
        "loaders.py": """\
            import torch
            from torch.utils.data import DataLoader, TensorDataset


            def _data():
                return TensorDataset(torch.randn(100, 4), torch.randint(0, 2, (100,)))


            def build_gpu(rank):
                return DataLoader(_data(), batch_size=32), torch.device(f"cuda:{rank}")


            def build_tpu():
                return DataLoader(_data(), batch_size=32)


            def unused(model):
                return model.cuda()


            def build_xla_gpu(rank):
                import torch_xla.core.xla_model as xm
                return xm.xla_device(), torch.device(f"cuda:{rank}")
            """,
        "train_tpu.py": """\
            import torch
            import torch_xla
            from loaders import build_tpu

            if __name__ == "__main__":
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for x, y in build_tpu():
                    opt.zero_grad()
                    model(x.to(device)).sum().backward()
                    opt.step()
                    torch_xla.sync()
            """,
        "train_gpu.py": """\
            import torch
            from loaders import build_gpu

            if __name__ == "__main__":
                loader, device = build_gpu(0)
                model = torch.nn.Linear(4, 2).to(device)
                for x, y in loader:
                    model(x.to(device)).sum().backward()
            """,
    })
    found = lint(top / "loaders.py")
    assert (14, "XLA102") in found  # the TPU builder's loader
    assert (18, "XLA501") in found  # nobody calls it: still XLA code (latent)
    assert (23, "XLA501") in found  # it uses torch_xla itself
    assert not [f for f in found if f[0] == 10]  # the GPU builder: off the XLA path
    assert lint(top / "loaders.py", target="all") != found  # everything is XLA code there


def test_a_loader_handed_to_a_method_of_another_modules_class_reaches_its_loop(
        tmp_path: Path) -> None:
    """``fitter.fit(loader)`` on an instance of a trainer class of another module: the
    method's parameter takes the loader the caller passes (objects a step runs with,
    never per-step values: a meter's ``update(value)`` called with a tensor in one module
    and with floats in another stays unknown there)."""
    top = write(tmp_path / "fit", {
        "pyproject.toml": "",
        "meters.py": """\
            class Meter:
                def __init__(self):
                    self.total = 0.0

                def update(self, value):
                    self.total = self.total + value
                    print(f"{value}")
            """,
        "trainer.py": """\
            import torch_xla.distributed.parallel_loader as pl

            from meters import Meter


            class Fitter:
                def __init__(self, model, optimizer, device):
                    self.model = model
                    self.optimizer = optimizer
                    self.device = device

                def fit(self, train_loader):
                    meter = Meter()
                    for x, y in pl.MpDeviceLoader(train_loader, self.device):
                        self.optimizer.zero_grad()
                        loss = self.model(x).sum()
                        loss.backward()
                        self.optimizer.step()
                        meter.update(1.0)
            """,
        "run.py": """\
            import torch
            import torch_xla
            from torch.utils.data import DataLoader, TensorDataset

            from meters import Meter
            from trainer import Fitter


            def main():
                device = torch_xla.device()
                ds = TensorDataset(torch.randn(100, 4), torch.randint(0, 2, (100,)))
                loader = DataLoader(ds, batch_size=32, shuffle=True)
                model = torch.nn.Linear(4, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                Fitter(model, opt, device).fit(loader)
                Meter().update(torch.zeros(2, device=device))
            """,
    })
    assert lint(top / "run.py") == [(12, "XLA102")]
    [ragged] = messages(top / "run.py")
    assert "trainer.py:14" in ragged
    assert lint(top / "meters.py") == []


def test_a_callback_handed_to_a_method_of_another_modules_class_is_followed(
        tmp_path: Path) -> None:
    """``trainer.eval(evaluate, ...)``: the method's parameter takes the function the caller
    passes, so what the callback returns (an accuracy tensor on the XLA device) is known
    in the loop that formats it; the module moved to the device in one method is the
    module another method saves."""
    top = write(tmp_path / "cb", {
        "pyproject.toml": "",
        "utils.py": """\
            import torch_xla.core.xla_model as xm


            def get_device():
                return xm.xla_device()
            """,
        "train.py": """\
            import torch


            class Trainer:
                def __init__(self, model, data_iter, device):
                    self.model = model
                    self.data_iter = data_iter
                    self.device = device

                def save(self, path):
                    torch.save(self.model.state_dict(), path)

                def eval(self, evaluate):
                    model = self.model.to(self.device)
                    results = []
                    for batch in self.data_iter:
                        batch = [t.to(self.device) for t in batch]
                        accuracy, result = evaluate(model, batch)
                        results.append(result)
                        print("acc=%5.3f" % accuracy)
                    self.save("model.pt")
                    return results
            """,
        "glue.py": """\
            import torch
            from torch.utils.data import DataLoader

            import train
            from utils import get_device


            class Classifier(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = torch.nn.Linear(4, 2)

                def forward(self, x):
                    return self.fc(x)


            def main(dataset):
                loader = DataLoader(dataset, batch_size=16, drop_last=True)
                trainer = train.Trainer(Classifier(), loader, get_device())

                def evaluate(model, batch):
                    x, y = batch
                    logits = model(x)
                    result = (logits.argmax(-1) == y).float()
                    return result.mean(), result

                trainer.eval(evaluate)
            """,
    })
    found = lint(top / "train.py")
    assert (11, "XLA503") in found
    assert (20, "XLA201") in found


def test_a_callback_handed_to_another_modules_loop_is_a_step_where_it_is_written(
        tmp_path: Path) -> None:
    """``Engine(...).fit(step_fn)`` and ``engine.fit(step_fn)``: the loop that runs the
    callback per batch is in ``engine.py``, which never imports the module that defines
    it; the callback's own host read is reported in its module, naming that loop."""
    top = write(tmp_path / "hand", {
        "pyproject.toml": "",
        "engine.py": """\
            import torch_xla


            class Engine:
                def __init__(self, model, loader, device):
                    self.model = model
                    self.loader = loader
                    self.device = device

                def fit(self, step_fn, opt):
                    for x, y in self.loader:
                        x, y = x.to(self.device), y.to(self.device)
                        loss = step_fn(self.model, x, y)
                        loss.backward()
                        opt.step()
                        torch_xla.sync()
            """,
        "run.py": """\
            import torch
            import torch.nn.functional as F
            import torch_xla
            from torch.utils.data import DataLoader

            from engine import Engine


            def main(dataset):
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                loader = DataLoader(dataset, batch_size=8, drop_last=True)

                def step(model, x, y):
                    loss = F.cross_entropy(model(x), y)
                    print("loss", loss.item())
                    return loss

                def quiet(model, x, y):
                    return F.cross_entropy(model(x), y)

                Engine(model, loader, device).fit(step, opt)
                Engine(model, loader, device).fit(quiet, opt)
            """,
    })
    assert lint(top / "run.py") == [(17, "XLA201")]
    [msg] = messages(top / "run.py")
    assert "engine.py" in msg
    assert lint(top / "engine.py") == []


def test_a_loader_reaches_an_epoch_loop_whose_step_is_a_callable_of_another_module(
        tmp_path: Path) -> None:
    """A loop module without an update, a barrier or a loader-named value (its step is a
    callable object of another module) is still asked where the loader goes, after the
    modules more likely to loop over it; and a loader handed to a method that a subclass
    inherits reaches that method's loop."""
    top = write(tmp_path / "epoch", {
        "pyproject.toml": "",
        "data.py": DATA,
        "epoch.py": """\
            def run_epoch(step_fn, batches):
                n = 0
                for xb, yb in batches:
                    step_fn(xb, yb)
                    n += 1
                return n
            """,
        "steps.py": """\
            import torch
            import torch_xla


            class TrainStep:
                def __init__(self, model):
                    self.dev = torch_xla.device()
                    self.model = model.to(self.dev)
                    self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

                def __call__(self, xb, yb):
                    self.opt.zero_grad()
                    self.model(xb.to(self.dev)).sum().backward()
                    self.opt.step()
                    torch_xla.sync()
            """,
        "main.py": """\
            import torch
            from data import make_loader
            from epoch import run_epoch
            from steps import TrainStep

            if __name__ == "__main__":
                step_fn = TrainStep(torch.nn.Linear(4, 2))
                for _ in range(10):
                    run_epoch(step_fn, make_loader(32))
            """,
    })
    assert lint(top / "data.py") == [(7, "XLA102")]
    sub = write(tmp_path / "sub", {
        "pyproject.toml": "",
        "trainer.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl


            class Fitter:
                def __init__(self, model, opt):
                    self.dev = torch_xla.device()
                    self.model = model.to(self.dev)
                    self.opt = opt

                def fit(self, loader):
                    for x, y in pl.MpDeviceLoader(loader, self.dev):
                        self.opt.zero_grad()
                        self.model(x).sum().backward()
                        self.opt.step()


            class EMAFitter(Fitter):
                pass
            """,
        "run.py": """\
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            from trainer import EMAFitter


            def go(model, opt):
                ds = TensorDataset(torch.randn(100, 4), torch.randint(0, 2, (100,)))
                EMAFitter(model, opt).fit(DataLoader(ds, batch_size=32))
            """,
    })
    assert lint(sub / "run.py") == [(9, "XLA102")]


def test_a_helper_that_a_data_loop_runs_is_a_step_even_when_a_model_loop_runs_it_too(
        tmp_path: Path) -> None:
    """Outputs copied out in a loop over models or settings are that loop's purpose, but
    the same helper run by a step loop over data copies them out every step."""
    top = write(tmp_path / "both_loops", {
        "pyproject.toml": "",
        "scores.py": """\
            class Scores:
                def __init__(self):
                    self.preds = []

                def add(self, logits):
                    self.preds.append(logits.softmax(dim=1).cpu())
            """,
        "run.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from scores import Scores


            def sweep(model, x, temperatures):
                scores = Scores()
                for t in temperatures:
                    scores.add(model(x) / t)
                return scores


            def train(model, loader, optimizer, device):
                scores = Scores()
                for x, y in pl.MpDeviceLoader(loader, device):
                    optimizer.zero_grad()
                    logits = model(x)
                    logits.sum().backward()
                    optimizer.step()
                    scores.add(logits)


            if __name__ == "__main__":
                device = torch_xla.device()
                net = torch.nn.Linear(4, 2).to(device)
                sweep(net, torch.randn(8, 4, device=device), [0.5, 1.0, 2.0])
            """,
    })
    assert lint(top / "scores.py") == [(6, "XLA201")]


def test_a_loader_of_a_module_that_is_not_xla_code_is_reported_where_it_enters(
        tmp_path: Path) -> None:
    # lib.py supports XLA optionally (not a program), so data.py, which only it imports,
    # is not XLA code and is not checked: the finding goes where the loader enters lib.py.
    top = write(tmp_path / "opt", {
        "pyproject.toml": "",
        "data.py": DATA,
        "lib.py": """\
            from data import make_loader


            def fit(model, opt):
                try:
                    import torch_xla
                except ImportError:
                    return
                device = torch_xla.device()
                for x, y in make_loader(32):
                    opt.zero_grad()
                    model(x.to(device)).sum().backward()
                    opt.step()
                    torch_xla.sync()
            """,
    })
    assert lint(top / "data.py") == []
    found = [m for m in messages(top / "lib.py") if m.startswith("XLA102")]
    assert len(found) == 1 and "the DataLoader built at data.py:7" in found[0], found


def test_loaders_reaching_one_line_are_one_finding() -> None:
    """Several ragged DataLoaders of other modules that enter this module at one line
    (``dataset.loaders()`` of whichever dataset class a run picks) are one XLA102 finding
    there, naming the first and counting the others; findings on other lines stay apart."""
    from flake8_xla.context import ModuleContext
    from flake8_xla.engine import stub_builtins
    from flake8_xla.rules.shapes import RaggedLastBatch

    source = textwrap.dedent("""\
        import torch_xla


        def fit(dataset, model):
            for (x,) in dataset.loaders(batch_size=32):
                model(x).sum().backward()
            for (x,) in dataset.eval_loader():
                model(x)
        """)
    ctx = ModuleContext(ast.parse(source), source, "trainer.py", Options(target="all"))
    rule = RaggedLastBatch(ctx)
    with stub_builtins():
        an = ctx.analyzer
        assert an is not None
        first, second = an.module_nodes(nodes_mod.For)
        items = [(rule.finding(node.iter, fix=rule.FIX_LOADER, what=what), node.iter,
                  rule.FIX_LOADER, what)
                 for node, what in ((first, "the DataLoader built at mnist.py:8"),
                                    (first, "the DataLoader built at cifar.py:8"),
                                    (first, "the DataLoader built at toy.py:8"),
                                    (second, "the DataLoader built at toy.py:12"))]
        merged = [f for f in rule._one_per_line(items) if f is not None]
    assert [f.line for f in merged] == [5, 7]
    assert "mnist.py:8 (and 2 more DataLoaders that reach this line)" in merged[0].message
    assert "toy.py:12 yields" in merged[1].message


def test_an_optimizer_from_another_modules_factory_under_a_grad_scaler(tmp_path: Path
                                                                     ) -> None:
    """XLA402: the plain AdamW is built by a factory of optim.py, the scaler by amp.py;
    the finding goes where the optimizer enters train.py, naming its constructor."""
    top = write(tmp_path / "o", {
        "pyproject.toml": "",
        "amp_utils.py": """\
            import torch


            def build_scaler():
                return torch.amp.GradScaler("xla")
            """,
        "optim.py": """\
            import torch


            def build_optimizer(model, lr):
                return torch.optim.AdamW(model.parameters(), lr=lr)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from amp_utils import build_scaler
            from optim import build_optimizer


            def main(model, loader):
                device = torch_xla.device()
                optimizer = build_optimizer(model, 3e-4)
                scaler = build_scaler()
                for (x,) in pl.MpDeviceLoader(loader, device):
                    optimizer.zero_grad()
                    with torch.autocast("xla", dtype=torch.float16):
                        loss = model(x).mean()
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                    scaler.update()
            """,
    })
    assert lint(top / "optim.py") == []
    found = [m for m in messages(top / "train.py") if m.startswith("XLA402")]
    assert lint(top / "train.py") == [(11, "XLA402")]
    assert len(found) == 1 and "the cause is at optim.py:5" in found[0], found


def test_an_evaluation_pass_run_from_another_modules_training_loop(tmp_path: Path) -> None:
    """evaluate() of evaluation.py loops over its own loader, and train.py's training loop
    runs it every 1000 steps: the reads after its loop run once per pass (not per
    training step), while a read inside its loop is a per-step host sync."""
    top = write(tmp_path / "e", {
        "pyproject.toml": "",
        "evaluation.py": """\
            import torch
            import torch_xla.distributed.parallel_loader as pl


            @torch.no_grad()
            def evaluate(model, loader, device):
                total = torch.zeros((), device=device)
                for x, y in pl.MpDeviceLoader(loader, device):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    total += loss
                    print(loss.item())
                return {"loss": total.item() / len(loader)}
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader, TensorDataset

            from evaluation import evaluate


            def main():
                device = torch_xla.device()
                ds = TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1))
                train = DataLoader(ds, batch_size=64, drop_last=True)
                model = torch.nn.Linear(8, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for step, (x, y) in enumerate(pl.MpDeviceLoader(train, device)):
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    xm.optimizer_step(opt)
                    if step % 1000 == 0:
                        xm.master_print(evaluate(model, train, device))


            if __name__ == "__main__":
                main()
            """,
    })
    assert lint(top / "evaluation.py") == [(11, "XLA201")]


def test_a_launcher_scripts_loader_is_reported_where_it_is_built(tmp_path: Path) -> None:
    """XLA504: the replica function of train.py builds a DataLoader with no sampler and
    hands it to engine.py's training loop. It is reported once, on the DataLoader line of
    train.py, not on engine.py's loader parameter; a DistributedSampler silences it."""
    files = {
        "pyproject.toml": "",
        "engine.py": """\
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl


            def train_one_epoch(model, loader, optimizer, device):
                for x, y in pl.MpDeviceLoader(loader, device):
                    model(x).sum().backward()
                    xm.optimizer_step(optimizer)
            """,
        "train.py": """\
            import torch
            import torch_xla
            from torch.utils.data import DataLoader, TensorDataset

            from engine import train_one_epoch


            def _mp_fn(index):
                device = torch_xla.device()
                ds = TensorDataset(torch.randn(2048, 8), torch.randn(2048, 1))
                loader = DataLoader(ds, batch_size=64, shuffle=True, drop_last=True)
                model = torch.nn.Linear(8, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(3):
                    train_one_epoch(model, loader, opt, device)


            if __name__ == "__main__":
                torch_xla.launch(_mp_fn)
            """,
    }
    top = write(tmp_path / "bare", files)
    assert lint(top / "train.py") == [(11, "XLA504")]
    assert not [f for f in lint(top / "engine.py") if f[1] == "XLA504"]
    files["train.py"] = files["train.py"].replace(
        "shuffle=True, drop_last=True)",
        "drop_last=True,\n                    sampler=torch.utils.data.DistributedSampler(\n"
        "                        ds, num_replicas=8, rank=index))")
    top = write(tmp_path / "sampled", files)
    assert not [f for f in lint(top / "train.py") if f[1] == "XLA504"]


def test_a_sampler_of_a_helper_after_the_callers_process_group_is_not_reported(
        tmp_path: Path) -> None:
    """XLA504: data.py's DistributedSampler takes its rank from the XLA process group
    that the replica function of train.py sets up (through dist_utils.py) before asking
    for the loader; without that set-up it is reported."""
    files = {
        "pyproject.toml": "",
        "data.py": """\
            from torch.utils.data import DataLoader
            from torch.utils.data.distributed import DistributedSampler


            def make_loader(dataset, batch_size):
                sampler = DistributedSampler(dataset, shuffle=True)
                return DataLoader(dataset, batch_size=batch_size, sampler=sampler,
                                  drop_last=True)
            """,
        "dist_utils.py": """\
            import torch.distributed as dist


            def setup():
                dist.init_process_group(backend="xla", init_method="xla://")
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import TensorDataset

            import dist_utils
            from data import make_loader


            def _mp_fn(index):
                dist_utils.setup()
                device = torch_xla.device()
                dataset = TensorDataset(torch.randn(2048, 8), torch.randn(2048, 1))
                model = torch.nn.Linear(8, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                loader = pl.MpDeviceLoader(make_loader(dataset, 128), device)
                for x, y in loader:
                    opt.zero_grad()
                    model(x).sum().backward()
                    xm.optimizer_step(opt)


            if __name__ == "__main__":
                torch_xla.launch(_mp_fn)
            """,
    }
    top = write(tmp_path / "with", files)
    assert [c for _, c in lint(top / "data.py")] == []
    files["train.py"] = files["train.py"].replace("dist_utils.setup()", "pass")
    top = write(tmp_path / "without", files)
    assert [c for _, c in lint(top / "data.py")] == ["XLA504"]


def test_an_override_that_a_base_class_loop_of_another_module_runs_is_a_step(
        tmp_path: Path) -> None:
    """base_trainer.py's loop calls ``self.step_optimizer()``, a concrete method that
    clip_trainer.py's subclass overrides: the override runs per step (XLA201 on its read,
    naming the loop's module)."""
    top = write(tmp_path / "t", {
        "pyproject.toml": "",
        "base_trainer.py": """\
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl


            class Trainer:
                def __init__(self, model, optimizer, loader):
                    self.model, self.optimizer = model, optimizer
                    self.loader = pl.MpDeviceLoader(loader, torch_xla.device())

                def step_optimizer(self):
                    xm.optimizer_step(self.optimizer)

                def train_epoch(self):
                    for x, y in self.loader:
                        self.optimizer.zero_grad()
                        self.model(x).sum().backward()
                        self.step_optimizer()
            """,
        "clip_trainer.py": """\
            import torch

            from base_trainer import Trainer


            class ClippedTrainer(Trainer):
                def step_optimizer(self):
                    norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                    print(f"grad norm {norm.item():.3f}")
                    super().step_optimizer()
            """,
        "train.py": """\
            import torch_xla

            from clip_trainer import ClippedTrainer


            def main(model, optimizer, loader):
                ClippedTrainer(model, optimizer, loader).train_epoch()
            """,
    })
    found = [m for m in messages(top / "clip_trainer.py") if m.startswith("XLA201")]
    assert lint(top / "clip_trainer.py") == [(9, "XLA201")]
    assert "base_trainer.py" in found[0], found


def test_a_plain_optimizer_step_in_a_helper_of_a_replicated_loop(tmp_path: Path) -> None:
    """XLA502 where the step is written: utils.py's ``optimizer.step()`` runs in every
    replica of train.py's xmp.spawn loop with nothing all-reducing the gradients."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "utils.py": """\
            def apply_update(optimizer):
                optimizer.step()
                optimizer.zero_grad()
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            import torch_xla.distributed.xla_multiprocessing as xmp

            from utils import apply_update


            def _mp_fn(index, loader):
                device = torch_xla.device()
                model = torch.nn.Linear(8, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for x, y in pl.MpDeviceLoader(loader, device):
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    apply_update(opt)


            if __name__ == "__main__":
                xmp.spawn(_mp_fn, args=(None,))
            """,
    })
    assert lint(top / "utils.py") == [(2, "XLA502")]
    assert [c for _, c in lint(top / "train.py")] == []


def test_a_loader_helper_whose_drop_last_one_call_turns_off(tmp_path: Path) -> None:
    """data.py's make_loader defaults to drop_last=True; train.py's first call keeps it,
    its second passes drop_last=False over 1,003 samples in batches of 64: the loader is
    ragged for that call, reported where it is built (the first call does not hide it)."""
    files = {
        "pyproject.toml": "",
        "data.py": """\
            import torch
            from torch.utils.data import DataLoader, TensorDataset


            def make_loader(n, batch_size, drop_last=True):
                ds = TensorDataset(torch.randn(n, 8), torch.randn(n, 1))
                return DataLoader(ds, batch_size=batch_size, drop_last=drop_last)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from data import make_loader


            def main(model, opt):
                device = torch_xla.device()
                train_loader = make_loader(10_007, 64)
                val_loader = make_loader(1_003, 64, drop_last=False)
                for x, y in pl.MpDeviceLoader(train_loader, device):
                    opt.zero_grad()
                    model(x).sum().backward()
                    opt.step()
                with torch.no_grad():
                    for x, y in pl.MpDeviceLoader(val_loader, device):
                        model(x)
            """,
    }
    top = write(tmp_path / "ragged", files)
    assert lint(top / "data.py") == [(7, "XLA102")]
    assert lint(top / "train.py") == []
    files["train.py"] = files["train.py"].replace(", drop_last=False", "")
    top = write(tmp_path / "even", files)
    assert lint(top / "data.py") == []


def test_step_questions_see_through_calls_into_other_modules(tmp_path: Path) -> None:
    top = write(tmp_path / "s", {
        "pyproject.toml": "",
        "engine.py": ENGINE,
        "train.py": """\
            import torch
            import torch_xla
            import engine


            def main(loader):
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for x, y in loader:
                    engine.train_step(model, opt, x.to(device), y.to(device))


            if __name__ == "__main__":
                main([])
            """,
        "synced.py": """\
            import torch_xla
            import engine
            import stepper


            def main(model, opt, loader):
                for x, y in loader:
                    stepper.step(model, opt, x, y)
            """,
        "stepper.py": """\
            import torch_xla
            import engine


            def step(model, opt, x, y):
                engine.train_step(model, opt, x, y)
                torch_xla.sync()
            """,
    })
    # The loop trains through engine.train_step and has no barrier: XLA301.
    assert (10, "XLA301") in lint(top / "train.py")
    assert all(code != "XLA301" for _, code in lint(top / "train.py", "file"))
    # The barrier sits two modules away: no XLA301.
    assert all(code != "XLA301" for _, code in lint(top / "synced.py"))


def test_a_finding_on_another_modules_node_without_a_place_is_dropped(proj: Path) -> None:
    from flake8_xla.context import ModuleContext
    from flake8_xla.rules.base import Rule

    path = proj / "train.py"
    text = path.read_text()
    ctx = ModuleContext(ast.parse(text), text, str(path), Options(version=(2, 9)))
    an = ctx.analyzer
    data = ctx.project_session.analyzer("data.py")
    foreign_def = data.module.body[-1]

    class Probe(Rule):
        code, name, message = "XLA999", "probe", "probe {what}"

    rule = Probe(ctx)
    assert rule.finding(foreign_def, what="x") is None        # never entered train.py
    local = an.module.body[0]
    assert rule.finding(local, what="x").line == local.lineno


# ----------------------------------------------------------------------------- cache
def test_cache_folder_is_created_like_ruffs(proj: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.delenv("FLAKE8_XLA_CACHE_DIR")
    folder = cache_dir(find_root(proj / "train.py"))
    assert folder == (proj / CACHE_DIR_NAME).resolve()
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172")
    index_for(proj / "train.py").xla_code()
    data = json.loads((folder / INDEX_NAME).read_text())
    assert data["root"] == str(proj.resolve()) and "train.py" in data["files"]
    monkeypatch.setenv("FLAKE8_XLA_NO_CACHE", "1")
    assert cache_dir(find_root(proj / "train.py")) is None


def test_cache_folder_for_a_root_without_a_marker_is_the_user_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FLAKE8_XLA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    top = write(tmp_path / "loose", {"s.py": ""})
    folder = cache_dir(find_root(top / "s.py"))
    assert folder.parent == (tmp_path / "xdg" / "flake8-xla" / "projects")
    assert not (top / CACHE_DIR_NAME).exists()


def _index_file(tmp_path: Path) -> Path:
    [found] = (tmp_path / "user-cache" / "projects").glob(f"*/{INDEX_NAME}")
    return found


def test_warm_cache_is_used_and_a_stale_entry_is_rebuilt(proj: Path, tmp_path: Path) -> None:
    assert index_for(proj / "train.py").xla_code() == {
        "train.py", "engine.py", "metrics.py", "data.py", "utils.py"}
    stored = json.loads(_index_file(tmp_path).read_text())["files"]
    assert stored["metrics.py"]["sum"] is not None
    # A warm run rebuilds nothing.
    project.reset()
    ix = index_for(proj / "train.py")
    assert ix.xla_code() == {"train.py", "engine.py", "metrics.py", "data.py", "utils.py"}
    assert not ix._changed
    # Stale: train.py no longer imports metrics (new size and mtime).
    text = (proj / "train.py").read_text().replace("import metrics\n", "")
    text = text.replace("            metrics.report(loss)\n", "")
    (proj / "train.py").write_text(text)
    st = (proj / "train.py").stat()
    os.utime(proj / "train.py", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    project.reset()
    assert "metrics.py" not in index_for(proj / "train.py").xla_code()
    stored = json.loads(_index_file(tmp_path).read_text())["files"]
    assert stored["train.py"]["m"] == (proj / "train.py").stat().st_mtime_ns


@pytest.mark.parametrize("garbage", [
    "", "{", "[]", "null", json.dumps({"format": "flake8-xla project index"}),
    "PLACEHOLDER_ENTRY",
])
def test_a_corrupt_cache_is_rebuilt_never_trusted(proj: Path, tmp_path: Path,
                                                  garbage: str) -> None:
    index_for(proj / "train.py").xla_code()
    path = _index_file(tmp_path)
    if garbage == "PLACEHOLDER_ENTRY":
        # Well-formed JSON with malformed entries: a summary of the wrong shape, a flag
        # of the wrong type.
        data = json.loads(path.read_text())
        data["files"]["metrics.py"]["sum"] = {"x": "yes", "i": 3}
        data["files"]["train.py"]["c"] = "maybe"
        garbage = json.dumps(data)
    path.write_text(garbage)
    project.reset()
    assert index_for(proj / "train.py").xla_code() == {
        "train.py", "engine.py", "metrics.py", "data.py", "utils.py"}
    assert lint(proj / "metrics.py") == [(2, "XLA201")]
    index = index_for(proj / "train.py")
    assert index.summary("metrics.py") == summarize(ast.parse(textwrap.dedent(METRICS)),
                                                    textwrap.dedent(METRICS))
    index.flush()
    data = json.loads(path.read_text())  # rewritten, valid
    assert Summary.from_json(data["files"]["metrics.py"]["sum"]) == summarize(
        ast.parse(textwrap.dedent(METRICS)), textwrap.dedent(METRICS))
    # the stored import graph, corrupt too: recomputed
    for record in path.parent.glob("layout/*.json"):
        record.write_text(garbage if garbage.strip() else "{")
    project.reset()
    assert index_for(proj / "train.py").xla_code() == {
        "train.py", "engine.py", "metrics.py", "data.py", "utils.py"}


def test_a_cache_written_by_other_linter_code_is_not_trusted(proj: Path, tmp_path: Path
                                                             ) -> None:
    """Summaries are the linter's own reading of a module: an index file written by the
    same version number but other package files (an install from a newer checkout) is
    rebuilt, as one of another version is."""
    index_for(proj / "train.py").xla_code()
    path = _index_file(tmp_path)
    data = json.loads(path.read_text())
    assert data["tool"] and data["version"]
    # a forged entry under another linter's fingerprint: metrics.py "without" XLA use
    data["tool"] = "0" * 64
    data["files"]["metrics.py"]["sum"]["x"] = False
    path.write_text(json.dumps(data))
    project.reset()
    index = index_for(proj / "train.py")
    assert index.summary("metrics.py") == summarize(ast.parse(textwrap.dedent(METRICS)),
                                                    textwrap.dedent(METRICS))
    index.flush()
    assert json.loads(path.read_text())["tool"] != "0" * 64


def test_two_workers_writing_the_cache_at_once(proj: Path, tmp_path: Path) -> None:
    """Many processes build and save the same project's index at the same time: every one
    finishes with the right answer, the file stays valid JSON, no temporary file is left."""
    for i in range(40):
        write(proj, {f"gen/m{i}.py": f"import torch\nX{i} = {i}\n"})
    write(proj, {"gen/use.py": "".join(f"import gen.m{i}\n" for i in range(40))})
    (proj / "train.py").write_text(textwrap.dedent(TRAIN) + "import gen.use\n")
    script = textwrap.dedent("""\
        import sys
        from flake8_xla.project.index import index_for
        ix = index_for(sys.argv[1])
        print(len(ix.xla_code()))
        """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for _ in range(3):
        procs = [subprocess.Popen([sys.executable, "-c", script, str(proj / "train.py")],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(4)]
        outs = [p.communicate(timeout=120) for p in procs]
        assert all(p.returncode == 0 for p in procs), outs
        assert {o.strip() for o, _ in outs} == {"46"}
        path = _index_file(tmp_path)
        data = json.loads(path.read_text())
        assert "gen/m39.py" in data["files"]
        assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]
        shutil.rmtree(path.parent)  # next round: all cold again, all writing


def test_flake8_j2_over_a_project_shares_one_cache(proj: Path, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=XLA",
                            "-j2", "."], cwd=proj, capture_output=True, text=True, env=env,
                           check=False) for _ in range(2)]
    assert runs[0].stdout == runs[1].stdout and "metrics.py:2" in runs[0].stdout
    assert json.loads(_index_file(tmp_path).read_text())["files"]


# ----------------------------------------------------------------------------- robustness
def test_bad_files_never_crash_the_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    top = write(tmp_path / "bad", {
        "pyproject.toml": "",
        "run.py": "import torch_xla\nimport broken, latin, star, gone, big\n"
                  "if __name__ == '__main__':\n    pass\n",
        "broken.py": "def (:\n",
        "star.py": "from star import *\nfrom . import *\n",
        "gone.py": "x = 1\n",
    })
    (top / "latin.py").write_bytes(b"x = '\xe9'\n")  # not UTF-8, no coding line
    (top / "big.py").write_text("x = 1\n" * 10)
    (top / "dir.py").mkdir()                          # a folder named like a module
    real_open = open

    def refusing_open(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("gone.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refusing_open)
    ix = index_for(top / "run.py")
    assert ix.summary("broken.py") is None and ix.summary("latin.py") is None
    assert ix.summary("gone.py") is None
    assert "dir.py" not in ix.files
    assert {"run.py", "star.py", "big.py"} <= ix.xla_code()
    monkeypatch.setattr("builtins.open", real_open)
    assert lint(top / "star.py") == []


def test_thousands_of_modules_and_long_import_chains(tmp_path: Path) -> None:
    """A 2,000-module tree with an import chain through all of it and cycles: the index
    answers (the 10,000-module run is benchmarks/project_speed.py's editor tree)."""
    files = {"pyproject.toml": "", "main.py": "import torch_xla\nimport m0\n"}
    for i in range(2000):
        files[f"m{i}.py"] = f"import m{(i + 1) % 2000}\nimport m{i // 2}\n"
    top = write(tmp_path / "many", files)
    ix = index_for(top / "main.py")
    assert len(ix.xla_code()) == 2001
    assert lint(top / "m1999.py") == []


def test_xla_target_file_is_an_option_everywhere(tmp_path: Path) -> None:
    top = write(tmp_path / "o", {"setup.cfg": "[flake8]\nxla-target = file\n",
                                  "train.py": TRAIN, "metrics.py": METRICS, "engine.py": ENGINE,
                                  "data.py": DATA, "utils.py": UTILS})
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with_config = subprocess.run([sys.executable, "-m", "flake8", "--select=XLA", "."],
                                 cwd=top, capture_output=True, text=True, env=env, check=False)
    assert with_config.returncode == 0, with_config.stdout + with_config.stderr
    cli = subprocess.run([sys.executable, "-m", "flake8_xla", "--xla-target=auto", "."],
                         cwd=top, capture_output=True, text=True, env=env, check=False)
    assert "metrics.py:2" in cli.stdout, cli.stdout + cli.stderr
    bad = subprocess.run([sys.executable, "-m", "flake8_xla", "--xla-target=project", "."],
                         cwd=top, capture_output=True, text=True, env=env, check=False)
    assert bad.returncode == 2


def test_a_project_optimizer_whose_step_may_all_reduce_is_not_reported(tmp_path: Path
                                                                        ) -> None:
    """XLA502: an optimizer class of the project that wraps another optimizer and calls the
    project's own helpers in ``step`` may all-reduce there (unknown: silent); one whose
    ``step`` only updates tensors is a plain optimizer (reported)."""
    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/comm.py": """\
            import torch_xla.core.xla_model as xm


            def allreduce_all(tensors):
                xm.all_reduce("sum", tensors)
            """,
        "pkg/optim.py": """\
            import torch

            from pkg import comm


            class Wrapped(torch.optim.Optimizer):
                def __init__(self, optimizer):
                    self.optimizer = optimizer

                def step(self, closure=None):
                    comm.allreduce_all([p.grad for g in self.optimizer.param_groups
                                        for p in g["params"]])
                    return self.optimizer.step(closure=closure)


            class PlainSGD(torch.optim.Optimizer):
                def __init__(self, params, lr):
                    super().__init__(params, {"lr": lr})

                @torch.no_grad()
                def step(self, closure=None):
                    loss = closure() if closure is not None else None
                    for group in self.param_groups:
                        for p in group["params"]:
                            if p.grad is not None:
                                p.add_(p.grad, alpha=-group["lr"] / max(1, len(group)))
                    return loss


            def make_optimizer(model):
                return Wrapped(torch.optim.AdamW(model.parameters()))
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.xla_multiprocessing as xmp

            from pkg.optim import PlainSGD, make_optimizer


            def _mp_fn(index):
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                opt = make_optimizer(model)
                sgd = PlainSGD(model.parameters(), lr=0.1)
                for _ in range(10):
                    loss = model(torch.randn(8, 4, device=device)).sum()
                    loss.backward()
                    opt.step()
                    sgd.step()
                    torch_xla.sync()


            if __name__ == "__main__":
                xmp.spawn(_mp_fn)
            """,
    })
    assert [f for f in lint(top / "train.py") if f[1] == "XLA502"] == [(17, "XLA502")]


def test_mentions_xla_finds_what_the_xla_text_pattern_finds() -> None:
    """The substring search of ``mentions_xla`` (text or bytes) answers as ``XLA_TEXT``."""
    import random

    from flake8_xla.project.xlause import XLA_TEXT, mentions_xla

    rng = random.Random(0)
    cases = ["output = 1", "use_tpu=True", "_tpu", "1tpu", "outputTPU", "aTpu x",
             "Accelerator()", "", "tpu", "xtpu tpu"]
    cases += ["".join(rng.choice("tpuTPUa _1xlA\n") for _ in range(rng.randint(0, 12)))
              for _ in range(5000)]
    for text in cases:
        expected = XLA_TEXT.search(text) is not None
        assert mentions_xla(text) is expected, text
        assert mentions_xla(text.encode()) is expected, text


def test_a_symlinked_module_imports_as_its_file_and_links_outside_are_skipped(
        tmp_path: Path, symlinked_project: Path) -> None:
    top = symlinked_project
    outside = write(tmp_path / "elsewhere", {"secret.py": "import torch_xla\n"})
    (top / "secret.py").symlink_to(outside / "secret.py")
    ix = index_for(top / "train.py")
    ix.scan()
    assert "data.py" in ix.files and "secret.py" not in ix.files
    # data.py is XLA code under its own name (train.py imports it): the loader is
    # reported where it is built
    assert (6, "XLA102") in lint(top / "data.py")


def test_a_method_of_a_class_from_another_module_runs_in_the_step(tmp_path: Path) -> None:
    """``meter = meters.Meter()`` then ``meter.add(loss)`` in the step loop: the method's
    ``.item()`` is a host sync in the training step, reported in meters.py."""
    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "meters.py": """\
            class Meter:
                def __init__(self):
                    self.total = 0.0

                def add(self, v):
                    self.total += v.item()
            """,
        "train.py": """\
            import torch
            import torch_xla

            import meters


            def main():
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                meter = meters.Meter()
                for step in range(10):
                    loss = model(torch.randn(8, 4, device=device)).sum()
                    loss.backward()
                    opt.step()
                    meter.add(loss)
                    torch_xla.sync()
            """,
    })
    assert lint(top / "meters.py") == [(6, "XLA201")]
    # the step is train.py's: the message names it
    assert "in the training step of train.py" in messages(top / "meters.py")[0]


def test_a_barrier_in_a_base_class_of_another_module_cuts_the_step(tmp_path: Path) -> None:
    """``class Trainer(BaseTrainer)`` with ``BaseTrainer.end_step`` (in base.py) calling
    ``torch_xla.sync()``: ``self.end_step()`` in the loop is the step's barrier."""
    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "base.py": """\
            import torch_xla


            class BaseTrainer:
                def end_step(self):
                    torch_xla.sync()
            """,
        "trainer.py": """\
            import torch
            import torch_xla
            from torch.utils.data import DataLoader

            from base import BaseTrainer


            class Trainer(BaseTrainer):
                def __init__(self, dataset):
                    self.loader = DataLoader(dataset, batch_size=8, drop_last=True)

                def fit(self, model, opt):
                    for x, y in self.loader:
                        model(x.to(torch_xla.device())).sum().backward()
                        opt.step()
                        self.end_step()

                def fit_unsynced(self, model, opt):
                    for x, y in self.loader:
                        model(x.to(torch_xla.device())).sum().backward()
                        opt.step()
                        self.log_step()

                def log_step(self):
                    pass
            """,
    })
    assert [code for _, code in lint(top / "trainer.py")].count("XLA301") == 1
    assert (19, "XLA301") in lint(top / "trainer.py")


def test_a_model_loaded_onto_the_xla_device_by_device_map(tmp_path: Path) -> None:
    """``from_pretrained(..., device_map={"": device})`` with an XLA device: a module on the
    device, whose ``generate()`` in an evaluation loop decodes on the host."""
    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "run.py": """\
            import torch_xla
            from transformers import AutoModelForCausalLM


            def evaluate(loader):
                device = torch_xla.device()
                on_xla = AutoModelForCausalLM.from_pretrained("m", device_map={"": device})
                on_cpu = AutoModelForCausalLM.from_pretrained("m", device_map="cpu")
                on_xla.generate(max_new_tokens=4)
                on_cpu.generate(max_new_tokens=4)
            """,
    })
    assert lint(top / "run.py") == [(9, "XLA103")]


def launcher(imports: str, replica_call: str, main: str) -> str:
    """A launching script: ``imports``, a ``_mp_fn`` that runs ``replica_call``, and
    ``main`` under ``if __name__ == "__main__":`` (lines of ``main`` indented by 4)."""
    return (f"{imports}\n\n\ndef _mp_fn(index):\n    {replica_call}\n\n\n"
            f"if __name__ == \"__main__\":\n    {main}\n")


def test_code_that_a_launching_module_runs_in_its_replicas_is_multi_replica(
        tmp_path: Path) -> None:
    """``main.py`` runs ``xmp.spawn(_mp_fn)`` and ``_mp_fn`` calls ``run()`` of
    trainer.py: the trainer's loop runs in every replica, so its unsharded loader is
    XLA504, its GradScaler step without an all-reduce is XLA403 (an all-reduce in the other
    branch of its ``if`` does not count), and its bare ``optimizer.step()`` is XLA502. A
    module the launcher calls only at its top level (in the launching process) is not."""
    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "main.py": launcher(
            "import torch_xla.distributed.xla_multiprocessing as xmp\n\n"
            "from prep import download\nfrom trainer import run", "run()",
            "download()\n    xmp.spawn(_mp_fn, args=())"),
        "helpers.py": """\
            import torch_xla.core.xla_model as xm


            def reduced_step(optimizer):
                xm.optimizer_step(optimizer)
            """,
        "trainer.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from helpers import reduced_step


            def run(dataset=None, model=None, amp=False):
                device = torch_xla.device()
                loader = DataLoader(dataset, batch_size=8, drop_last=True)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("xla")
                for x, y in pl.MpDeviceLoader(loader, device):
                    loss = model(x).sum()
                    if amp:
                        scaler.scale(loss).backward()
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        loss.backward()
                        reduced_step(optimizer)
                for x, y in pl.MpDeviceLoader(loader, device):
                    model(x).sum().backward()
                    optimizer.step()
            """,
        "prep.py": """\
            import torch_xla
            from torch.utils.data import DataLoader


            def download(dataset=None, model=None):
                loader = DataLoader(dataset, batch_size=8, drop_last=True)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for x, y in loader:
                    model(x.to(torch_xla.device())).sum().backward()
                    optimizer.step()
                    torch_xla.sync()
            """,
    })
    found = lint(top / "trainer.py")
    assert (11, "XLA504") in found
    assert (18, "XLA403") in found
    assert (25, "XLA502") in found
    assert (11, "XLA504") not in lint(top / "trainer.py", target="file")
    assert not [f for f in lint(top / "prep.py") if f[1] in ("XLA502", "XLA504")]


def test_a_ddp_script_borrowing_an_eval_helper_does_not_make_the_training_multi_replica(
        tmp_path: Path) -> None:
    """``ddp.py``, started once per device by torchrun (``init_process_group("xla")``),
    imports ``evaluate`` from the single-device script ``single.py``: the replicas run that
    helper, not ``single.py``'s own training loop, whose loader without a sampler is
    therefore no XLA504. A helper the replicas do run (its loop included) is."""
    top = write(tmp_path / "ddp", {
        "pyproject.toml": "",
        "single.py": """\
            import torch
            import torch_xla
            from torch.utils.data import DataLoader


            def evaluate(model, loader, device):
                return sum(float(model(x.to(device)).sum()) for x, _ in loader)


            def fit(model, loader, device, optimizer):
                for x, y in loader:
                    optimizer.zero_grad()
                    torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)).backward()
                    optimizer.step()
                    torch_xla.sync()


            def train(model, dataset, shared=False):
                device = torch_xla.device()
                loader = DataLoader(dataset, batch_size=8, drop_last=True)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for x, y in loader:
                    optimizer.zero_grad()
                    torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)).backward()
                    optimizer.step()
                    torch_xla.sync()
                return evaluate(model, loader, device)


            def make_loader(dataset):
                return DataLoader(dataset, batch_size=8, drop_last=True)
            """,
        # a single-device script of its own that reuses the loader factory
        "distill.py": """\
            import torch
            import torch_xla

            from single import make_loader

            if __name__ == "__main__":
                model = torch.nn.Linear(4, 4).to(torch_xla.device())
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for x, y in make_loader([]):
                    model(x.to(torch_xla.device())).sum().backward()
                    optimizer.step()
                    torch_xla.sync()
            """,
        "ddp.py": """\
            import torch
            import torch.distributed as dist
            import torch_xla
            import torch_xla.core.xla_model as xm
            from torch.utils.data import DataLoader

            from single import evaluate, fit


            def main(model, dataset):
                dist.init_process_group("xla")
                device = torch_xla.device()
                loader = DataLoader(dataset, batch_size=8, drop_last=True)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                fit(model, loader, device, optimizer)
                return evaluate(model, loader, device)


            if __name__ == "__main__":
                main(torch.nn.Linear(4, 4), [])
            """,
    })
    found = lint(top / "single.py")
    # train()'s loop runs on one device: no sampler needed, no all-reduce missing
    assert not [f for f in found if f[1] in ("XLA504", "XLA502") and f[0] > 16], found
    # fit(), which the replicas run, steps without an all-reduce
    assert (14, "XLA502") in found
    # make_loader()'s loader feeds only distill.py's single-device loop: no sampler needed
    assert (31, "XLA504") not in found


def test_a_function_that_a_launch_script_spawns_runs_in_every_replica(
        tmp_path: Path) -> None:
    """``launch.py`` imports ``train_fn`` from trainer.py and starts the replicas on it at
    its top level (``xmp.spawn(train_fn)``, ``torch_xla.launch(train_fn)``): the
    trainer's loop runs in every replica, so its unsharded loader is XLA504 and its bare
    ``optimizer.step()`` XLA502. Spawned with ``nprocs=1``, or only imported, it is not."""
    trainer = """\
        import torch
        import torch_xla
        import torch_xla.distributed.parallel_loader as pl
        from torch.utils.data import DataLoader


        def train_fn(index, dataset=None, model=None):
            device = torch_xla.device()
            loader = DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True)
            opt = torch.optim.Adam(model.parameters())
            for x, y in pl.MpDeviceLoader(loader, device):
                model(x).sum().backward()
                opt.step()
        """
    launches = {
        "spawn": "import torch_xla.distributed.xla_multiprocessing as xmp\n"
                 "from trainer import train_fn\n\n"
                 "if __name__ == '__main__':\n    xmp.spawn(train_fn, args=())\n",
        "launch": "import torch_xla\nimport trainer\n\n"
                  "if __name__ == '__main__':\n    torch_xla.launch(trainer.train_fn)\n",
        "single": "import torch_xla.distributed.xla_multiprocessing as xmp\n"
                  "from trainer import train_fn\n\n"
                  "if __name__ == '__main__':\n    xmp.spawn(train_fn, nprocs=1)\n",
        "imported": "import torch_xla\nfrom trainer import train_fn\n\nprint(train_fn)\n",
    }
    for name, text in launches.items():
        top = write(tmp_path / name, {"pyproject.toml": "", "launch.py": text,
                                      "trainer.py": trainer})
        found = {code for _, code in lint(top / "trainer.py")}
        many = name in ("spawn", "launch")
        assert ("XLA504" in found) is many, (name, found)
        assert ("XLA502" in found) is many, (name, found)


def test_a_config_dataclass_holds_what_another_module_constructs_it_with(
        tmp_path: Path) -> None:
    """config.py declares ``drop_last: bool = False``; train.py builds the config with
    ``drop_last=True`` and data.py's loader reads ``cfg.drop_last``: not ragged. Built
    without it (the default stands), or with False, the loader is XLA102."""
    files = {
        "pyproject.toml": "",
        "config.py": """\
            from dataclasses import dataclass


            @dataclass
            class DataConfig:
                root: str
                batch_size: int
                drop_last: bool = False
            """,
        "data.py": """\
            from torch.utils.data import DataLoader
            from torchvision import datasets


            def get_loader(cfg):
                ds = datasets.STL10(cfg.root, download=True)
                return DataLoader(ds, batch_size=cfg.batch_size, shuffle=True,
                                  drop_last=cfg.drop_last)
            """,
    }
    train = """\
        import torch_xla
        import torch_xla.distributed.parallel_loader as pl

        from config import DataConfig
        from data import get_loader


        def main(model, opt):
            device = torch_xla.device()
            cfg = DataConfig(root="/data", batch_size=256{extra})
            for x, y in pl.MpDeviceLoader(get_loader(cfg), device):
                model(x).sum().backward()
                opt.step()
        """
    for name, extra, ragged in (("kept", ", drop_last=True", False), ("default", "", True),
                                ("off", ", drop_last=False", True)):
        top = write(tmp_path / name, {**files, "train.py": train.format(extra=extra)})
        found = {code for _, code in lint(top / "data.py")}
        assert ("XLA102" in found) is ragged, (name, found)


def test_a_helper_that_xla_code_calls_only_on_its_gpu_path_is_off_the_xla_path(
        tmp_path: Path) -> None:
    """utils.py holds a GPU set-up function and a CUDA loss scaler (with a ``device="cuda"``
    default); main.py, XLA code, calls them only in the ``else`` of its TPU test (one
    through an import alias, one after an ``if tpu and not spawned / elif spawned``
    chain whose ``else`` the XLA path never reaches): no XLA501/XLA401 there. Called on
    the XLA path too, or handed over as a value there, they are reported."""
    utils = """\
        import torch
        import torch.distributed as dist


        def init_distributed_mode(args):
            torch.cuda.set_device(args.gpu)
            dist.init_process_group(backend="nccl")


        class NativeScaler:
            def __init__(self, device="cuda"):
                self._scaler = torch.amp.GradScaler("cuda")
                self.device = device
        """
    main = """\
        import torch
        import torch_xla

        import utils
        from utils import NativeScaler as Scaler


        def main(args):
            if args.tpu and not hasattr(args, "spawned"):
                device = torch_xla.device()
            elif hasattr(args, "spawned"):
                device = torch_xla.device()
            else:
                utils.init_distributed_mode(args)
                device = torch.device("cuda")
            if args.tpu:
                scaler = None
            else:
                scaler = Scaler(device="cuda")
            {extra}
            return device, scaler
        """
    for name, extra, reported in (("gpu_only", "pass", False),
                                  ("both", "utils.init_distributed_mode(args)", True),
                                  # handed over as a value on the XLA path (a spawn)
                                  ("handed", "args.hook = utils.init_distributed_mode", True)):
        top = write(tmp_path / name, {"pyproject.toml": "", "utils.py": utils,
                                      "main.py": main.format(extra=extra)})
        found = {code for _, code in lint(top / "utils.py")}
        assert ("XLA501" in found) is reported, (name, found)
        assert ("XLA401" in found) is False or reported, (name, found)


def test_replicas_reach_a_module_two_imports_away_through_a_renamed_import(
        tmp_path: Path) -> None:
    """``from train import run as go`` in the launcher, and train.run calls
    ``loop.fit()``: loop.py's bare ``optimizer.step()`` runs in every replica (XLA502)."""
    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "launch.py": launcher("import torch_xla\nfrom train import run as go", "go()",
                              "torch_xla.launch(_mp_fn)"),
        "train.py": """\
            import loop


            def run():
                loop.fit(lr=0.1)
            """,
        "loop.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl


            def fit(lr, model=None, loader=None):
                optimizer = torch.optim.SGD(model.parameters(), lr=lr)
                for x, y in pl.MpDeviceLoader(loader, torch_xla.device()):
                    model(x).sum().backward()
                    optimizer.step()
            """,
    })
    assert (10, "XLA502") in lint(top / "loop.py")
    assert (10, "XLA502") not in lint(top / "loop.py", target="file")


# ----------------------------------------------------------------------------- gates
def test_file_facts_round_trip_and_merge() -> None:
    from flake8_xla.filefacts import FileFacts

    a = FileFacts(ast.parse("import torch\nfor x in y:\n    x.backward()\n"))
    b = FileFacts(ast.parse("tok(s, padding='longest')\n"))
    back = FileFacts.from_json(json.loads(json.dumps(a.to_json())))
    assert all(getattr(back, k) == getattr(a, k) for k in FileFacts._SETS + FileFacts._FLAGS)
    both = FileFacts.merged([a, b])
    assert "backward" in both.call_attrs and "padding" in both.keywords and both.has_loop
    assert not b.has_loop and "padding" not in a.keywords
    for bad in (None, [], {**a.to_json(), "idents": "torch"}, {**a.to_json(), "has_loop": 1}):
        with pytest.raises(ValueError):
            FileFacts.from_json(bad)
    with pytest.raises(ValueError):
        FileFacts.merged([])


def test_dynamic_index_fact_and_the_dynamic_shape_gate() -> None:
    """XLA104 reports a dynamic-shape call or a non-constant index; a file with neither
    (constant indices and constant slices only) never builds astroid for it."""
    from flake8_xla.filefacts import FileFacts
    from flake8_xla.rules import RULES_BY_CODE

    def facts(src: str) -> FileFacts:
        return FileFacts(ast.parse("import torch_xla\nimport torch\n" + src))

    static = facts("y = x[0]\nz = x[1:-1]\nu = x[::2]\nw = x[...]\nv = torch.cat([y, z])\n")
    assert not static.has_dynamic_index
    assert not RULES_BY_CODE["XLA104"].precondition(static)
    for src in ("y = x[mask]\n", "y = x[:n]\n", "y = x[i, 0]\n", "x[x > 0] = 0\n"):
        assert facts(src).has_dynamic_index, src
        assert RULES_BY_CODE["XLA104"].precondition(facts(src)), src
    assert RULES_BY_CODE["XLA104"].precondition(facts("i = torch.nonzero(x)\n"))
    assert RULES_BY_CODE["XLA104"].precondition(facts("i = x.unique()\n"))
    back = FileFacts.from_json(json.loads(json.dumps(facts("y = x[m]\n").to_json())))
    assert back.has_dynamic_index


def test_a_linked_file_is_gated_on_the_facts_of_the_modules_its_check_reaches(
        proj: Path) -> None:
    from flake8_xla.filefacts import FileFacts, may_have_step_region

    index = index_for(proj / "train.py")
    # metrics.py: train.py imports it, and train.py imports the other helpers
    assert index.reach("metrics.py") == ["data.py", "engine.py", "metrics.py", "train.py",
                                         "utils.py"]
    own = FileFacts(ast.parse((proj / "metrics.py").read_text()))
    assert not may_have_step_region(own)  # alone, no tensor library, no loop
    merged = index.gate_facts("metrics.py", own)
    assert merged is not None and may_have_step_region(merged)
    assert "DataLoader" in merged.idents and "unrelated" not in merged.idents
    # ... so the read is found, on the helper's own line (XLA201)
    assert (2, "XLA201") in lint(proj / "metrics.py")


def test_a_linked_file_skips_the_rules_its_reach_gives_no_cause_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flake8_xla.engine import lint_tree
    from flake8_xla.rules import ALL_RULES

    top = write(tmp_path / "g", {"pyproject.toml": "", "train.py": TRAIN, "engine.py": ENGINE,
                                 "metrics.py": METRICS, "data.py": DATA, "utils.py": UTILS})
    ran: list[str] = []
    rules = []
    for r in ALL_RULES:
        if r.code in ("XLA101", "XLA201"):
            def check(self, _orig=r.check):
                ran.append(self.code)
                return _orig(self)
            rules.append(type(r.__name__, (r,), {"check": check}))
    path = top / "metrics.py"
    text = path.read_text()
    found = lint_tree(ast.parse(text), text, str(path), Options(version=(2, 9)), rules,
                      gates=True, strict=True)
    # nothing in the project pads a batch: XLA101 never runs; the step read is found
    assert ran == ["XLA201"] and [f.code for f in found] == ["XLA201"]
    ran.clear()
    lint_tree(ast.parse(text), text, str(path), Options(version=(2, 9)), rules,
              gates=False, strict=True)
    assert sorted(ran) == ["XLA101", "XLA201"]


def test_facts_missing_from_a_cache_entry_are_rebuilt(proj: Path) -> None:
    index = index_for(proj / "train.py")
    assert index.facts("engine.py") is not None
    index.flush()
    project.reset()
    data = json.loads((index.cache_folder / INDEX_NAME).read_text())
    data["files"]["engine.py"]["f"] = {"idents": 3}
    (index.cache_folder / INDEX_NAME).write_text(json.dumps(data))
    again = index_for(proj / "train.py")
    facts = again.facts("engine.py")
    assert facts is not None and "backward" in facts.call_attrs


def test_the_checked_files_facts_come_from_the_index_only_for_its_text_on_disk(
        proj: Path) -> None:
    """A warm run reads a checked file's facts from the index instead of walking its tree
    again; an editor's unsaved buffer (other text) gets facts of its own."""
    from flake8_xla.context import ModuleContext
    from flake8_xla.filefacts import FileFacts

    index = index_for(proj / "engine.py")
    assert index.facts("engine.py") is not None
    index.flush()
    project.reset()
    text = (proj / "engine.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    ctx = ModuleContext(tree, text, str(proj / "engine.py"), Options(target="auto"))
    stored = ctx.stored_facts()
    assert stored is not None and stored.to_json() == FileFacts(tree).to_json()
    edited = text + "\nprint(1)\n"
    other = ModuleContext(ast.parse(edited), edited, str(proj / "engine.py"),
                          Options(target="auto"))
    assert other.stored_facts() is None
    assert ModuleContext(tree, text, str(proj / "engine.py"),
                         Options(target="file")).stored_facts() is None


def test_step_calls_are_stored_on_disk_and_rebuilt_when_stale_or_corrupt(
        proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from flake8_xla.project import link

    def fresh_process() -> None:
        project.reset()
        link._STEP_CALLS.clear()
        link._TREES.clear()

    computed: list[str] = []
    real = link.Session._store_step_calls

    def spy(self, rel, read, calls):
        computed.append(rel)
        real(self, rel, read, calls)

    monkeypatch.setattr(link.Session, "_store_step_calls", spy)
    fresh_process()
    assert (2, "XLA201") in lint(proj / "metrics.py")  # report() runs in train.py's step
    assert computed == ["train.py"]
    folder = index_for(proj / "train.py").cache_folder / link.STEPS_RECORD
    records = sorted(folder.glob("*.json"))
    assert len(records) == 1
    # a new process takes the record: train.py's step region is not computed again
    fresh_process()
    assert (2, "XLA201") in lint(proj / "metrics.py")
    assert computed == ["train.py"]
    # a corrupt record is recomputed, never trusted
    for bad in ("{", json.dumps({"format": "x"}), None):
        if bad is None:  # well-formed JSON of the right header, nonsense inside
            data = json.loads(records[0].read_text())
            data["record"]["calls"] = [[["train.py", "FunctionDef"], 7, None]]
            bad = json.dumps(data)
        records[0].write_text(bad)
        fresh_process()
        computed.clear()
        assert (2, "XLA201") in lint(proj / "metrics.py")
        assert computed == ["train.py"]
    # an edit of a file it read makes it stale: report() now runs once, after the loop
    train = proj / "train.py"
    train.write_text(train.read_text().replace("        metrics.report(loss)\n", "").replace(
        "    utils.save(", "    metrics.report(loss)\n    utils.save("))
    fresh_process()
    computed.clear()
    assert (2, "XLA201") not in lint(proj / "metrics.py")
    assert computed == ["train.py"]


def test_summary_tells_import_time_calls_from_calls_that_functions_and_loops_make() -> None:
    src = textwrap.dedent("""\
        import args
        import cfg
        import loop
        import steps
        import hooks
        from train import run as go

        FLAGS = args.parse(default=cfg.DEFAULT)
        if __name__ == "__main__":
            go()
        for batch in loop.batches():
            pass
        register(hooks.on_step)


        def main():
            steps.train_step()
        """)
    s = summarize(ast.parse(src), src)
    assert {"args.parse", "train.run", "loop.batches", "steps.train_step"} <= set(s.refs)
    # args.parse and go() run once at import time; everything else may run per step
    assert set(s.deep) >= {"cfg.DEFAULT", "loop.batches", "hooks.on_step", "steps.train_step"}
    assert not {"args", "args.parse", "train.run"} & set(s.deep)
    assert Summary.from_json(json.loads(json.dumps(s.to_json()))) == s


def test_the_import_graph_is_stored_and_any_change_of_the_project_recomputes_it(
        proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = ProjectIndex._needing_xla

    def spy(self):
        calls.append(1)
        return real(self)

    monkeypatch.setattr(ProjectIndex, "_needing_xla", spy)
    expected = {"train.py", "engine.py", "metrics.py", "data.py", "utils.py"}
    assert index_for(proj / "train.py").xla_code() == expected and len(calls) == 1
    project.reset()
    assert index_for(proj / "train.py").xla_code() == expected and len(calls) == 1  # stored
    # a new module that train.py imports: the stored graph no longer applies
    write(proj, {"extra.py": "def f():\n    return 1\n"})
    (proj / "train.py").write_text(textwrap.dedent(TRAIN) + "import extra\n")
    project.reset()
    assert index_for(proj / "train.py").xla_code() == expected | {"extra.py"}
    assert len(calls) == 2


def test_a_base_class_method_of_another_module_passed_the_optimizer_steps_the_loop(
        tmp_path: Path) -> None:
    """The loop's only update is ``self.update(opt, loss)``, a method of a base class in
    another module: followed with the caller's context (the optimizer it is passed), the
    loop trains, and it has no barrier (XLA301). A call passing only tensors, such as
    ``self.check(loss)``, is followed without it."""
    top = write(tmp_path / "b", {
        "pyproject.toml": "",
        "base.py": """\
            class Base:
                def update(self, opt, loss):
                    loss.backward()
                    opt.step()

                def check(self, value):
                    return value
            """,
        "train.py": """\
            import torch
            import torch_xla
            from base import Base


            class Trainer(Base):
                def fit(self, ds):
                    device = torch_xla.device()
                    loader = torch.utils.data.DataLoader(ds, batch_size=8, drop_last=True)
                    model = torch.nn.Linear(4, 2).to(device)
                    opt = torch.optim.SGD(model.parameters(), lr=0.1)
                    for x, y in loader:
                        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
                        self.check(loss)
                        self.update(opt, loss)
            """,
    })
    assert (12, "XLA301") in lint(top / "train.py")


def test_an_object_handed_over_by_the_module_that_builds_it_is_followed(
        tmp_path: Path) -> None:
    """``train.py`` builds the model (``model.py``) and the evaluator (``evaluator.py``) and
    hands both to the trainer (``trainer.py``); neither the trainer nor the evaluator imports
    the other modules. The evaluator's loop, one step per example with a barrier, runs the
    model's decode method: its early stop on a token of the XLA model is reported in
    ``model.py``, and the evaluator's own host read of the output in ``evaluator.py``."""
    top = write(tmp_path / "inject", {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/model.py": """\
            import torch
            from torch import nn


            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.emb = nn.Embedding(10, 4)
                    self.head = nn.Linear(4, 10)

                def decode(self, ids, max_new_tokens=8, eos_id=1):
                    out = [ids]
                    tok = ids
                    for _ in range(max_new_tokens):
                        tok = self.head(self.emb(tok)).argmax(dim=-1)
                        if (tok == eos_id).all():
                            break
                        out.append(tok)
                    return torch.cat(out, dim=1)
            """,
        "pkg/evaluator.py": """\
            import torch


            class Evaluator:
                def __init__(self, device):
                    self.device = device
                    import torch_xla.core.xla_model as xm
                    self._xm = xm

                def evaluate(self, model, dataset):
                    correct = 0
                    for item in dataset:
                        ids = torch.tensor(item).to(self.device)
                        out = model.decode(ids)
                        self._xm.mark_step()
                        correct += int(out[0, -1] == 1)
                    return correct
            """,
        "pkg/trainer.py": """\
            import torch_xla.core.xla_model as xm


            class Trainer:
                def __init__(self, model, evaluator):
                    self.device = xm.xla_device()
                    self.model = model.to(self.device)
                    self.evaluator = evaluator

                def train(self, data):
                    for batch in data:
                        loss = self.model(batch.to(self.device)).sum()
                        loss.backward()
                        xm.mark_step()
                    self.evaluator.evaluate(self.model, data)
            """,
        "pkg/train.py": """\
            import torch_xla.core.xla_model as xm

            from pkg.evaluator import Evaluator
            from pkg.model import Net
            from pkg.trainer import Trainer


            def main(data):
                evaluator = Evaluator(xm.xla_device())
                Trainer(Net(), evaluator).train(data)
            """,
    })
    assert (16, "XLA103") in lint(top / "pkg" / "model.py")
    assert (16, "XLA201") in lint(top / "pkg" / "evaluator.py")


def test_the_checked_files_own_call_sites_come_first(tmp_path: Path) -> None:
    """A helper that many scripts call with their loaders: the call sites consulted for its
    parameters are bounded, and the checked script's own come first, so its ragged
    evaluation loader is found however many other scripts sort before it."""
    script = """\
        import torch
        import torch_xla
        from torch.utils.data import DataLoader, TensorDataset

        from engine import evaluate


        def main(model, batch_size):
            device = torch_xla.device()
            ds = TensorDataset(torch.randn(100, 4), torch.randint(0, 2, (100,)))
            {loader}
            for _ in range(3):
                evaluate(model, test_loader, device)
                evaluate(model, test_loader, device)
                evaluate(model, test_loader, device)
        """
    files = {
        "pyproject.toml": "",
        "engine.py": """\
            import torch_xla.distributed.parallel_loader as pl


            def evaluate(model, loader, device):
                for x, y in pl.MpDeviceLoader(loader, device):
                    model(x)
            """,
    }
    for name in ("a_run.py", "b_run.py", "c_run.py"):
        files[name] = script.format(
            loader="test_loader = DataLoader(ds, batch_size=batch_size, drop_last=True)")
    files["z_main.py"] = script.format(
        loader="test_loader = DataLoader(ds, batch_size=batch_size)")
    top = write(tmp_path / "many", files)
    assert lint(top / "z_main.py") == [(11, "XLA102")]
    assert lint(top / "a_run.py") == []


def test_a_model_left_on_the_cpu_stays_there_when_an_xla_step_calls_it(
        tmp_path: Path) -> None:
    """A teacher model that is never moved, run by the trainer of another module on CPU
    batches inside the XLA training step: its decode loop's early stop reads a CPU tensor,
    while the same loop of the model that the trainer moved to the XLA device is reported
    (under the context the evaluator passes, even though the loop's own entry without a
    context reads nothing)."""
    lm = """\
        import torch
        from torch import nn


        class {name}(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(100, 8)
                self.head = nn.Linear(8, 100)

            def forward(self, ids):
                return self.head(self.emb(ids))

            def generate(self, ids, max_new_tokens=8, eos_id=2):
                for _ in range(max_new_tokens):
                    tok = self(ids)[:, -1].argmax(-1, keepdim=True)
                    ids = torch.cat([ids, tok], dim=1)
                    if (tok == eos_id).all():
                        break
                return ids
        """
    top = write(tmp_path / "teach", {
        "pyproject.toml": "",
        "teacher.py": lm.format(name="Teacher"),
        "student.py": lm.format(name="Student"),
        "trainer.py": """\
            import torch_xla


            class Trainer:
                def __init__(self, model, teacher, optimizer, loader, device):
                    self.model = model
                    self.teacher = teacher
                    self.optimizer = optimizer
                    self.loader = loader
                    self.device = device

                def fit(self, epochs):
                    for epoch in range(epochs):
                        for x, y in self.loader:
                            pseudo = self.teacher.generate(x[:, :4])
                            x = pseudo.to(self.device)
                            loss = self.model(x).sum()
                            loss.backward()
                            self.optimizer.step()
                            torch_xla.sync()
                        for ids in [x[:1], x[1:2]]:
                            self.model.generate(ids)
                            torch_xla.sync()
            """,
        "train.py": """\
            import torch
            import torch_xla
            from torch.utils.data import DataLoader, TensorDataset

            from student import Student
            from teacher import Teacher
            from trainer import Trainer


            def main():
                device = torch_xla.device()
                model = Student().to(device)
                opt = torch.optim.AdamW(model.parameters())
                ds = TensorDataset(torch.randint(0, 100, (64, 16)), torch.randint(0, 100, (64,)))
                loader = DataLoader(ds, batch_size=8, drop_last=True)
                Trainer(model, Teacher(), opt, loader, device).fit(3)
            """,
    })
    assert lint(top / "teacher.py") == []
    assert lint(top / "student.py") == [(18, "XLA103")]


#: A small module class, to which each test adds a method.
NET_HEAD = """\
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 2)

        def forward(self, x):
            return self.lin(x)

"""
REEXPORTED_NET = NET_HEAD + """\
        def train_step(self, batch, opt):
            loss = self(batch).sum()
            loss.backward()
            opt.step()
            print("loss", loss.item())
            return loss
    """
NET_SCRIPT = """\
    import torch
    import torch_xla
    import torch_xla.distributed.parallel_loader as pl
    from torch.utils.data import DataLoader

    {import_line}


    def main(dataset):
        device = torch_xla.device()
        model = Net().to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = DataLoader(dataset, batch_size=8, drop_last=True)
        for batch in pl.MpDeviceLoader(loader, device):
            {step}
    """


@pytest.mark.parametrize("import_line", ["from models import Net", "from models import *"])
def test_a_package_that_re_exports_a_module_leads_its_importers_there(
        tmp_path: Path, import_line: str) -> None:
    """``from models import Net`` with ``models/__init__.py`` re-exporting ``from .net import
    Net``: the training script that imports the package runs ``Net.train_step`` per batch,
    so the method's host read is reported in ``models/net.py``. With ``from models import
    *`` the script's ``Net`` is that class too (a star import of a project package resolves
    its names), so the model it builds and moves is known."""
    top = write(tmp_path / "reexport", {
        "pyproject.toml": "",
        "models/__init__.py": "from .net import Net\n",
        "models/net.py": REEXPORTED_NET,
        "train.py": NET_SCRIPT.format(import_line=import_line,
                                      step="model.train_step(batch, opt)"),
    })
    assert lint(top / "models" / "net.py") == [(16, "XLA201")]


def test_the_last_star_import_that_binds_a_name_wins(tmp_path: Path) -> None:
    """``from models_a import *`` then ``from models_b import *``, both binding ``Net``:
    Python keeps the later one, so the hazard of ``models_b.Net`` is reported and the
    clean ``models_a.Net`` is not; a name no star import binds stays unknown."""
    net = NET_HEAD + """\
        def compute_loss(self, batch):
            loss = self(batch).sum()
            {log}
            return loss
    """
    top = write(tmp_path / "stars", {
        "pyproject.toml": "",
        "models_a/__init__.py": "from .net import Net\n",
        "models_a/net.py": net.format(log="pass"),
        "models_b/__init__.py": "from .net import *\n",
        "models_b/net.py": net.format(log='print("loss", loss.item())'),
        "train.py": NET_SCRIPT.format(
            import_line="from models_a import *\n    from models_b import *",
            step="loss = model.compute_loss(batch)\n"
                 "            loss.backward()\n"
                 "            opt.step()"),
    })
    assert lint(top / "models_b" / "net.py") == [(14, "XLA201")]
    assert lint(top / "models_a" / "net.py") == []


def test_a_stream_built_in_a_loader_module_and_run_by_a_subclass_trainer_is_reported(
        tmp_path: Path) -> None:
    """A loader factory returns a DataLoader over a streaming dataset; the launching script
    builds a trainer picked from a table of subclasses (each in its own module, inheriting
    ``train`` from a base class of a third module) and hands it the loader. The base
    class's loop takes the loader from the script's call, and the DataLoader is reported
    in the loader module, where it is built (XLA504: no sampler shards a stream). Split per
    replica, it is not; nor is the loop's loader unknown when the subclass modules never
    call ``train`` themselves (they cost none of the session's module budget)."""
    files = {
        "pyproject.toml": "",
        "loaders/__init__.py": "",
        "loaders/stream.py": """\
            import datasets
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl


            def get_loader(batch_size):
                ds = datasets.load_dataset("c4", "en", split="train", streaming=True)
                loader = torch.utils.data.DataLoader(ds, batch_size=batch_size,
                                                     drop_last=True)
                return pl.MpDeviceLoader(loader, torch_xla.device())
            """,
        "trainers/__init__.py": """\
            from trainers.lm import LMTrainer
            from trainers.cls import ClsTrainer

            TRAINERS = {"lm": LMTrainer, "cls": ClsTrainer}
            """,
        "trainers/base.py": """\
            import torch_xla.core.xla_model as xm


            class BaseTrainer:
                def __init__(self, lr):
                    self.lr = lr

                def train(self, model, optimizer, loader):
                    for batch in loader:
                        loss = self.train_step(model, batch)
                        loss.backward()
                        xm.optimizer_step(optimizer)
            """,
        "trainers/lm.py": """\
            from trainers.base import BaseTrainer


            class LMTrainer(BaseTrainer):
                def train_step(self, model, batch):
                    return model(batch["input_ids"]).sum()
            """,
        "trainers/cls.py": """\
            from trainers.base import BaseTrainer


            class ClsTrainer(BaseTrainer):
                def train_step(self, model, batch):
                    return model(batch["x"]).mean()
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.xla_multiprocessing as xmp

            from loaders.stream import get_loader
            from trainers import TRAINERS


            def _mp_fn(index, kind):
                model = torch.nn.Linear(4, 4).to(torch_xla.device())
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                loader = get_loader(8)
                trainer = TRAINERS[kind](0.1)
                trainer.train(model, optimizer, loader)


            if __name__ == "__main__":
                xmp.spawn(_mp_fn, args=("lm",))
            """,
    }
    top = write(tmp_path / "streamed", files)
    assert lint(top / "loaders" / "stream.py") == [(9, "XLA504")]
    [unsharded] = messages(top / "loaders" / "stream.py")
    assert "split_dataset_by_node" in unsharded
    assert lint(top / "trainers" / "base.py") == []
    project.reset()
    split = dict(files)
    split["loaders/stream.py"] = files["loaders/stream.py"].replace(
        "ds = datasets", "ds = datasets.distributed.split_dataset_by_node(datasets").replace(
        "streaming=True)", "streaming=True), rank=0, world_size=8)")
    top = write(tmp_path / "split", split)
    assert lint(top / "loaders" / "stream.py") == []


def test_a_stream_from_a_loader_factory_is_reported_once_where_it_is_built(
        tmp_path: Path) -> None:
    """A loader factory of ``data.py`` returns a DataLoader over a stream, the launching
    script hands it to ``trainer.py``'s loop: XLA504 on the ``DataLoader(`` line of
    ``data.py`` only, not again in ``trainer.py`` (where the loader arrives). A loader the
    launching script builds itself is reported where it is built too, in the script,
    which looks for the loops of the loaders it hands on."""
    files = {
        "pyproject.toml": "",
        "data.py": """\
            from datasets import load_dataset
            from torch.utils.data import DataLoader


            def build_train_loader(batch_size):
                stream = load_dataset("allenai/c4", "en", split="train", streaming=True)
                stream = stream.shuffle(seed=42, buffer_size=10_000)
                return DataLoader(stream, batch_size=batch_size, drop_last=True)
            """,
        "trainer.py": """\
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl


            def train_epoch(model, optimizer, loader):
                device = torch_xla.device()
                for batch in pl.MpDeviceLoader(loader, device):
                    model(batch["x"]).sum().backward()
                    xm.optimizer_step(optimizer)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.xla_multiprocessing as xmp
            from datasets import load_dataset
            from torch.utils.data import DataLoader

            from data import build_train_loader
            from trainer import train_epoch


            def _mp_fn(index, own):
                model = torch.nn.Linear(4, 4).to(torch_xla.device())
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                loader = build_train_loader(8)
                if own:
                    stream = load_dataset("c4", "en", split="train", streaming=True)
                    loader = DataLoader(stream, batch_size=8, drop_last=True)
                train_epoch(model, optimizer, loader)


            if __name__ == "__main__":
                xmp.spawn(_mp_fn, args=(False,))
            """,
    }
    top = write(tmp_path / "factory", files)
    assert lint(top / "data.py") == [(8, "XLA504")]
    assert lint(top / "train.py") == [(17, "XLA504")]  # the script's own loader
    assert lint(top / "trainer.py") == []


def test_a_registry_module_of_trainers_leads_the_loaders_to_the_inherited_loop(
        tmp_path: Path) -> None:
    """The trainer classes sit in a registry module (``TRAINERS.get(kind)``, a method of a
    value another module defines), which the script imports; the subclasses inherit the
    loop from a base class two imports further. Both loaders the script passes are
    reported where they are built: the map-style one has a ragged last batch (XLA102),
    the stream no sampler can shard (XLA504)."""
    top = write(tmp_path / "registry", {
        "pyproject.toml": "",
        "loaders.py": """\
            import datasets
            import torch
            from torch.utils.data import DataLoader


            def get_loaders(batch_size):
                train = DataLoader(torch.utils.data.TensorDataset(torch.randn(1001, 4)),
                                   batch_size=batch_size, shuffle=True)
                stream = datasets.load_dataset("c4", "en", split="train", streaming=True)
                return train, DataLoader(stream, batch_size=batch_size, drop_last=True)
            """,
        "trainers/__init__.py": "",
        "trainers/base.py": """\
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl


            class BaseTrainer:
                def train(self, model, optimizer, loader):
                    for batch in pl.MpDeviceLoader(loader, torch_xla.device()):
                        self.loss(model, batch).backward()
                        xm.optimizer_step(optimizer)
            """,
        "trainers/lm.py": """\
            from trainers.base import BaseTrainer


            class LMTrainer(BaseTrainer):
                def loss(self, model, batch):
                    return model(batch[0]).sum()
            """,
        "trainers/registry.py": """\
            from trainers.lm import LMTrainer

            TRAINERS = {"lm": LMTrainer}
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.xla_multiprocessing as xmp

            from loaders import get_loaders
            from trainers.registry import TRAINERS


            def _mp_fn(index, kind):
                model = torch.nn.Linear(4, 4).to(torch_xla.device())
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                plain, stream = get_loaders(8)
                trainer = TRAINERS.get(kind)()
                trainer.train(model, optimizer, plain)
                trainer.train(model, optimizer, stream)


            if __name__ == "__main__":
                xmp.spawn(_mp_fn, args=("lm",))
            """,
    })
    assert lint(top / "loaders.py") == [(7, "XLA102"), (7, "XLA504"), (10, "XLA504")]
    assert lint(top / "trainers" / "base.py") == []


def test_callers_of_a_widely_imported_module_are_looked_for_within_a_bound(
        tmp_path: Path) -> None:
    """The importers searched for callers of a subclass's method are bounded: a module
    that 200 scripts import, each calling ``.train``, is answered from at most 64 of
    them, nearest first and in sorted order (the same answer on every run)."""
    files = {"pyproject.toml": "",
             "trainer.py": "import torch_xla\n\n\nclass Trainer:\n    pass\n"}
    for i in range(200):
        files[f"run_{i:03}.py"] = ("import torch_xla\nfrom trainer import Trainer\n\n"
                                   "Trainer().train()\n")
    top = write(tmp_path / "wide", files)
    ix = index_for(top / "trainer.py")
    assert ix is not None
    found = ix.attr_callers("trainer.py", ["train"])
    assert 0 < len(found) <= 64
    assert found == sorted(found) and found[0] == "run_000.py"
    assert ix.attr_callers("trainer.py", ["fit"]) == []


def test_other_modules_are_read_without_their_syntax_warnings(tmp_path: Path) -> None:
    """A project module that Python warns about (``1if x else 2``: "invalid decimal
    literal") is read for context without printing that warning: only the checked
    file's problems are reported."""
    import warnings

    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "helper.py": "Z = 1if True else 2\n\n\ndef f(x):\n    return x\n",
        "main.py": "import torch_xla\nfrom helper import f\n\nprint(f(torch_xla.device()))\n",
    })
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lint(top / "main.py")
    assert not [w for w in caught if issubclass(w.category, SyntaxWarning)], caught


def test_an_interpreters_own_library_is_not_a_project(tmp_path: Path) -> None:
    """A Python installation inside a git checkout (``~/.pyenv`` is one): the files of its
    ``lib/python3.11`` belong to no project, and a scan from the checkout's root leaves
    that folder out, so nothing indexes the interpreter's tens of thousands of files."""
    top = write(tmp_path / "pyenv", {
        ".git/HEAD": "ref: refs/heads/master\n",
        "versions/3.11.7/lib/python3.11/os.py": "import sys\n",
        "versions/3.11.7/lib/python3.11/site.py": "import os\n",
        "versions/3.11.7/lib/python3.11/__future__.py": "all_feature_names = []\n",
        "plugins/tool.py": "import os\n",
    })
    assert find_root(top / "versions/3.11.7/lib/python3.11/__future__.py") is None
    assert find_root(top / "plugins/tool.py") is not None
    ix = ProjectIndex(find_root(top / "plugins/tool.py"))
    assert not [rel for rel in ix.files if "python3.11" in rel], sorted(ix.files)


def test_the_program_of_a_module_that_xla_code_only_imports_is_off_the_xla_path(
        tmp_path: Path) -> None:
    """train.py is the GPU program (its ``__main__`` block runs ``main()``); train_tpu.py
    imports its argument parsing and a sampling helper. train.py is XLA code by the
    project rule, but its own program is not on the XLA path: its loop is not reported,
    while the helper that train_tpu.py calls still is. When train.py imports a module
    that shows XLA use (its device may come from there), its program stays on the path."""
    train = """\
        import torch
        {extra_import}


        def parse_args():
            return None


        def sample(model, ids):
            for _ in range(8):
                nxt = model(ids).argmax(-1)
                if int(nxt[0, -1]) == 0:
                    break
                ids = torch.cat([ids, nxt[:, -1:]], dim=1)
            return ids


        def main():
            device = {device}
            model = torch.nn.Linear(4, 4).to(device)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for step in range(100):
                loss = model(torch.randn(8, 4, device=device)).sum()
                loss.backward()
                opt.step()
                print(loss.item())


        if __name__ == "__main__":
            main()
        """
    tpu = """\
        import torch
        import torch_xla

        import train


        def main():
            args = train.parse_args()
            device = torch_xla.device()
            model = torch.nn.Linear(4, 4).to(device)
            for step in range(10):
                ids = train.sample(model, torch.zeros(1, 4, device=device))
                torch_xla.sync()


        if __name__ == "__main__":
            main()
        """
    helpers = """\
        import torch_xla


        def get_device():
            return torch_xla.device()
        """
    gpu = 'torch.device("cuda" if torch.cuda.is_available() else "cpu")'
    for name, extra_import, device, own in (
            ("gpu_program", "", gpu, set()),
            ("xla_helpers", "import helpers", "helpers.get_device()",
             {(22, "XLA301"), (26, "XLA201")})):
        top = write(tmp_path / name, {
            "pyproject.toml": "", "helpers.py": helpers, "train_tpu.py": tpu,
            "train.py": train.format(extra_import=extra_import, device=device)})
        found = lint(top / "train.py")
        # int() in sample(), which train_tpu.py runs, is reported either way
        assert (12, "XLA201") in found, (name, found)
        # main()'s CUDA device (XLA501), its loop with no barrier (XLA301) and its
        # per-step loss.item() (XLA201)
        assert {f for f in found if f[0] >= 18} == own, (name, found)


def test_functions_the_gpu_program_runs_through_a_callback_are_off_the_xla_path(
        tmp_path: Path) -> None:
    """train.py, the GPU program, runs its pipeline through a tracking wrapper
    (``run_with_tracking(lambda: pipeline(args))``) and the pipeline calls trainer.py's
    ``train`` and ``evaluate``; train_tpu.py imports train.py's argument parsing and
    trainer.py's ``check``, which its step calls. Only ``check`` is on the XLA path;
    when train_tpu.py also runs ``evaluate``, that is on it too."""
    trainer = """\
        def check(t):
            return t.min().item()


        def evaluate(model, loader):
            for x in loader:
                print(model(x).sum().item())


        def train(model, opt, loader, device):
            for x in loader:
                loss = model(x.to(device)).sum()
                loss.backward()
                opt.step()
                print(loss.item())
            evaluate(model, loader)
        """
    train = """\
        import torch

        from trainer import evaluate, train


        def parse():
            return None


        def run_with_tracking(fn):
            return fn()


        def pipeline(args):
            device = torch.device(args.device)
            model = torch.nn.Linear(4, 4).to(device)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2)
            train(model, opt, loader, device)
            evaluate(model, loader)


        def main():
            args = parse()
            run_with_tracking(lambda: pipeline(args))


        if __name__ == "__main__":
            main()
        """
    tpu = """\
        import torch
        import torch_xla
        import torch_xla.distributed.parallel_loader as pl

        import trainer
        from train import parse


        def main():
            parse()
            device = torch_xla.device()
            model = torch.nn.Linear(4, 4).to(device)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2, drop_last=True)
            for x in pl.MpDeviceLoader(loader, device):
                loss = model(x).sum()
                trainer.check(x)
                loss.backward()
                opt.step()
            {extra}


        if __name__ == "__main__":
            main()
        """
    for name, extra, evaluated in (("gpu_only", "pass", False),
                                   ("tpu_evaluates", "trainer.evaluate(model, loader)", True)):
        top = write(tmp_path / name, {"pyproject.toml": "", "trainer.py": trainer,
                                      "train.py": train, "train_tpu.py": tpu.format(extra=extra)})
        found = lint(top / "trainer.py")
        assert (2, "XLA201") in found, (name, found)  # check(), run per XLA step
        assert not [f for f in found if f[0] >= 11], (name, found)  # train(): GPU only
        assert ((7, "XLA201") in found) is evaluated, (name, found)


def test_a_meter_class_a_package_re_exports_is_followed_past_many_helper_modules(
        tmp_path: Path) -> None:
    """A script that imports many loader helpers and its meter class through a package's
    ``__init__``, and builds a loader whose loop is in another module: the search of the
    modules around it for that loop (XLA102) runs after the script's own step analysis, and
    the modules its own names resolve into fit the per-file module budget, so the meter's
    lazy average is still known when XLA201 reads it."""
    files: dict[str, str] = {"pyproject.toml": ""}
    helpers = [f"h{i:02d}" for i in range(14)]
    for name in helpers:
        files[f"bits/{name}.py"] = f"""\
            from .use_{name} import use


            def {name}(loader):
                for batch in loader:
                    use(batch)
            """
        files[f"bits/use_{name}.py"] = """\
            def use(batch):
                return batch
            """
    files["bits/avg.py"] = """\
        import torch


        class AvgTensor:
            def __init__(self):
                self.sum = None
                self.count = None

            def update(self, val, n=1):
                if self.sum is None:
                    self.sum = torch.zeros_like(val)
                    self.count = torch.tensor(0, dtype=torch.long, device=val.device)
                self.sum += val * n
                self.count += n

            def compute(self):
                return self.sum / self.count
        """
    files["bits/__init__.py"] = "".join(
        f"from .{name} import {name}\n" for name in helpers) + "from .avg import AvgTensor\n"
    files["engine.py"] = """\
        import torch_xla


        def fit(model, loader, optimizer):
            for x, y in loader:
                model(x).sum().backward()
                optimizer.step()
                torch_xla.sync()
        """
    firsts = "\n".join(f"            {name}(loader)" for name in helpers)
    files["train.py"] = f"""\
        import torch
        import torch_xla
        from torch.utils.data import DataLoader
        from bits import {", ".join(helpers)}, AvgTensor
        from engine import fit


        def main(model, ds, optimizer):
            loader = DataLoader(ds, batch_size=32)
{firsts}
            fit(model, loader, optimizer)


        def evaluate(model, ds):
            device = torch_xla.device()
            meter = AvgTensor()
            for step, (x, y) in enumerate(DataLoader(ds, batch_size=32, drop_last=True)):
                loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
                torch_xla.sync()
                meter.update(loss, x.size(0))
                if step % 10 == 0:
                    print(meter.compute().item())
        """
    top = write(tmp_path / "meter", files)
    line = next(i for i, text in enumerate((top / "train.py").read_text().splitlines(), 1)
                if ".item()" in text)
    assert (line, "XLA201") in lint(top / "train.py")


def test_a_neighbour_search_comes_after_the_checked_files_own_step_analysis(
        tmp_path: Path) -> None:
    """The modules around a checked file, searched for where its loaders go (XLA102),
    are built only after the file's own step region: the modules its own names and calls
    resolve into get the per-file module budget first."""
    from flake8_xla.context import ModuleContext
    from flake8_xla.engine import stub_builtins

    top = write(tmp_path / "order", {
        "pyproject.toml": "",
        "engine.py": """\
            def fit(model, loader):
                for x in loader:
                    model(x)
            """,
        "train.py": """\
            import torch_xla
            from torch.utils.data import DataLoader
            from engine import fit


            def main(model, ds):
                fit(model, DataLoader(ds, batch_size=32))
                for x in DataLoader(ds, batch_size=32, drop_last=True):
                    model(x.to(torch_xla.device()))
                    torch_xla.sync()
            """,
    })
    path = top / "train.py"
    text = path.read_text(encoding="utf-8")
    ctx = ModuleContext(ast.parse(text), text, str(path), Options(version=(2, 9)))
    an = ctx.analyzer
    with stub_builtins():
        assert an.steps._region is None
        neighbours = an.link.iter_neighbour_analyzers(hops=2)
        first = next(neighbours)
        assert an.steps._region is not None
        assert first.module is not an.module


def test_a_loader_factorys_non_xla_branch_return_does_not_reach_the_xla_path(
        tmp_path: Path) -> None:
    """A helper module's loader factory returns a sharded loader in its XLA branch and a
    plain one in the other; a helper that returns both of its loaders as a tuple hands the
    XLA training loop (in a third module) the sharded one only: no XLA504. Without the
    sampler in the XLA branch, the plain loader is reported."""
    files = {
        "setup.py": "",
        "src/__init__.py": "",
        "src/config.py": "USE_TPU = False\n",
        "src/dataset.py": """\
            import torch
            from torch.utils.data import DataLoader
            from . import config
            if config.USE_TPU:
                import torch_xla.runtime as xr


            def train_loader_for(ds):
                if config.USE_TPU:
                    sampler = torch.utils.data.distributed.DistributedSampler(
                        ds, num_replicas=xr.world_size(), rank=xr.global_ordinal())
                    return DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True)
                else:
                    return DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)


            def get_loaders(ds):
                return train_loader_for(ds), train_loader_for(ds)
            """,
        "src/engine.py": """\
            def train_one_epoch(model, optimizer, loader, device, xm):
                for x, y in loader:
                    loss = model(x.to(device), y.to(device))
                    loss.backward()
                    xm.optimizer_step(optimizer)
            """,
        "src/train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            import torch_xla.distributed.xla_multiprocessing as xmp
            from .dataset import get_loaders
            from .engine import train_one_epoch


            def run(rank, ds):
                device = torch_xla.device()
                model = torch.nn.Linear(2, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                loader, _ = get_loaders(ds)
                for epoch in range(3):
                    train_one_epoch(model, opt, pl.MpDeviceLoader(loader, device), device, xm)


            if __name__ == "__main__":
                xmp.spawn(run, args=(None,))
            """,
    }
    top = write(tmp_path / "sharded", files)
    assert not [f for f in lint(top / "src" / "train.py") if f[1] == "XLA504"]
    assert not [f for f in lint(top / "src" / "engine.py") if f[1] == "XLA504"]
    files["src/dataset.py"] = files["src/dataset.py"].replace(
        "sampler=sampler, drop_last=True", "drop_last=True")
    top = write(tmp_path / "plain", files)
    found = lint(top / "src" / "train.py") + lint(top / "src" / "engine.py") + \
        lint(top / "src" / "dataset.py")
    assert [f for f in found if f[1] == "XLA504"]


def test_a_save_helpers_star_args_take_what_other_modules_pass(tmp_path: Path) -> None:
    # ``save_on_master(*args, **kwargs)`` in a helper module that never names torch_xla:
    # its torch.save writes what the training script passes, state dicts on the device,
    # and the message names that call; a CPU copy passed by another script is fine.
    top = write(tmp_path / "dino", {
        "pyproject.toml": "",
        "utils.py": """\
            import torch


            def is_main_process():
                return True


            def save_on_master(*args, **kwargs):
                if is_main_process():
                    torch.save(*args, **kwargs)


            def save_copy(*args):
                torch.save(*args)


            def save_kw(**kwargs):
                torch.save(**kwargs)
            """,
        "train.py": """\
            import torch
            import torch_xla

            import utils


            def main(model, optimizer, epochs):
                device = torch_xla.device()
                model = model.to(device)
                for epoch in range(epochs):
                    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
                    cpu = {k: v.cpu() for k, v in model.state_dict().items()}
                    utils.save_on_master(cpu, "cpu.pth")
                    utils.save_on_master(state, "checkpoint.pth")
                    utils.save_copy(cpu, "copy.pth")
                    utils.save_kw(obj=state, f="kw.pth")
            """,
    })
    assert lint(top / "utils.py") == [(10, "XLA503"), (18, "XLA503")]
    found = [m for m in messages(top / "utils.py") if m.startswith("XLA503")]
    # (the message names the call that passes the device tensors, not the CPU copy's)
    assert "what train.py:14 passes" in found[0], found
    assert "what train.py:16 passes" in found[1], found


def _wrap_project(root: Path, wrap_line: str, helper: str = "dist_utils") -> Path:
    return write(root, {
        "pyproject.toml": "",
        "dist_utils.py": """\
            from torch_xla.distributed.fsdp import XlaFullyShardedDataParallel as FSDP


            def apply_fsdp(model):
                model.backbone = FSDP(model.backbone)
                return model
            """,
        "engine.py": """\
            def train_one_epoch(model, loader, optimizer, device):
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = model(x.to(device)).sum()
                    loss.backward()
                    optimizer.step()
            """,
        "main.py": f"""\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            import torch_xla.distributed.xla_multiprocessing as xmp

            import {helper}
            from engine import train_one_epoch


            def _mp_fn(index, model, data):
                device = torch_xla.device()
                model = model.to(device)
                {wrap_line}
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                loader = pl.MpDeviceLoader(data, device)
                train_one_epoch(model, loader, optimizer, device)


            if __name__ == "__main__":
                xmp.spawn(_mp_fn, args=(None, None))
            """,
    })


def test_a_model_wrapped_by_fsdp_in_a_helper_of_the_program_is_not_an_unreduced_step(
        tmp_path: Path) -> None:
    """XLA502: the bare ``optimizer.step()`` of a loop module is not reported when the XLA
    program that runs it wraps the model with FSDP through a helper of another module;
    without the wrap it is."""
    wrapped = _wrap_project(tmp_path / "wrapped", "model = dist_utils.apply_fsdp(model)")
    assert [f for f in lint(wrapped / "engine.py") if f[1] == "XLA502"] == []
    # (the helper module is not imported by the program: no wrap within reach)
    plain = _wrap_project(tmp_path / "plain", "os.getpid()", helper="os")
    assert [f for f in lint(plain / "engine.py") if f[1] == "XLA502"] == [(6, "XLA502")]


def test_a_method_of_a_class_re_exported_by_another_module_runs_in_the_step(
        tmp_path: Path) -> None:
    """``main.py`` takes ``DataEncoder`` through ``data.py``'s re-export of ``encoder.py``
    and hands it to the evaluation loop of ``train.py``, which never imports either: the
    encoder's ``decode`` runs in that loop, so its data-dependent op is reported there."""
    top = write(tmp_path / "det", {
        "pyproject.toml": "",
        "encoder.py": """\
            import torch


            class DataEncoder:
                def __init__(self, threshold):
                    self.threshold = threshold

                def decode(self, scores):
                    keep = torch.nonzero(scores > self.threshold)
                    return keep
            """,
        "data.py": """\
            from encoder import DataEncoder

            __all__ = ["DataEncoder"]
            """,
        "train.py": """\
            import torch


            def validate(model, loader, encoder, device):
                found = []
                with torch.no_grad():
                    for x in loader:
                        scores = model(x.to(device))
                        found.append(encoder.decode(scores))
                return found
            """,
        "main.py": """\
            import torch
            import torch_xla

            from data import DataEncoder
            from train import validate


            def main(loader):
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                return validate(model, loader, DataEncoder(0.5), device)
            """,
    })
    assert [f for f in lint(top / "encoder.py") if f[1] == "XLA104"] == [(9, "XLA104")]


def test_shown_cuda_choice_imported_by_another_module(tmp_path: Path) -> None:
    """A guarded ``'cuda'`` choice that its module only prints is still a hazard when
    another module imports it and places the model with it; alone it is not."""
    config = """\
        import torch
        import torch_xla

        device = "cuda" if torch.cuda.is_available() else "cpu"
        print(f"Using device: {device}")
        """
    used = write(tmp_path / "used", {
        "pyproject.toml": "",
        "config.py": config,
        "train.py": """\
            import torch_xla
            from config import device

            def train(model, loader, optimizer):
                model.to(device)
                for x, y in loader:
                    model(x.to(torch_xla.device())).sum().backward()
                    optimizer.step()
                    torch_xla.sync()
            """,
    })
    alone = write(tmp_path / "alone", {"pyproject.toml": "", "config.py": config})
    assert lint(used / "config.py") == [(4, "XLA501")]
    assert lint(alone / "config.py") == []


def test_config_class_cuda_choice_read_by_another_module(tmp_path: Path) -> None:
    """A guarded ``'cuda'`` choice in a config class that its own module never reads is a
    hazard when another module of the project places tensors with ``CFG.device`` (on an
    XLA host it is the CPU); a config class that nobody reads is not reported."""
    config = """\
        import torch


        class CFG:
            batch_size = 32
            device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        """
    used = write(tmp_path / "used", {
        "pyproject.toml": "",
        "config.py": config,
        "infer.py": """\
            import torch

            from config import CFG

            def predict(model, loader):
                model.to(CFG.device)
                with torch.no_grad():
                    return [model(x.to(CFG.device)).softmax(1).cpu() for x in loader]
            """,
        "train.py": """\
            import torch_xla

            from config import CFG
            from infer import predict

            def main(model, loader, test_loader):
                model.to(torch_xla.device())
                for x, y in loader:
                    model(x.to(torch_xla.device())).sum().backward()
                    torch_xla.sync()
                return predict(model, test_loader), CFG.batch_size
            """,
    })
    alone = write(tmp_path / "alone", {
        "pyproject.toml": "",
        "config.py": config,
        "train.py": """\
            import torch_xla

            from config import CFG

            def main(model, loader):
                model.to(torch_xla.device())
                for x, y in loader:
                    model(x.to(torch_xla.device())).sum().backward()
                    torch_xla.sync()
                return CFG.batch_size
            """,
    })
    assert lint(used / "config.py") == [(6, "XLA501")]
    assert lint(alone / "config.py") == []


def test_an_evaluation_step_another_module_calls_is_not_a_framework_step(
        tmp_path: Path) -> None:
    """``val_step`` beside a ``train_step`` is an evaluation step that a trainer runs per
    batch only when no module of the project calls it (here ``main.py`` calls it once,
    after training)."""
    model = """\
        import torch_xla
        import torch_xla.core.xla_model as xm


        class Model:
            def __init__(self, net, optimizer):
                self.device = torch_xla.device()
                self.net = net.to(self.device)
                self.optimizer = optimizer

            def train_step(self, batch):
                self.net(batch.to(self.device)).sum().backward()
                xm.optimizer_step(self.optimizer)

            def val_step(self, batch):
                return self.net(batch.to(self.device)).mean().item()
        """
    called = write(tmp_path / "called", {
        "pyproject.toml": "",
        "model.py": model,
        "main.py": """\
            from model import Model

            def main(net, optimizer, holdout):
                print(Model(net, optimizer).val_step(holdout))
            """,
    })
    alone = write(tmp_path / "alone", {"pyproject.toml": "", "model.py": model})
    assert lint(called / "model.py") == []
    assert lint(alone / "model.py") == [(16, "XLA201")]


def test_the_fallback_of_a_failed_launch_is_off_the_xla_path(tmp_path: Path) -> None:
    """``try: xmp.spawn(...)`` ``except Exception: run_cpu_gpu()``: the handler runs only
    where the TPU launch failed, so the CPU/GPU trainer it calls saves no XLA tensors,
    even through an optimizer factory of another module that the XLA replicas call too."""
    root = write(tmp_path, {
        "pyproject.toml": "",
        "optim.py": """\
            import torch


            def build_optimizer(model):
                return torch.optim.AdamW(model.parameters(), lr=1e-3)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.xla_multiprocessing as xmp
            from optim import build_optimizer


            def _mp_fn(rank, path):
                model = torch.nn.Linear(4, 2).to(torch_xla.device())
                optimizer = build_optimizer(model)
                torch.save(optimizer.state_dict(), path)


            def run_cpu_gpu(path):
                device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
                model = torch.nn.Linear(4, 2).to(device)
                optimizer = build_optimizer(model)
                torch.save(optimizer.state_dict(), path)


            if __name__ == "__main__":
                try:
                    xmp.spawn(_mp_fn, args=("ckpt.pt",))
                except Exception:
                    run_cpu_gpu("ckpt.pt")
            """,
    })
    assert lint(root / "train.py") == [(10, "XLA503")]


def test_a_long_lived_process_sees_an_edited_file(tmp_path: Path) -> None:
    """An editor's language server lints in one process: once the checked file changes on
    disk, its index is rebuilt, never answered from what was read before the edit (here
    the helper's host read counts only once the edited script runs it in its loop)."""
    root = write(tmp_path, {
        "pyproject.toml": "",
        "utils.py": """\
            def log_loss(step, loss):
                print(step, loss.item())
            """,
        "train.py": """\
            import torch_xla
            from utils import log_loss


            def train(model, loader, optimizer):
                for step, x in enumerate(loader):
                    loss = model(x.to(torch_xla.device())).sum()
                    loss.backward()
                    optimizer.step()
                    torch_xla.sync()
            """,
    })
    assert lint(root / "utils.py") == []
    train = root / "train.py"
    train.write_text(train.read_text(encoding="utf-8").replace(
        "torch_xla.sync()", "torch_xla.sync()\n        log_loss(step, loss)"), encoding="utf-8")
    os.utime(train, ns=(time.time_ns(), time.time_ns() + 10**9))
    lint(train)  # (the edited file is checked first, as an editor does on save)
    assert lint(root / "utils.py") == [(2, "XLA201")]


def test_fix_reports_what_is_left_in_another_module(tmp_path: Path) -> None:
    """``--fix --unsafe-fixes`` rewrites two modules of a project, then reports what no
    fix removes: the host read in a helper that the rewritten training loop still calls.
    It is reported, and the exit status is 1, as a fresh run says (the files the fixes
    changed are read again, never taken from the records of the run before the fixes)."""
    write(tmp_path, {
        "pyproject.toml": '[project]\nname = "toy"\n',
        "utils.py": """\
            import torch


            def log_metrics(step, loss, acc):
                loss_val = loss.item()
                print(f'step {step} loss {loss_val:.4f} acc {acc}')
                return loss_val


            def accuracy(logits, labels):
                return (logits.argmax(-1) == labels).float().mean()
            """,
        "train.py": """\
            import torch
            import torch.nn as nn
            from torch.utils.data import DataLoader, TensorDataset

            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl

            from utils import accuracy, log_metrics


            def build_loader():
                ds = TensorDataset(torch.randn(1000, 32), torch.randint(0, 10, (1000,)))
                return DataLoader(ds, batch_size=64, shuffle=True)


            def main():
                device = xm.xla_device()
                model = nn.Linear(32, 10).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                loader = pl.MpDeviceLoader(build_loader(), device)
                for epoch in range(3):
                    for step, (x, y) in enumerate(loader):
                        opt.zero_grad()
                        logits = model(x)
                        loss = nn.functional.cross_entropy(logits, y)
                        loss.backward()
                        xm.optimizer_step(opt)
                        print('loss', loss.item())
                        log_metrics(step, loss, accuracy(logits, y))
                torch.save(model.state_dict(), 'model.pt')
            """,
    })
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLAKE8_XLA")}
    fixed = subprocess.run([sys.executable, "-m", "flake8_xla", "--fix", "--unsafe-fixes", "."],
                           check=False, cwd=tmp_path, capture_output=True, text=True, env=env,
                           timeout=300)
    fresh = subprocess.run([sys.executable, "-m", "flake8_xla", "."], check=False, cwd=tmp_path,
                           capture_output=True, text=True, env=env, timeout=300)
    assert "./utils.py:" in fresh.stdout and fresh.returncode == 1, fresh.stdout
    assert fixed.stdout == fresh.stdout and fixed.returncode == 1, (fixed.stdout, fixed.stderr)


def test_a_base_class_loop_runs_the_hooks_its_xla_subclass_defines(tmp_path: Path) -> None:
    """``BaseTrainer.train`` loops over ``self.loader`` and calls ``self.train_step``, a
    stub that ``XLATrainer`` (another module) defines: the loop is a training step loop,
    and the loss that hook returns is a lazy tensor read back in the base class. A
    ``CUDATrainer`` that the factory builds only in its ``cuda`` branch runs nowhere on
    the XLA path (its CUDA AMP is not reported). The import of ``runtime.trainer...``
    resolves from the script's folder, above the ``runtime`` namespace folder."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "app/runtime/trainer/__init__.py": "",
        "app/runtime/trainer/base.py": """\
            from abc import ABC, abstractmethod

            import torch


            class BaseTrainer(ABC):
                def __init__(self, model, loader, device):
                    self.model = model.to(device)
                    self.loader = loader
                    self.device = device
                    self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

                def train(self, epochs):
                    for epoch in range(epochs):
                        losses = []
                        for x, y in self.loader:
                            loss = self.train_step(x.to(self.device), y.to(self.device))
                            losses.append(loss.detach().cpu().numpy())
                        print(sum(losses) / len(losses))

                @abstractmethod
                def train_step(self, x, y):
                    \"\"\"One step; returns the loss.\"\"\"
            """,
        "app/runtime/trainer/xla_trainer.py": """\
            import torch.nn.functional as F
            import torch_xla.core.xla_model as xm

            from runtime.trainer.base import BaseTrainer


            class XLATrainer(BaseTrainer):
                def train_step(self, x, y):
                    self.opt.zero_grad()
                    loss = F.cross_entropy(self.model(x), y)
                    loss.backward()
                    xm.optimizer_step(self.opt)
                    return loss
            """,
        "app/runtime/trainer/cuda_trainer.py": """\
            import torch
            import torch.nn.functional as F

            from runtime.trainer.base import BaseTrainer


            class CUDATrainer(BaseTrainer):
                def train_step(self, x, y):
                    self.opt.zero_grad()
                    with torch.cuda.amp.autocast():
                        loss = F.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.opt.step()
                    return loss
            """,
        "app/runtime/trainer/factory.py": """\
            from runtime.trainer.cuda_trainer import CUDATrainer
            from runtime.trainer.xla_trainer import XLATrainer


            def get_trainer(flags, model, loader, device):
                if flags.device == "xla":
                    return XLATrainer(model, loader, device)
                elif flags.device == "cuda":
                    return CUDATrainer(model, loader, device)
                raise ValueError(flags.device)
            """,
        "app/main.py": """\
            import argparse

            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from runtime.trainer.factory import get_trainer


            def main():
                flags = argparse.ArgumentParser().parse_args()
                device = torch_xla.device()
                data = torch.utils.data.TensorDataset(torch.randn(64, 4),
                                                      torch.randint(0, 2, (64,)))
                loader = pl.MpDeviceLoader(
                    torch.utils.data.DataLoader(data, batch_size=8, drop_last=True), device)
                get_trainer(flags, torch.nn.Linear(4, 2), loader, device).train(3)


            main()
            """,
    })
    trainer = top / "app/runtime/trainer"
    assert lint(trainer / "base.py") == [(18, "XLA201")]
    assert lint(trainer / "cuda_trainer.py") == []


def test_a_models_forward_takes_what_another_modules_step_passes(tmp_path: Path) -> None:
    """``model(ids, labels)`` in ``train.py``'s step runs ``TokenClassifier.forward`` of
    ``model.py`` with batches of an XLA loader: a mask built from ``labels`` there selects
    by the values of a lazy tensor."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "model.py": """\
            import torch.nn as nn
            import torch.nn.functional as F


            class TokenClassifier(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.emb = nn.Embedding(1000, 32)
                    self.head = nn.Linear(32, 5)

                def forward(self, input_ids, labels):
                    logits = self.head(self.emb(input_ids))
                    active = labels != -100
                    active_logits = logits[active]
                    active_labels = labels[active]
                    return F.cross_entropy(active_logits, active_labels)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl

            from model import TokenClassifier


            def main(dataset):
                device = torch_xla.device()
                loader = torch.utils.data.DataLoader(dataset, batch_size=64, drop_last=True)
                model = TokenClassifier().to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for ids, labels in pl.MpDeviceLoader(loader, device):
                    opt.zero_grad()
                    loss = model(ids, labels)
                    loss.backward()
                    xm.optimizer_step(opt)
            """,
    })
    assert lint(top / "model.py") == [(14, "XLA104"), (15, "XLA104")]


def test_a_loss_forward_gets_the_host_labels_another_modules_step_passes(tmp_path: Path
                                                                        ) -> None:
    """``loss_fn(features, targets)`` in ``train.py``'s step, whose ``targets`` come from a
    plain DataLoader and are never moved: ``MatchLoss.forward`` of ``losses.py`` reads
    CPU labels (``labels.cpu().numpy()``), no lazy tensor, and its ``mask`` that no call
    passes keeps its ``None`` default. ``MovedLoss``, called with labels moved to the
    device, reads them back every step."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "losses.py": """\
            import torch
            from torch import nn


            class MatchLoss(nn.Module):
                def forward(self, features, labels=None, mask=None):
                    batch = features.shape[0]
                    if labels is not None:
                        labels = labels.cpu().numpy()
                        mask = torch.zeros(batch, batch)
                        for i in range(len(labels)):
                            mask[i, i] = float(labels[i].sum())
                    elif mask is None:
                        mask = torch.eye(batch)
                    else:
                        mask = mask.float().to("cpu")
                    return (features.sum(-1) * mask.to(features.device).sum(-1)).mean()


            class MovedLoss(nn.Module):
                def forward(self, features, labels):
                    counts = labels.sum(0).cpu()
                    return features.pow(2).mean() * float(len(counts))
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm

            from losses import MatchLoss, MovedLoss


            def main(model, dataset):
                device = torch_xla.device()
                loader = torch.utils.data.DataLoader(dataset, batch_size=64, drop_last=True)
                model = model.to(device)
                match_loss = MatchLoss().to(device)
                moved_loss = MovedLoss().to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for images, targets in loader:
                    targets = torch.stack(targets).transpose(0, 1)
                    features = model(images.to(device))
                    loss = match_loss(features, targets) + moved_loss(features, targets.to(device))
                    opt.zero_grad()
                    loss.backward()
                    xm.optimizer_step(opt)
                    torch_xla.sync()
            """,
    })
    assert lint(top / "losses.py") == [(22, "XLA201")]


def test_a_forward_takes_what_callers_of_a_factory_of_its_class_pass(tmp_path: Path) -> None:
    """``model = build_model(cfg)`` in ``train.py`` (``build_model`` of ``model.py`` returns
    a ``TokenClassifier``): the step's ``model(ids, labels)`` runs its forward with the
    loader's lazy tensors, as for a script that names the class. A factory returning
    something else gives the forward nothing."""
    model_py = """\
        import torch.nn as nn
        import torch.nn.functional as F


        class TokenClassifier(nn.Module):
            def __init__(self, n=5):
                super().__init__()
                self.emb = nn.Embedding(1000, 32)
                self.head = nn.Linear(32, n)

            def forward(self, input_ids, labels):
                logits = self.head(self.emb(input_ids))
                active = labels != -100
                active_logits = logits[active]
                return F.cross_entropy(active_logits, labels[active])


        def build_model(cfg):
            return {ret}
        """
    train_py = """\
        import torch
        import torch_xla
        import torch_xla.core.xla_model as xm
        import torch_xla.distributed.parallel_loader as pl

        from model import build_model


        def main(dataset, cfg):
            device = torch_xla.device()
            loader = torch.utils.data.DataLoader(dataset, batch_size=64, drop_last=True)
            model = build_model(cfg).to(device)
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            for ids, labels in pl.MpDeviceLoader(loader, device):
                opt.zero_grad()
                loss = model(ids, labels)
                loss.backward()
                xm.optimizer_step(opt)
        """
    top = write(tmp_path / "r", {"pyproject.toml": "", "train.py": train_py,
                                 "model.py": model_py.format(ret="TokenClassifier(cfg.n)")})
    assert lint(top / "model.py") == [(14, "XLA104"), (15, "XLA104")]
    other = write(tmp_path / "o", {"pyproject.toml": "", "train.py": train_py,
                                   "model.py": model_py.format(ret="cfg.model")})
    assert lint(other / "model.py") == []


def test_a_process_group_set_up_by_a_helper_makes_the_script_multi_replica(tmp_path: Path
                                                                           ) -> None:
    """``rank, world = dist_utils.init_distributed()`` sets up the XLA process group that
    ``torchrun`` starts the script in, as ``dist.init_process_group("xla")`` written in
    the script would: the trainer it calls steps a bare optimizer in every replica
    (XLA502), and a DistributedSampler without ``num_replicas``/``rank`` takes them from
    that group (no XLA504)."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "dist_utils.py": """\
            import torch.distributed as dist
            import torch_xla.distributed.xla_backend  # noqa: F401


            def init_distributed():
                dist.init_process_group(backend="xla", init_method="xla://")
                return dist.get_rank(), dist.get_world_size()
            """,
        "trainer.py": """\
            import torch.nn.functional as F
            import torch_xla


            class Trainer:
                def __init__(self, model, optimizer, loader):
                    self.model, self.optimizer, self.loader = model, optimizer, loader

                def train_epoch(self):
                    for x, y in self.loader:
                        self.optimizer.zero_grad()
                        loss = F.cross_entropy(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                        torch_xla.sync()
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader, TensorDataset
            from torch.utils.data.distributed import DistributedSampler

            from dist_utils import init_distributed
            from trainer import Trainer


            def main():
                init_distributed()
                device = torch_xla.device()
                ds = TensorDataset(torch.randn(4096, 10), torch.randint(0, 2, (4096,)))
                sampler = DistributedSampler(ds, shuffle=True)
                loader = DataLoader(ds, batch_size=64, sampler=sampler, drop_last=True)
                model = torch.nn.Linear(10, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                t = Trainer(model, opt, pl.MpDeviceLoader(loader, device))
                for epoch in range(3):
                    sampler.set_epoch(epoch)
                    t.train_epoch()


            if __name__ == "__main__":
                main()
            """,
    })
    assert lint(top / "trainer.py") == [(14, "XLA502")]
    assert lint(top / "train.py") == []


def test_loaders_handed_over_in_a_dict_reach_the_loop_of_another_modules_method(
        tmp_path: Path) -> None:
    """``build_loaders()`` returns ``{"train": DataLoader(...), "val": ...}`` and
    ``train.py`` hands the dict to ``Engine.fit``, which wraps ``loaders["train"]`` in an
    MpDeviceLoader: the train loader's ragged last batch is reported where it is built."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "data.py": """\
            import torch
            from torch.utils.data import DataLoader, TensorDataset


            def build_loaders(bs):
                train_ds = TensorDataset(torch.randn(1000, 16), torch.randint(0, 4, (1000,)))
                return {"train": DataLoader(train_ds, batch_size=bs, shuffle=True)}
            """,
        "engine.py": """\
            import torch.nn.functional as F
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl


            class Engine:
                def __init__(self, model, optimizer):
                    self.device = torch_xla.device()
                    self.model = model.to(self.device)
                    self.optimizer = optimizer

                def fit(self, loaders, epochs):
                    train_loader = pl.MpDeviceLoader(loaders["train"], self.device)
                    for epoch in range(epochs):
                        for x, y in train_loader:
                            self.optimizer.zero_grad()
                            F.cross_entropy(self.model(x), y).backward()
                            xm.optimizer_step(self.optimizer)
            """,
        "train.py": """\
            import torch

            from data import build_loaders
            from engine import Engine


            def main():
                model = torch.nn.Linear(16, 4)
                engine = Engine(model, torch.optim.SGD(model.parameters(), lr=0.1))
                engine.fit(build_loaders(32), epochs=3)


            if __name__ == "__main__":
                main()
            """,
    })
    assert lint(top / "data.py") == [(7, "XLA102")]


def test_a_library_models_private_hook_is_a_step_unless_the_project_calls_it(tmp_path: Path
                                                                             ) -> None:
    """A private method of a transformers subclass that no module of the project calls runs
    in the library's forward, once per step (``_merge_features``); one that another module
    calls at set-up (``_copy_vectors(glove)`` before the model moves) is not a step, and one
    that the training loop calls is followed there, on the instance ``from_pretrained``
    builds of the subclass."""
    root = write(tmp_path, {
        ".git/HEAD": "ref: refs/heads/main\n",
        "model.py": """\
            import torch
            from transformers import LlavaForConditionalGeneration


            class XLALlava(LlavaForConditionalGeneration):
                def _merge_features(self, features, mask):
                    if torch.sum(mask) > 0:
                        features = features + 1
                    return features

                def _copy_vectors(self, vectors):
                    if vectors.abs().max() > 1.0:
                        vectors = vectors / vectors.abs().max()
                    return vectors

                def _aux_loss(self, logits):
                    if not torch.all(logits > 0):
                        logits = logits.clamp_min(1e-6)
                    return logits.mean()
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm

            from model import XLALlava


            def main(loader, glove):
                device = torch_xla.device()
                model = XLALlava.from_pretrained("llava")
                model._copy_vectors(glove)
                model = model.to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for batch in loader:
                    batch = {k: v.to(device) for k, v in batch.items()}
                    out = model(**batch)
                    loss = out.loss + model._aux_loss(out.logits)
                    loss.backward()
                    xm.optimizer_step(opt)
                    torch_xla.sync()
            """,
    })
    assert lint(root / "model.py") == [(7, "XLA103"), (17, "XLA103")]


def test_a_base_class_in_another_module_takes_what_super_init_passes(tmp_path: Path) -> None:
    """``super().__init__(model.to(device), optimizer)`` in ``xla_trainer.py``'s subclass
    fills the parameters of ``BaseTrainer.__init__`` in ``base.py``, so the ``save()`` the
    subclass inherits saves a module on the XLA device; a base class that only a CPU
    subclass calls stays silent."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "base.py": """\
            import torch


            class BaseTrainer:
                def __init__(self, model, optimizer):
                    self.model, self.optimizer = model, optimizer

                def save(self, path):
                    torch.save({"model": self.model.state_dict()}, path)
            """,
        "cpu_base.py": """\
            import torch


            class CpuBase:
                def __init__(self, model):
                    self.model = model

                def save(self, path):
                    torch.save(self.model.state_dict(), path)
            """,
        "xla_trainer.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from base import BaseTrainer
            from cpu_base import CpuBase


            class XLATrainer(BaseTrainer):
                def __init__(self, model, optimizer):
                    self.device = torch_xla.device()
                    super().__init__(model.to(self.device), optimizer)

                def train_epoch(self, loader):
                    for x, y in pl.MpDeviceLoader(loader, self.device):
                        self.optimizer.zero_grad()
                        torch.nn.functional.cross_entropy(self.model(x), y).backward()
                        self.optimizer.step()


            class Probe(CpuBase):
                def __init__(self, model):
                    super().__init__(model.cpu())
            """,
    })
    assert lint(top / "base.py") == [(9, "XLA503")]
    assert lint(top / "cpu_base.py") == []


def test_a_callback_takes_the_trainer_another_module_hands_it(tmp_path: Path) -> None:
    """``cb.on_epoch_end(self, epoch)`` in ``trainer.py`` hands the trainer (an instance of
    a project class) to the callback that ``train.py`` built: the callback's
    ``trainer.model`` is the module the trainer moved to the XLA device."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "callbacks.py": """\
            import torch


            class ModelCheckpoint:
                def __init__(self, path):
                    self.path = path

                def on_epoch_end(self, trainer, epoch):
                    torch.save(trainer.model.state_dict(), f"{self.path}/{epoch}.pt")
                    torch.save({"epoch": epoch, "name": trainer.name}, self.path)
            """,
        "trainer.py": """\
            import torch_xla.distributed.parallel_loader as pl


            class Trainer:
                def __init__(self, model, optimizer, device, callbacks=()):
                    self.model = model.to(device)
                    self.optimizer, self.device = optimizer, device
                    self.name = "run"
                    self.callbacks = list(callbacks)

                def fit(self, loader, epochs):
                    for epoch in range(epochs):
                        for x, y in pl.MpDeviceLoader(loader, self.device):
                            self.optimizer.zero_grad()
                            self.model(x).sum().backward()
                            self.optimizer.step()
                        for cb in self.callbacks:
                            cb.on_epoch_end(self, epoch)
            """,
        "train.py": """\
            import torch
            import torch_xla

            from callbacks import ModelCheckpoint
            from trainer import Trainer


            def main(loader):
                model = torch.nn.Linear(8, 2)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                trainer = Trainer(model, opt, torch_xla.device(),
                                  callbacks=[ModelCheckpoint("ckpt")])
                trainer.fit(loader, 3)
            """,
    })
    assert lint(top / "callbacks.py") == [(9, "XLA503")]


def test_calls_in_a_nested_function_nothing_refers_to_pass_nothing(tmp_path: Path) -> None:
    """A notebook's leftover nested helper that nobody calls (``run_tuning`` below wraps
    the loader in a ParallelLoader) never runs: the loader it would hand on reaches only
    the CPU evaluation, and its ragged last batch is not reported."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "nb.py": """\
            import torch
            import torch_xla.distributed.parallel_loader as pl


            def check_on_cpu(dataset, model, device=torch.device("cpu")):
                loader = torch.utils.data.DataLoader(dataset, batch_size=16)

                def run_inference(model, device, data):
                    out = []
                    for x in data:
                        out.append(model(x.to(device)).argmax(-1))
                    return out

                def run_tuning(xla_device):
                    para = pl.ParallelLoader(loader, [xla_device])
                    run_inference(model, xla_device, para.per_device_loader(xla_device))

                return run_inference(model, device, loader)


            def check_on_xla(dataset, model, xla_device):
                loader = torch.utils.data.DataLoader(dataset, batch_size=16)

                def run_tuning():
                    para = pl.ParallelLoader(loader, [xla_device])
                    for x in para.per_device_loader(xla_device):
                        model(x).sum().backward()

                run_tuning()
            """,
    })
    assert lint(top / "nb.py") == [(22, "XLA102")]


def test_an_attribute_stored_on_an_instance_in_another_module_reaches_its_reader(
        tmp_path: Path) -> None:
    """``state.loss = loss.detach()`` in ``train.py``'s step stores a lazy tensor into a
    ``TrainState`` of ``state.py``; ``logger.py`` formats ``state.loss`` of the state it is
    handed, once per step. ``state.epoch`` only ever holds host ints."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "state.py": """\
            from dataclasses import dataclass
            from typing import Any


            @dataclass
            class TrainState:
                epoch: int = 0
                loss: Any = None
            """,
        "logger.py": """\
            import logging

            log = logging.getLogger("train")


            def log_state(state):
                log.info("epoch %d loss %.4f", state.epoch, state.loss)


            def log_epoch(state):
                log.info("epoch %d", state.epoch)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from logger import log_epoch, log_state
            from state import TrainState


            def main(model, loader, opt):
                device = torch_xla.device()
                model.to(device)
                state = TrainState()
                for x, y in pl.MpDeviceLoader(loader, device):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                    loss.backward()
                    opt.step()
                    state.loss = loss.detach()
                    state.epoch = 1
                    log_state(state)
                    log_epoch(state)
            """,
    })
    assert lint(top / "logger.py") == [(7, "XLA201")]


def test_a_method_inherited_through_a_subclass_of_another_module_is_a_step(
        tmp_path: Path) -> None:
    """``trainer.log(loss)`` in ``train.py``'s step runs ``BaseTrainer.log`` of
    ``base_trainer.py``, which ``train.py`` never imports: its ``XlaTrainer`` (of
    ``xla_trainer.py``) inherits it. ``loss.item()`` there reads the step's lazy loss; the
    method no step calls stays silent."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "base_trainer.py": """\
            import logging

            import torch.nn.functional as F

            logger = logging.getLogger(__name__)


            class BaseTrainer:
                def __init__(self, model, optimizer):
                    self.model, self.optimizer = model, optimizer

                def train_step(self, x, y):
                    self.optimizer.zero_grad()
                    loss = F.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()
                    return loss

                def log(self, loss):
                    logger.info("loss %.4f", loss.item())

                def summary(self, loss):
                    logger.info("final loss %.4f", loss.item())
            """,
        "xla_trainer.py": """\
            import torch_xla

            from base_trainer import BaseTrainer


            class XlaTrainer(BaseTrainer):
                def __init__(self, model, optimizer_cls):
                    self.device = torch_xla.device()
                    model = model.to(self.device)
                    super().__init__(model, optimizer_cls(model.parameters(), lr=0.1))
            """,
        "train.py": """\
            import torch
            import torch_xla.distributed.parallel_loader as pl

            from xla_trainer import XlaTrainer


            def main(loader):
                trainer = XlaTrainer(torch.nn.Linear(8, 2), torch.optim.SGD)
                for x, y in pl.MpDeviceLoader(loader, trainer.device):
                    loss = trainer.train_step(x, y)
                    trainer.log(loss)
            """,
    })
    assert lint(top / "base_trainer.py") == [(20, "XLA201")]


def test_a_callback_handed_to_another_modules_helper_runs_in_the_step(tmp_path: Path
                                                                      ) -> None:
    """``every(step, 100, report, step, loss)`` calls ``schedule.py``'s helper, which runs
    ``fn(*args)``: ``report`` of ``train.py`` formats the step's lazy loss there, once
    every 100 steps; ``timing``, handed host seconds, stays silent."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "schedule.py": """\
            def every(step, interval, fn, *args):
                if step % interval == 0:
                    fn(*args)
            """,
        "train.py": """\
            import time

            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from schedule import every


            def train(model, loader, opt):
                device = torch_xla.device()
                model.to(device)

                def report(step, loss):
                    print(f"step {step}: loss={loss:.4f}")

                def timing(step, seconds):
                    print(f"step {step}: {seconds:.2f}s")

                start = time.perf_counter()
                for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                    loss.backward()
                    opt.step()
                    every(step, 100, report, step, loss)
                    every(step, 100, timing, step, time.perf_counter() - start)
            """,
    })
    assert lint(top / "train.py") == [(15, "XLA201")]


def test_a_base_class_loop_over_an_overridden_loader_method(tmp_path: Path) -> None:
    """``for batch in self.train_dataloader():`` in another module's base trainer, whose
    ``train_dataloader`` returns the plain loader: the project's subclass overrides it to
    wrap the loader in ``MpDeviceLoader``, so ``self`` may be either, and the loop may
    have its barrier (no XLA301). The subclass's per-step ``loss.item()`` still is a host
    sync in the base class's step (XLA201)."""
    top = write(tmp_path / "o", {
        "pyproject.toml": "",
        "base_trainer.py": """\
            class BaseTrainer:
                def __init__(self, model, loader):
                    self.model = model
                    self.loader = loader
                    self.losses = []

                def training_step(self, batch):
                    raise NotImplementedError

                def optimizer_step(self):
                    raise NotImplementedError

                def train_dataloader(self):
                    return self.loader

                def fit(self, epochs):
                    for epoch in range(epochs):
                        for batch in self.train_dataloader():
                            self.training_step(batch)
                            self.optimizer_step()
            """,
        "tpu_trainer.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl

            from base_trainer import BaseTrainer


            class TPUTrainer(BaseTrainer):
                def __init__(self, model, loader):
                    self.device = torch_xla.device()
                    super().__init__(model.to(self.device), loader)
                    self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

                def train_dataloader(self):
                    return pl.MpDeviceLoader(self.loader, self.device)

                def training_step(self, batch):
                    x, y = batch
                    self.opt.zero_grad()
                    loss = torch.nn.functional.cross_entropy(self.model(x), y)
                    loss.backward()
                    self.losses.append(loss.item())

                def optimizer_step(self):
                    xm.optimizer_step(self.opt)
            """,
        "train.py": """\
            import torch
            from torch.utils.data import DataLoader, TensorDataset

            from tpu_trainer import TPUTrainer


            def main():
                data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
                loader = DataLoader(data, batch_size=8, drop_last=True)
                TPUTrainer(torch.nn.Linear(8, 2), loader).fit(epochs=2)


            if __name__ == "__main__":
                main()
            """,
    })
    assert lint(top / "base_trainer.py") == []
    assert lint(top / "tpu_trainer.py") == [(23, "XLA201")]


def test_a_named_lambda_handed_to_another_modules_step_loop(tmp_path: Path) -> None:
    """``report = lambda step, loss: print(f"{loss:.5f}")`` handed to ``engine.py``'s
    ``run_epoch``, which calls it every step: its f-string reads the lazy loss in that
    step loop, reported on the lambda's line; a lambda handed host numbers stays silent."""
    top = write(tmp_path / "l", {
        "pyproject.toml": "",
        "engine.py": """\
            import torch_xla.core.xla_model as xm


            def run_epoch(model, opt, loader, report_fn, timer_fn):
                for step, (x, y) in enumerate(loader):
                    opt.zero_grad()
                    loss = ((model(x) - y) ** 2).mean()
                    loss.backward()
                    xm.optimizer_step(opt)
                    report_fn(step, loss)
                    timer_fn(step, 0.5)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from engine import run_epoch


            def main(loader):
                device = torch_xla.device()
                model = torch.nn.Linear(4, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                report = lambda step, loss: print(f"step {step} loss {loss:.5f}")
                timer = lambda step, seconds: print(f"step {step} took {seconds:.2f}s")
                for epoch in range(3):
                    run_epoch(model, opt, pl.MpDeviceLoader(loader, device), report, timer)
            """,
    })
    assert lint(top / "train.py") == [(12, "XLA201")]


def test_a_flag_every_caller_sets_before_the_call(tmp_path: Path) -> None:
    """``args.distributed = False`` in the TPU port's ``train()``, then
    ``evaluate(model, loader, args)`` of ``evaluate.py``: the NCCL branch there
    (``if args.distributed: ... .cuda()``) is off the XLA path. ``gather()``, whose caller
    sets the flag only under a branch, keeps its finding."""
    top = write(tmp_path / "f", {
        "pyproject.toml": "",
        "evaluate.py": """\
            import torch


            def evaluate(model, loader, args):
                total = 0
                for x, _ in loader:
                    total += model(x).shape[0]
                if args.distributed:
                    count = torch.tensor(total).cuda()
                    torch.distributed.all_reduce(count)
                return total


            def gather(values, args):
                if args.distributed:
                    return torch.tensor(values).cuda()
                return values
            """,
        "main.py": """\
            import os

            import torch
            import torch_xla
            import torch_xla.distributed.xla_multiprocessing as xmp

            from evaluate import evaluate, gather


            def train(index, args):
                args.distributed = False
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                evaluate(model, [], args)


            def report(args):
                if "WORLD_SIZE" in os.environ:
                    args.distributed = int(os.environ["WORLD_SIZE"]) > 1
                return gather([1.0], args)


            if __name__ == "__main__":
                xmp.spawn(train, args=(None,))
            """,
    })
    assert lint(top / "evaluate.py") == [(16, "XLA501")]


def test_a_flag_set_on_a_namespace_the_caller_builds(tmp_path: Path) -> None:
    """``args = get_args()`` in ``main()``, then ``args.verbose = False`` before each of two
    ``evaluate(..., args)`` calls (set again, to the same value, before the second): the
    per-step ``print(loss.item())`` under ``if args.verbose:`` in ``engine.py`` is dead on
    the XLA path; a read outside that branch is still reported."""
    top = write(tmp_path / "n", {
        "pyproject.toml": "",
        "engine.py": """\
            import torch


            def evaluate(model, loader, args):
                total = 0.0
                for x, y in loader:
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                    if args.verbose:
                        print(loss.item())
                    total += loss.item()
                print(f"{total:.3f}")
                return total
            """,
        "train.py": """\
            import argparse

            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from engine import evaluate


            def get_args():
                parser = argparse.ArgumentParser()
                parser.add_argument("--verbose", action="store_true")
                return parser.parse_args()


            def main(loader):
                args = get_args()
                args.verbose = False
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                evaluate(model, pl.MpDeviceLoader(loader, device), args)
                args.verbose = False
                evaluate(model, pl.MpDeviceLoader(loader, device), args)


            if __name__ == "__main__":
                main([])
            """,
    })
    assert lint(top / "engine.py") == [(10, "XLA201")]


def test_a_table_of_another_modules_functions_called_in_the_step(tmp_path: Path
                                                                  ) -> None:
    """``criterion = LOSSES[args.loss]`` of ``losses.py``'s ``LOSSES = {"focal":
    focal_loss, ...}``, called every step in ``train.py``: ``focal_loss``'s branch on a
    lazy tensor runs per step (XLA103, on its own line in ``losses.py``)."""
    top = write(tmp_path / "t", {
        "pyproject.toml": "",
        "losses.py": """\
            import torch.nn.functional as F


            def ce_loss(logits, y):
                return F.cross_entropy(logits, y)


            def focal_loss(logits, y):
                logp = F.log_softmax(logits, -1).gather(1, y[:, None]).squeeze(1)
                if (logp > -1e-6).all():
                    return logp.new_zeros(())
                return (-(1 - logp.exp()) ** 2 * logp).mean()


            LOSSES = {"ce": ce_loss, "focal": focal_loss}
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl

            from losses import LOSSES


            def main(loader, name):
                device = torch_xla.device()
                model = torch.nn.Linear(4, 2).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                criterion = LOSSES[name]
                for x, y in pl.MpDeviceLoader(loader, device):
                    loss = criterion(model(x), y)
                    loss.backward()
                    xm.optimizer_step(opt)
            """,
    })
    assert lint(top / "losses.py") == [(10, "XLA103")]


def test_a_flag_cleared_for_xla_where_another_module_parses_it(tmp_path: Path) -> None:
    """XLA401: config.py's parse_args() turns fp16 off when --tpu is given, and returns the
    namespace; GradScaler(enabled=args.fp16) in train.py and autocast(enabled=args.fp16) in
    engine.py (the namespace handed over) are off on XLA. Without the clearing they are
    reported."""
    files = {
        "pyproject.toml": "",
        "config.py": """\
            import argparse


            def parse_args():
                p = argparse.ArgumentParser()
                p.add_argument("--tpu", action="store_true")
                p.add_argument("--fp16", action="store_true")
                args = p.parse_args()
                if args.tpu:
                    args.fp16 = False
                return args
            """,
        "engine.py": """\
            import torch
            import torch_xla


            def train_one_epoch(model, loader, optimizer, scaler, args, device):
                for x, y in loader:
                    x, y = x.to(device), y.to(device)
                    with torch.cuda.amp.autocast(enabled=args.fp16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
                    torch_xla.sync()
            """,
        "train.py": """\
            import torch
            import torch_xla
            from torch.utils.data import DataLoader, TensorDataset

            from config import parse_args
            from engine import train_one_epoch


            def main():
                args = parse_args()
                device = torch_xla.device() if args.tpu else torch.device("cuda")
                model = torch.nn.Linear(16, 1).to(device)
                optimizer = torch.optim.Adam(model.parameters())
                scaler = torch.cuda.amp.GradScaler(enabled=args.fp16)
                ds = TensorDataset(torch.randn(2048, 16), torch.randn(2048, 1))
                loader = DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)
                for epoch in range(10):
                    train_one_epoch(model, loader, optimizer, scaler, args, device)


            if __name__ == "__main__":
                main()
            """,
    }
    top = write(tmp_path / "cleared", files)
    assert not [f for f in lint(top / "train.py") + lint(top / "engine.py")
                if f[1] == "XLA401"]
    files["config.py"] = files["config.py"].replace("args.fp16 = False", "print(args)")
    top = write(tmp_path / "kept", files)
    assert [f for f in lint(top / "train.py") if f[1] == "XLA401"] == [(14, "XLA401")]
    assert [f for f in lint(top / "engine.py") if f[1] == "XLA401"] == [(8, "XLA401")]


def test_a_base_class_method_run_by_a_subclass_modules_replica_function(tmp_path: Path
                                                                         ) -> None:
    """XLA503: base.py's train() sends XLA runs to ``_spawn_replicas`` (a subclass defines
    it) and runs ``_do_train`` itself only on the GPU path; classify.py's replica function
    runs ``ClassifyTrainer(cfg)._do_train()``, the base class's method, on the XLA path.
    Its torch.save of the XLA model is reported; without that replica function the
    method runs only off the XLA path, and it is not."""
    files = {
        "pyproject.toml": "",
        "base.py": """\
            import torch
            import torch_xla


            class BaseTrainer:
                def __init__(self, cfg):
                    self.cfg = cfg

                def train(self):
                    if self.cfg.device.startswith("xla"):
                        self._spawn_replicas()
                    else:
                        self._do_train()

                def _spawn_replicas(self):
                    raise NotImplementedError

                def _do_train(self):
                    device = torch_xla.device()
                    model = torch.nn.Linear(4, 2).to(device)
                    torch.save(model.state_dict(), "last.pt")
            """,
        "classify.py": """\
            import torch_xla

            from base import BaseTrainer


            def replica(index, cfg):
                ClassifyTrainer(cfg)._do_train()


            class ClassifyTrainer(BaseTrainer):
                def _spawn_replicas(self):
                    torch_xla.launch(replica, args=(self.cfg,))
            """,
    }
    top = write(tmp_path / "run", files)
    assert [f for f in lint(top / "base.py") if f[1] == "XLA503"] == [(21, "XLA503")]
    files["classify.py"] = files["classify.py"].replace(
        "ClassifyTrainer(cfg)._do_train()", "print(cfg)")
    top = write(tmp_path / "unused", files)
    assert not [f for f in lint(top / "base.py") if f[1] == "XLA503"]


def test_a_decorator_of_another_module_wraps_the_step(tmp_path: Path) -> None:
    """``@timed`` from ``utils.py`` on the train step of ``train.py``: each call of the
    step runs the wrapper, whose ``float(loss)`` reads the step's loss on the host; a
    decorator whose wrapper hands the function to ``xm.add_step_closure`` makes it a step
    closure, whose reads are not reported."""
    root = write(tmp_path / "proj", {
        "pyproject.toml": "",
        "utils.py": """\
            import functools
            import time

            import torch_xla.core.xla_model as xm


            def timed(fn):
                @functools.wraps(fn)
                def wrapper(*args, **kwargs):
                    t0 = time.perf_counter()
                    loss = fn(*args, **kwargs)
                    print(f"{time.perf_counter() - t0:.3f}s loss={float(loss):.4f}")
                    return loss
                return wrapper


            def after_step(fn):
                def schedule(*args):
                    xm.add_step_closure(fn, args=args)
                return schedule


            @after_step
            def report(step, loss):
                print(f"step {step}: {loss.item():.4f}")
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from utils import report, timed


            @timed
            def train_step(model, opt, x, y):
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                opt.step()
                return loss


            def train(model, opt, loader):
                device = torch_xla.device()
                for step, (x, y) in enumerate(pl.MpDeviceLoader(loader, device)):
                    report(step, train_step(model, opt, x, y))
            """,
    })
    assert lint(root / "utils.py") == [(12, "XLA201")]
    assert lint(root / "train.py") == []


def test_a_helper_no_module_calls_is_not_run(tmp_path: Path) -> None:
    """A GPU launcher helper (``torch.cuda.set_device``) in a helper module that the TPU
    script imports for other functions, and that no module of the project calls, never
    runs on XLA; a helper the script calls does."""
    root = write(tmp_path / "proj", {
        "pyproject.toml": "",
        "misc.py": """\
            import torch


            def init_distributed_mode(args):
                torch.cuda.set_device(args.local_rank)
                torch.distributed.init_process_group(backend="nccl")


            def to_gpu(x):
                return x.cuda()
            """,
        "train_tpu.py": """\
            import torch_xla

            import misc


            def main(batch):
                device = torch_xla.device()
                return misc.to_gpu(batch.to(device))
            """,
    })
    assert lint(root / "misc.py") == [(10, "XLA501")]


def test_a_star_import_of_a_project_module_keeps_a_library_name(tmp_path: Path) -> None:
    """``from utils import *`` where ``utils.py`` imports ``pad_sequence`` from torch:
    the free name is torch's ``pad_sequence``, so the collate function pads each batch
    to its longest sequence (XLA101)."""
    root = write(tmp_path / "proj", {
        "pyproject.toml": "",
        "utils.py": """\
            import torch
            from torch.nn.utils.rnn import pad_sequence


            def to_ids(text):
                return torch.tensor([ord(c) for c in text])
            """,
        "data.py": """\
            from torch.utils.data import DataLoader

            from utils import *


            def collate(batch):
                return pad_sequence([to_ids(t) for t in batch], batch_first=True)


            def make_loader(texts):
                return DataLoader(texts, batch_size=8, drop_last=True, collate_fn=collate)
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from data import make_loader


            def train(model, texts):
                device = torch_xla.device()
                for ids in pl.MpDeviceLoader(make_loader(texts), device):
                    model(ids).sum().backward()
            """,
    })
    assert lint(root / "data.py") == [(7, "XLA101")]


def test_an_amp_step_helper_of_another_module_under_the_replicas(tmp_path: Path) -> None:
    """XLA403 on the ``scaler.step(optimizer)`` of a helper module that the replica
    function's loop calls: the helper runs the backward pass and the step with no gradient
    all-reduce between them (a helper that reduces first, or whose caller runs the backward
    pass, is not reported)."""
    top = write(tmp_path / "a", {
        "pyproject.toml": "",
        "engine.py": """\
            import torch_xla.core.xla_model as xm


            def amp_step(scaler, optimizer, loss):
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()


            def reduced_amp_step(scaler, optimizer, loss):
                scaler.scale(loss).backward()
                xm.reduce_gradients(optimizer)
                scaler.step(optimizer)
                scaler.update()


            def step_only(scaler, optimizer):
                scaler.step(optimizer)
                scaler.update()
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl

            from engine import amp_step, reduced_amp_step, step_only


            def _mp_fn(index, model, loader, optimizer):
                device = torch_xla.device()
                scaler = torch.amp.GradScaler("xla")
                for (x,) in pl.MpDeviceLoader(loader, device):
                    with torch.autocast("xla", dtype=torch.float16):
                        loss = model(x).mean()
                    if index % 2:
                        amp_step(scaler, optimizer, loss)
                    elif index % 3:
                        reduced_amp_step(scaler, optimizer, loss)
                    else:
                        scaler.scale(loss).backward()
                        xm.reduce_gradients(optimizer)
                        step_only(scaler, optimizer)


            if __name__ == "__main__":
                torch_xla.launch(_mp_fn, args=(None, None, None))
            """,
    })
    assert [f for f in lint(top / "engine.py") if f[1] == "XLA403"] == [(6, "XLA403")]
    assert [f for f in lint(top / "train.py") if f[1] == "XLA403"] == []


def test_a_meter_of_another_module_that_every_caller_feeds_lazy_tensors(tmp_path: Path
                                                                       ) -> None:
    """A meter class of meters.py whose every ``update`` call passes a tensor on the XLA
    device holds a lazy sum: ``str(meter)`` in the step runs its ``__str__`` (reported at
    its f-string) and ``f"{meter.avg:.4f}"`` reads it (reported in the loop). A meter that
    another module of the XLA code feeds host floats keeps what it stores unknown, as
    before (its ``str()`` in the step is not reported)."""
    top = write(tmp_path / "m", {
        "pyproject.toml": "",
        "meters.py": """\
            class AverageMeter:
                def __init__(self, name):
                    self.name = name
                    self.sum = 0.0
                    self.count = 0

                def update(self, val, n=1):
                    self.sum += val * n
                    self.count += n

                @property
                def avg(self):
                    return self.sum / max(self.count, 1)

                def __str__(self):
                    return f"{self.name} {self.avg:.4f}"


            class HostMeter:
                def __init__(self):
                    self.sum = 0.0

                def add(self, val):
                    self.sum += val

                def __str__(self):
                    return f"{self.sum:.4f}"
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl

            from meters import AverageMeter, HostMeter


            def train(loader, log):
                device = torch_xla.device()
                model = torch.nn.Linear(4, 1).to(device)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                meter, host = AverageMeter("loss"), HostMeter()
                for x, y in pl.MpDeviceLoader(loader, device):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    xm.optimizer_step(optimizer)
                    meter.update(loss.detach(), x.size(0))
                    host.add(loss.detach())
                    log(str(meter))
                    log(f"{meter.avg:.4f}")
                    log(str(host))
            """,
        "eval.py": """\
            import torch_xla.core.xla_model as xm

            from meters import HostMeter


            def summarize(values):
                host = HostMeter()
                for v in values:
                    host.add(float(v))
                xm.master_print(str(host))
            """,
    })
    assert [f for f in lint(top / "meters.py") if f[1] == "XLA201"] == [(16, "XLA201")]
    assert [f for f in lint(top / "train.py") if f[1] == "XLA201"] == [(21, "XLA201")]


def test_the_modules_a_file_imports_have_their_own_analysis_allowance(tmp_path: Path
                                                                      ) -> None:
    """Large modules analyzed for questions about callers (an inference GUI, older
    training scripts that call the checked script) spend the session's allowance of
    source bytes; the small helper module that the checked file imports, where its step
    loop's loss function is, is still analyzed after that."""
    from flake8_xla.project.link import MAX_LINKED_BYTES, Session

    big_body = "\n".join(f"def unused_{i}(x):\n    return x + {i}\n" for i in range(1300))
    files = {
        "pyproject.toml": "",
        "losses.py": "import torch\n\n\ndef disc_loss(a, b):\n    return (a - b).mean()\n",
        "train.py": "import torch_xla\n\nfrom losses import disc_loss\n",
    }
    for i in range(8):
        files[f"gui_{i}.py"] = f"import train\n\n\n{big_body}\n"
    top = write(tmp_path / "b", files)
    ix = index_for(top / "train.py")
    session = Session(ix, "train.py", "auto")
    built = [session.analyzer(f"gui_{i}.py") for i in range(8)]
    assert built[0] is not None and None in built  # the shared allowance is spent
    assert session.linked_bytes + (top / "losses.py").stat().st_size > MAX_LINKED_BYTES or \
        session.analyzer("gui_7.py") is None
    assert session.analyzer("losses.py") is not None


def test_an_optimizer_inherited_from_a_base_class_of_another_module(tmp_path: Path) -> None:
    """XLA402: the XLA trainer of xla_trainer.py steps, through its GradScaler, the
    optimizer that its base class (trainer.py) builds with a static method called through
    the class (``BaseTrainer.get_optimizer(...)``); reported at the scaler's step, naming
    where the optimizer is built. A helper of another module handed the optimizer as a
    parameter is reported at its step too, not at its ``def`` line."""
    top = write(tmp_path / "t", {
        "pyproject.toml": "",
        "trainer.py": """\
            import torch


            class BaseTrainer:
                def __init__(self, model, lr):
                    self.model = model
                    self.optimizer = BaseTrainer.get_optimizer(model.parameters(), lr)

                @staticmethod
                def get_optimizer(params, lr):
                    return torch.optim.Adam(params, lr=lr)
            """,
        "xla_trainer.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from trainer import BaseTrainer


            class XLATrainer(BaseTrainer):
                def __init__(self, model, lr):
                    super().__init__(model.to(torch_xla.device()), lr)
                    self.scaler = torch.amp.GradScaler("xla")

                def fit(self, loader):
                    for (x,) in pl.MpDeviceLoader(loader, torch_xla.device()):
                        with torch.autocast("xla", dtype=torch.float16):
                            loss = self.model(x).mean()
                        self.scaler.scale(loss).backward()
                        self.scaler.step(self.optimizer)
                        self.scaler.update()
            """,
        "amp_step.py": """\
            def amp_step(scaler, optimizer, loss):
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl

            from amp_step import amp_step


            def main(model, loader):
                device = torch_xla.device()
                model = model.to(device)
                optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
                scaler = torch.amp.GradScaler("xla")
                for (x,) in pl.MpDeviceLoader(loader, device):
                    with torch.autocast("xla", dtype=torch.float16):
                        loss = model(x).mean()
                    amp_step(scaler, optimizer, loss)
            """,
    })
    found = [m for m in messages(top / "xla_trainer.py") if m.startswith("XLA402")]
    assert [f for f in lint(top / "xla_trainer.py") if f[1] == "XLA402"] == [(18, "XLA402")]
    assert "torch.optim.Adam (built at trainer.py:11)" in found[0], found
    assert [f for f in lint(top / "amp_step.py") if f[1] == "XLA402"] == [(3, "XLA402")]


def test_a_datamodule_handed_to_a_tpu_trainer_of_another_module(tmp_path: Path) -> None:
    """XLA102: ``trainer.fit(model, datamodule)`` of a Lightning Trainer on the TPU
    (run.py) runs the loaders that the datamodule's ``train_dataloader()`` and
    ``val_dataloader()`` return (data.py); a loader that ``limit_val_batches`` cuts
    before its last batch is not ragged."""
    top = write(tmp_path / "l", {
        "pyproject.toml": "",
        "data.py": """\
            import pytorch_lightning as pl
            import torch
            from torch.utils.data import DataLoader, TensorDataset


            class QueryData(pl.LightningDataModule):
                def setup(self, stage=None):
                    self.train = TensorDataset(torch.randn(1000, 8))

                def train_dataloader(self):
                    return DataLoader(self.train, batch_size=64, shuffle=True)

                def val_dataloader(self):
                    return DataLoader(self.train, batch_size=64)
            """,
        "run.py": """\
            import pytorch_lightning as pl

            from data import QueryData
            from model import Net

            if __name__ == "__main__":
                trainer = pl.Trainer(tpu_cores=8, max_epochs=3, limit_val_batches=0.1)
                trainer.fit(Net(), QueryData())
            """,
        "model.py": """\
            import pytorch_lightning as pl
            import torch


            class Net(pl.LightningModule):
                def __init__(self):
                    super().__init__()
                    self.layer = torch.nn.Linear(8, 1)

                def training_step(self, batch, batch_idx):
                    return self.layer(batch[0]).sum()
            """,
    })
    assert [f for f in lint(top / "data.py") if f[1] == "XLA102"] == [(11, "XLA102")]


def test_an_xla_module_imported_under_try_in_another_module(tmp_path: Path) -> None:
    """``from utils import xm`` where utils.py binds ``xm`` under ``try:`` (None when
    torch_xla is missing): ``if xm is None:`` is the branch of a machine without
    torch_xla, off the XLA path, as it is for the module's own import."""
    top = write(tmp_path / "x", {
        "pyproject.toml": "",
        "utils.py": """\
            try:
                import torch_xla
                import torch_xla.core.xla_model as xm
                import torch_xla.distributed.parallel_loader as pl
            except ImportError:
                torch_xla = xm = pl = None
            """,
        "train.py": """\
            import torch
            import torch_xla  # noqa: F401

            from utils import xm
            from steps import optimizer_step, wrap_loader


            def train(model, loader, optimizer, device):
                for step, (x, y) in enumerate(wrap_loader(loader, device)):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    optimizer_step(optimizer)
                    if xm is None and step % 100 == 0:
                        print(loss.item())
                    if step % 100 == 0:
                        print(loss.item())
            """,
        "steps.py": """\
            from utils import pl, xm


            def wrap_loader(loader, device):
                if pl is not None:
                    return pl.MpDeviceLoader(loader, device)
                return loader


            def optimizer_step(optimizer):
                if xm is not None:
                    xm.optimizer_step(optimizer)
                else:
                    optimizer.step()
            """,
    })
    assert [f for f in lint(top / "train.py") if f[1] == "XLA201"] == [(16, "XLA201")]


def test_a_base_method_that_every_subclass_overrides_never_runs(tmp_path: Path) -> None:
    """XLA501: the ``device`` property of a GPU base trainer that the project never builds
    itself, and that its only subclass (the XLA trainer, in another module) overrides,
    never runs; one that the override reaches through ``super()`` does."""
    top = write(tmp_path / "s", {
        "pyproject.toml": "",
        "base.py": """\
            import torch


            class Trainer:
                def __init__(self, model):
                    self.model = model.to(self.device)

                @property
                def device(self):
                    return torch.device("cuda", 0)

                def cuda_device(self):
                    return torch.device("cuda")
            """,
        "xla_trainer.py": """\
            import torch_xla

            from base import Trainer


            class XLATrainer(Trainer):
                @property
                def device(self):
                    return torch_xla.device()

                def cuda_device(self):
                    return super().cuda_device()
            """,
        "main.py": """\
            import torch

            from xla_trainer import XLATrainer

            if __name__ == "__main__":
                XLATrainer(torch.nn.Linear(2, 2))
            """,
    })
    assert [f for f in lint(top / "base.py") if f[1] == "XLA501"] == [(13, "XLA501")]


def test_a_webdataset_pipeline_built_in_another_module(tmp_path: Path) -> None:
    """XLA102: ``DataLoader(pipeline, batch_size=None)`` over the pipeline a factory of
    data.py returns, batched there by ``.batched(bs)`` with its ``partial=True`` default
    (each worker's short final batch); the factory's ``partial=False`` pipeline is not."""
    top = write(tmp_path / "x", {
        "pyproject.toml": "",
        "data.py": """\
            import webdataset as wds


            def make_pipeline(urls, batch_size):
                return (wds.WebDataset(urls, shardshuffle=100).shuffle(5000)
                        .decode("pil").to_tuple("jpg", "cls").batched(batch_size))


            def make_whole_pipeline(urls, batch_size):
                return wds.WebDataset(urls).to_tuple("jpg", "cls").batched(
                    batch_size, partial=False)
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from data import make_pipeline, make_whole_pipeline


            def train(model, opt, urls):
                device = torch_xla.device()
                pipeline = make_whole_pipeline(urls, 128)
                loader = DataLoader(make_pipeline(urls, 128), batch_size=None)
                other = DataLoader(pipeline, batch_size=None)
                for x, y in pl.MpDeviceLoader(loader, device):
                    model(x, y).backward()
                    xm.optimizer_step(opt)
                for x, y in pl.MpDeviceLoader(other, device):
                    model(x, y).backward()
                    xm.optimizer_step(opt)
            """,
    })
    assert [f for f in lint(top / "train.py") if f[1] == "XLA102"] == [(12, "XLA102")]


def test_a_model_split_across_replicas_in_another_module(tmp_path: Path) -> None:
    """XLA502: a model of model.py whose stages pass the hidden states on with
    ``xm.collective_permute`` (pipeline parallel: each replica owns other layers) leaves
    the plain ``optimizer.step()`` of train.py unreported; the same script over a
    data-parallel model is reported."""
    train = """\
        import torch
        import torch_xla
        import torch_xla.distributed.xla_multiprocessing as xmp

        from model import Net


        def _mp_fn(index, batches):
            device = torch_xla.device()
            model = Net(512).to(device)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for batch in batches:
                model(batch.to(device)).pow(2).mean().backward()
                optimizer.step()
                optimizer.zero_grad()
                torch_xla.sync()


        if __name__ == "__main__":
            xmp.spawn(_mp_fn, args=([],))
        """
    staged = write(tmp_path / "pipe", {
        "pyproject.toml": "",
        "train.py": train,
        "model.py": """\
            import torch
            import torch_xla.core.xla_model as xm
            import torch_xla.runtime as xr


            class Net(torch.nn.Module):
                def __init__(self, width):
                    super().__init__()
                    self.stage = torch.nn.Linear(width, width)

                def forward(self, hidden):
                    n = xr.world_size()
                    hidden = self.stage(hidden)
                    return xm.collective_permute(hidden, [[i, (i + 1) % n] for i in range(n)])
            """,
    })
    plain = write(tmp_path / "dp", {
        "pyproject.toml": "",
        "train.py": train,
        "model.py": """\
            import torch


            class Net(torch.nn.Module):
                def __init__(self, width):
                    super().__init__()
                    self.stage = torch.nn.Linear(width, width)

                def forward(self, hidden):
                    return self.stage(hidden)
            """,
    })
    assert [f for f in lint(staged / "train.py") if f[1] == "XLA502"] == []
    assert [f for f in lint(plain / "train.py") if f[1] == "XLA502"] == [(14, "XLA502")]


def test_the_importers_of_a_library_package_reach_what_its_init_re_exports(
        tmp_path: Path) -> None:
    """A library-like tree (diffusers, transformers): a package ``__init__`` re-exports
    its many modules, and most modules import the package. The importers of a re-exported
    module are those of the package too (sorted, never the module itself), and the
    question of which modules beside an importer call a method is answered once per
    module and methods (it is asked for each parameter of each method: with thousands of
    importers, a quadratic or repeated walk took minutes on diffusers)."""
    files = {"pyproject.toml": "",
             "lib/__init__.py": "".join(f"from .m{i} import f{i}\n" for i in range(30))}
    for i in range(30):
        files[f"lib/m{i}.py"] = f"from lib import f{(i + 1) % 30}\n\n\ndef f{i}():\n    pass\n"
    for j in range(40):
        files[f"app/u{j}.py"] = "import lib\nfrom lib.m3 import f3\n\nlib.f1().run()\n"
    top = write(tmp_path / "lib_tree", files)
    ix = ProjectIndex(find_root(top / "app/u0.py"))
    ix.scan()
    importers = ix._reverse(True)["lib/m7.py"]
    assert importers == sorted(importers) and "lib/m7.py" not in importers
    assert {f"app/u{j}.py" for j in range(40)} <= set(importers)
    assert {"lib/__init__.py", "lib/m0.py", "lib/m29.py"} <= set(importers)
    first = ix.method_callers("lib/m5.py", ["run"], every_module=True)
    assert ix.method_callers("lib/m5.py", ["run"], every_module=True) is first
    assert ix.method_callers("lib/m5.py", ("run",), every_module=True) is first
    assert first == sorted(first) and "lib/m5.py" not in first


def test_a_model_class_re_exported_by_a_relative_star_import(tmp_path: Path) -> None:
    """``models/__init__.py`` does ``from .networks import *`` and its ``create_model``
    returns ``g.eval()`` on one path and ``(g, d)`` on the other. ``g, d =
    create_model(cfg)`` unpacks the tuple (the single model cannot be unpacked: that path
    raises), so ``d`` is the ``Discriminator`` module of networks.py, whose ``c_dim`` is a
    Python int: ``if d.c_dim > 0:`` in the step reads no tensor (no XLA103), while a real
    tensor test there is reported."""
    top = write(tmp_path / "gan", {
        "pyproject.toml": "",
        "models/__init__.py": """\
            from .networks import *


            def create_model(cfg, device=None, eval_only=False):
                g = Generator(cfg.z_dim).to(device)
                if eval_only:
                    return g.eval()
                d = Discriminator(cfg.c_dim).to(device)
                return g, d
            """,
        "models/networks.py": """\
            import torch
            from torch import nn


            class Generator(nn.Module):
                def __init__(self, z_dim):
                    super().__init__()
                    self.z_dim = z_dim
                    self.net = nn.Linear(z_dim, 64)

                def forward(self, z):
                    return self.net(z)


            class Discriminator(nn.Module):
                def __init__(self, c_dim):
                    super().__init__()
                    self.c_dim = c_dim
                    self.net = nn.Linear(64, 1)

                def forward(self, x):
                    return self.net(x)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm

            from models import create_model


            def train(cfg, loader):
                device = torch_xla.device()
                g, d = create_model(cfg, device=device)
                opt = torch.optim.Adam(d.parameters())
                for real in loader:
                    real = real.to(device)
                    score = d(g(torch.randn(real.shape[0], g.z_dim, device=device)))
                    if d.c_dim > 0:
                        score = score * 2
                    if score.mean() > 0:
                        score = score - 1
                    score.sum().backward()
                    xm.optimizer_step(opt)
                    torch_xla.sync()
            """,
    })
    assert [f for f in lint(top / "train.py") if f[1] == "XLA103"] == [(17, "XLA103")]


def test_a_whole_split_padded_once_by_a_helper_of_another_module(tmp_path: Path) -> None:
    """XLA101: data.py's ``build_dataset`` pads the whole split with ``padding=True`` in
    one tokenizer call; train.py calls it once per process, before the step loop (from
    the ``torch_xla.launch`` entry point): one length for every row, not reported. The
    same helper called per batch in the loop is reported."""
    data = """\
        import torch
        from torch.utils.data import TensorDataset
        from transformers import AutoTokenizer


        def build_dataset(texts, labels, name="bert-base-uncased"):
            tok = AutoTokenizer.from_pretrained(name)
            enc = tok(texts, truncation=True, max_length=128, padding=True,
                      return_tensors="pt")
            return TensorDataset(enc["input_ids"], torch.tensor(labels))
        """
    train = """\
        import torch
        import torch_xla
        import torch_xla.core.xla_model as xm
        import torch_xla.distributed.parallel_loader as pl
        from torch.utils.data import DataLoader

        from data import build_dataset


        def _mp_fn(index, texts, labels, model):
            device = torch_xla.device()
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            {body}


        if __name__ == "__main__":
            torch_xla.launch(_mp_fn, args=([], [], None))
        """
    once = write(tmp_path / "once", {
        "pyproject.toml": "", "data.py": data,
        "train.py": train.format(body="""ds = build_dataset(texts, labels)
            loader = DataLoader(ds, batch_size=8, drop_last=True)
            for ids, y in pl.MpDeviceLoader(loader, device):
                model(ids, labels=y).loss.backward()
                xm.optimizer_step(opt)"""),
    })
    per_batch = write(tmp_path / "per_batch", {
        "pyproject.toml": "", "data.py": data,
        "train.py": train.format(body="""for start in range(0, 1024, 8):
                ds = build_dataset(texts[start:start + 8], labels[start:start + 8])
                ids, y = ds.tensors
                model(ids.to(device), labels=y.to(device)).loss.backward()
                xm.optimizer_step(opt)
                torch_xla.sync()"""),
    })
    assert [f for f in lint(once / "data.py") if f[1] == "XLA101"] == []
    assert [f for f in lint(per_batch / "data.py") if f[1] == "XLA101"] == [(8, "XLA101")]


def test_a_module_that_needs_a_cuda_only_package_is_not_the_xla_path(tmp_path: Path
                                                                       ) -> None:
    """XLA501: dali_loader.py imports NVIDIA DALI at its top, so it cannot even be
    imported on an XLA host: its ``.cuda()`` never runs there, nor does the branch of
    train.py that imports it (``if args.dali: from dali_loader import ...``); the
    ``.cuda()`` outside that branch is reported."""
    top = write(tmp_path / "dali", {
        "pyproject.toml": "",
        "dali_loader.py": """\
            from nvidia.dali.plugin.pytorch import DALIClassificationIterator


            def unpack(batch):
                return batch[0]["data"], batch[0]["label"].long().cuda()
            """,
        "train.py": """\
            import torch
            import torch_xla


            def main(args, model, loader):
                device = torch_xla.device()
                if args.dali:
                    from dali_loader import unpack
                    model = model.cuda()
                warm = torch.zeros(1).cuda()
                for batch in loader:
                    model(batch.to(device))
                    torch_xla.sync()
                return warm
            """,
    })
    assert [f for f in lint(top / "train.py") if f[1] == "XLA501"] == [(10, "XLA501")]
    assert [f for f in lint(top / "dali_loader.py") if f[1] == "XLA501"] == []


def test_a_dataclass_field_of_another_modules_class(tmp_path: Path) -> None:
    """XLA102: ``run(model, data["val"].dataloader)`` in evaluate.py reads a field of a
    dataclass defined in data.py (``DataInfo(dataloader=loader)``): what the
    constructions in data.py pass for it, found by data.py's own analysis, not by the
    module that reads the field."""
    top = write(tmp_path / "d", {
        "pyproject.toml": "",
        "data.py": """\
            from dataclasses import dataclass

            from torch.utils.data import DataLoader


            @dataclass
            class DataInfo:
                dataloader: DataLoader
                sampler: object = None


            def get_val(ds, batch_size):
                loader = DataLoader(ds, batch_size=batch_size)
                return DataInfo(dataloader=loader)


            def get_data(args, ds):
                data = {}
                data["val"] = get_val(ds, args.batch_size)
                return data
            """,
        "evaluate.py": """\
            import torch
            import torch_xla


            def run(model, loader):
                with torch.no_grad():
                    for x, _ in loader:
                        model(x.to(torch_xla.device())).sum()
                        torch_xla.sync()


            def evaluate(model, data):
                return run(model, data["val"].dataloader)
            """,
        "train.py": """\
            import torch_xla

            from data import get_data
            from evaluate import evaluate


            def main(args, model, ds):
                evaluate(model, get_data(args, ds))
            """,
    })
    assert [f for f in lint(top / "data.py") if f[1] == "XLA102"] == [(13, "XLA102")]


def test_an_attribute_set_on_both_branches_of_a_tpu_switch(tmp_path: Path) -> None:
    """XLA301: ``self.loader`` is an MpDeviceLoader where ``if self.use_tpu:`` takes the
    TPU branch and the plain loader only in the ``else`` that sets a CUDA device: the
    loop of train_epoch on the XLA path iterates the MpDeviceLoader (its barrier)."""
    top = write(tmp_path / "t", {
        "pyproject.toml": "",
        "engine.py": """\
            import torch
            import torch.nn.functional as F

            try:
                import torch_xla
                import torch_xla.core.xla_model as xm
                import torch_xla.distributed.parallel_loader as pl
            except ImportError:
                xm = None


            class Trainer:
                def __init__(self, args, model, loader):
                    self.use_tpu = args.accelerator == "tpu"
                    if self.use_tpu:
                        self.device = torch_xla.device()
                        self.loader = pl.MpDeviceLoader(loader, self.device)
                    else:
                        self.device = torch.device("cuda")
                        self.loader = loader
                    self.model = model.to(self.device)
                    self.optimizer = torch.optim.AdamW(self.model.parameters())

                def train_epoch(self):
                    for x, y in self.loader:
                        loss = F.cross_entropy(self.model(x.to(self.device)), y.to(self.device))
                        self.optimizer.zero_grad()
                        loss.backward()
                        if self.use_tpu:
                            xm.optimizer_step(self.optimizer)
                        else:
                            self.optimizer.step()
            """,
        "train.py": """\
            import argparse

            import torch
            from torch.utils.data import DataLoader, TensorDataset

            from engine import Trainer


            def main():
                p = argparse.ArgumentParser()
                p.add_argument("--accelerator", default="tpu")
                args = p.parse_args()
                data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
                trainer = Trainer(args, torch.nn.Linear(8, 2), DataLoader(data, batch_size=8))
                for _ in range(3):
                    trainer.train_epoch()


            if __name__ == "__main__":
                main()
            """,
    })
    assert [f for f in lint(top / "engine.py") if f[1] == "XLA301"] == []


def test_scripts_that_a_launcher_spawns_by_name(tmp_path: Path) -> None:
    """A launcher that imports the training script named on its command line and spawns
    its ``_mp_fn`` (Hugging Face's ``xla_spawn.py``) makes every module of the project
    that defines ``_mp_fn`` XLA code, though it never imports torch_xla itself; a module
    without ``_mp_fn`` is not."""
    top = write(tmp_path / "s", {
        "pyproject.toml": "",
        "xla_spawn.py": """\
            import importlib
            import sys
            from pathlib import Path

            import torch_xla.distributed.xla_multiprocessing as xmp


            def main():
                script = Path(sys.argv[1])
                sys.path.append(str(script.parent.resolve()))
                mod = importlib.import_module(script.stem)
                xmp.spawn(mod._mp_fn, args=(), nprocs=8)


            if __name__ == "__main__":
                main()
            """,
        "run_cls.py": """\
            import torch
            from torch.utils.data import DataLoader


            def main(model, dataset, optimizer, device):
                for x, y in DataLoader(dataset, batch_size=32, drop_last=True):
                    loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
                    loss.backward()
                    optimizer.step()
                    print(loss.item())


            def _mp_fn(index):
                # For xla_spawn (TPUs)
                main(None, None, None, None)
            """,
        "run_gpu.py": """\
            import torch
            from torch.utils.data import DataLoader


            def main(model, dataset, optimizer, device):
                # a GPU-only script (tpu: not supported)
                for x, y in DataLoader(dataset, batch_size=32, drop_last=True):
                    loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
                    loss.backward()
                    optimizer.step()
                    print(loss.item())
            """,
    })
    ix = index_for(top / "run_cls.py")
    assert ix.is_xla_code(top / "run_cls.py")
    assert not ix.is_xla_code(top / "run_gpu.py")


def test_a_callable_object_of_another_module(tmp_path: Path) -> None:
    """XLA503: ``es = EarlyStopping(patience=3)`` built in train.py, then ``es(score,
    model, path)``, runs utils.py's ``EarlyStopping.__call__`` with the XLA model, and its
    ``save_checkpoint`` torch.saves the model's state dict (reported in utils.py)."""
    top = write(tmp_path / "e", {
        "pyproject.toml": "",
        "utils.py": """\
            import torch


            class EarlyStopping:
                def __init__(self, patience=3):
                    self.patience = patience
                    self.best = None

                def __call__(self, score, model, path):
                    if self.best is None or score > self.best:
                        self.best = score
                        self.save_checkpoint(model, path)

                def save_checkpoint(self, model, path):
                    torch.save(model.state_dict(), path)
            """,
        "train.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm

            from utils import EarlyStopping


            def fit(model, optimizer, loader, evaluate):
                device = torch_xla.device()
                model.to(device)
                es = EarlyStopping(patience=3)
                for epoch in range(10):
                    for x, y in loader:
                        torch.nn.functional.cross_entropy(
                            model(x.to(device)), y.to(device)).backward()
                        xm.optimizer_step(optimizer)
                        torch_xla.sync()
                    es(evaluate(model), model, f"model_{epoch}.bin")
            """,
    })
    assert [f for f in lint(top / "utils.py") if f[1] == "XLA503"] == [(15, "XLA503")]


def test_anomaly_mode_is_reported_only_where_a_backward_may_run(tmp_path: Path) -> None:
    # set in a settings module that the training script imports: the script's backward
    # runs under it; set in an inference script no module of which calls backward():
    # anomaly mode checks nothing there
    root = write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "settings.py": """\
            import torch
            import torch_xla

            torch.autograd.set_detect_anomaly(True)
            DEVICE = torch_xla.device()
        """,
        "train.py": """\
            import torch
            import torch_xla
            from settings import DEVICE

            def train(model, loader, opt):
                for x, y in loader:
                    torch.nn.functional.mse_loss(model(x.to(DEVICE)), y.to(DEVICE)).backward()
                    opt.step()
                    torch_xla.sync()
        """,
        "predict.py": """\
            import torch
            import torch_xla

            torch.autograd.set_detect_anomaly(True)

            def predict(model, batches):
                device = torch_xla.device()
                with torch.inference_mode():
                    return [model(x.to(device)) for x in batches]
        """,
    })
    assert (4, "XLA202") in lint(root / "settings.py")
    assert not [f for f in lint(root / "predict.py") if f[1] == "XLA202"]


@pytest.mark.parametrize("folder", ["plm_surrogate", "owner+plm-surrogate@0123456789"])
def test_an_import_spelled_from_the_repository_folder_resolves_inside_it(
        tmp_path: Path, folder: str) -> None:
    # ``from plm_surrogate.model.arch import Net`` in a clone of ``plm_surrogate`` run
    # from the folder above it: the first name is the root folder itself (also in a
    # snapshot folder ``owner+name@commit``, with ``-`` for ``_``)
    root = write(tmp_path / folder, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "model/arch.py": "import torch\n\n\nclass Net(torch.nn.Module):\n    pass\n",
        "model/train.py": "from plm_surrogate.model.arch import Net\n",
    })
    ix = index_for(root / "model" / "train.py")
    assert ix is not None
    assert ix.resolve("model/train.py", "plm_surrogate.model.arch") == "model/arch.py"
    assert ix.resolve("model/train.py", "other_name.model.arch") is None


def test_a_top_level_package_of_the_root_name_is_not_the_root(tmp_path: Path) -> None:
    # (a package ``proj/`` inside the root ``proj``: its own modules, not the root's)
    root = write(tmp_path / "proj", {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "proj/__init__.py": "",
        "proj/util.py": "X = 1\n",
        "util.py": "X = 2\n",
        "run.py": "from proj.util import X\n",
    })
    ix = index_for(root / "run.py")
    assert ix is not None
    assert ix.resolve("run.py", "proj.util") == "proj/util.py"


def test_anomaly_mode_of_an_inference_script_that_imports_the_trainer(tmp_path: Path
                                                                       ) -> None:
    # predict.py imports the model builder of train.py, whose backward runs only in
    # train.py's own functions, which predict.py never calls
    root = write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "train.py": """\
            import torch
            import torch_xla

            def build_model():
                return torch.nn.Linear(4, 2)

            def train(model, loader, opt):
                device = torch_xla.device()
                for x, y in loader:
                    torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)).backward()
                    opt.step()
                    torch_xla.sync()
        """,
        "predict.py": """\
            import torch
            import torch_xla
            from train import build_model

            torch.autograd.set_detect_anomaly(True)

            def predict(batches):
                device = torch_xla.device()
                model = build_model().to(device)
                with torch.inference_mode():
                    return [model(x.to(device)) for x in batches]
        """,
        "finetune.py": """\
            import torch
            import torch_xla
            from train import build_model, train

            torch.autograd.set_detect_anomaly(True)

            def run(loader):
                model = build_model().to(torch_xla.device())
                train(model, loader, torch.optim.SGD(model.parameters(), lr=0.1))
        """,
    })
    assert not [f for f in lint(root / "predict.py") if f[1] == "XLA202"]
    assert (5, "XLA202") in lint(root / "finetune.py")


def test_a_dataset_of_another_module_loaded_one_item_per_batch(tmp_path: Path) -> None:
    # data.py's __getitem__ tokenizes without padding with the tokenizer train.py hands
    # to the dataset; train.py loads it one item per batch (no batch_size given)
    root = write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "data.py": """\
            import torch
            from torch.utils.data import Dataset

            class Reviews(Dataset):
                def __init__(self, texts, tokenizer):
                    self.texts = texts
                    self.tokenizer = tokenizer

                def __len__(self):
                    return len(self.texts)

                def __getitem__(self, i):
                    enc = self.tokenizer(self.texts[i], truncation=True, return_tensors="pt")
                    return enc["input_ids"][0]
        """,
        "train.py": """\
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader
            from transformers import AutoTokenizer
            from data import Reviews

            def main(texts, model, opt):
                device = torch_xla.device()
                tok = AutoTokenizer.from_pretrained("roberta-base")
                loader = DataLoader(Reviews(texts, tok), shuffle=True)
                for ids in pl.MpDeviceLoader(loader, device):
                    model(ids).sum().backward()
                    opt.step()

            if __name__ == "__main__":
                main([], None, None)
        """,
    })
    assert (13, "XLA101") in lint(root / "data.py")


def test_an_mp_fn_spawned_by_another_module_with_args_is_no_launcher_error(
        tmp_path: Path) -> None:
    # xla_train.py's _mp_fn(rank, cfg) is spawned by train.py with args=(cfg,): a second
    # parameter is what the launcher there passes, not what xla_spawn.py would miss
    root = write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "xla_train.py": """\
            import torch_xla

            def _mp_fn(rank, cfg):
                device = torch_xla.device()
                return device, cfg
        """,
        "train.py": """\
            import torch_xla.distributed.xla_multiprocessing as xmp
            from xla_train import _mp_fn

            def main(cfg):
                xmp.spawn(_mp_fn, args=(cfg,), start_method="fork")

            if __name__ == "__main__":
                main({})
        """,
        "alone.py": """\
            import torch_xla

            def _mp_fn(index, argv):
                return torch_xla.device(), argv
        """,
    })
    assert not [f for f in lint(root / "xla_train.py") if f[1] == "XLA505"]
    assert (3, "XLA505") in lint(root / "alone.py")


@pytest.mark.parametrize(("level", "reported"), [("INFO", False), ("DEBUG", True)])
def test_a_debug_log_of_a_tensor_follows_the_level_the_script_sets(
        tmp_path: Path, level: str, reported: bool) -> None:
    # engine.py logs the lazy loss at DEBUG and sets no level; train.py, which imports it,
    # configures the root logger: at INFO the record is dropped before it is formatted
    root = write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "engine.py": """\
            import logging

            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl

            logger = logging.getLogger(__name__)

            def train_epoch(model, loader, optimizer, device):
                for x, y in pl.MpDeviceLoader(loader, device):
                    loss = model(x, y)
                    loss.backward()
                    xm.optimizer_step(optimizer)
                    logger.debug("loss %s", loss)
        """,
        "train.py": f"""\
            import logging

            import torch_xla
            from engine import train_epoch

            def main(model, loader, optimizer):
                logging.basicConfig(level=logging.{level})
                train_epoch(model, loader, optimizer, torch_xla.device())

            if __name__ == "__main__":
                main(None, None, None)
        """,
    })
    found = [f for f in lint(root / "engine.py") if f[1] == "XLA201"]
    assert bool(found) is reported


def test_a_padding_helper_of_another_module_called_by_a_collate_method(
        tmp_path: Path) -> None:
    """XLA101 at the call of a helper of another module that pads the items to the batch's
    longest one (FastSpeech2's ``pad_1D``/``pad_2D`` from ``utils/tools.py``), made by a
    Dataset's ``collate_fn`` method that the training script hands to its DataLoader; the
    message names where the helper takes the length. Not reported: the same helper given
    a fixed length (``pad_2D(mels, MAX_FRAMES)``), a helper padding to a constant, nor the
    helper module itself."""
    root = write(tmp_path / "proj", {
        "pyproject.toml": "",
        "utils/__init__.py": "",
        "utils/tools.py": """\
            import numpy as np


            def pad_1D(inputs, PAD=0):
                def pad_data(x, length, PAD):
                    return np.pad(x, (0, length - x.shape[0]), constant_values=PAD)

                max_len = max((len(x) for x in inputs))
                return np.stack([pad_data(x, max_len, PAD) for x in inputs])


            def pad_2D(inputs, maxlen=None):
                def pad(x, max_len):
                    return np.pad(x, ((0, max_len - np.shape(x)[0]), (0, 0)))

                if maxlen:
                    return np.stack([pad(x, maxlen) for x in inputs])
                max_len = max(np.shape(x)[0] for x in inputs)
                return np.stack([pad(x, max_len) for x in inputs])


            def pad_fixed(inputs, length=512):
                return np.stack([np.pad(x, (0, length - len(x))) for x in inputs])
            """,
        "dataset.py": """\
            import torch
            from torch.utils.data import Dataset

            from utils.tools import pad_1D, pad_2D, pad_fixed

            MAX_FRAMES = 1000


            class TextMelDataset(Dataset):
                def __init__(self, items):
                    self.items = items

                def __len__(self):
                    return len(self.items)

                def __getitem__(self, idx):
                    return self.items[idx]

                def reprocess(self, data, idxs):
                    texts = pad_1D([data[i]["text"] for i in idxs])
                    mels = pad_2D([data[i]["mel"] for i in idxs])
                    fixed = pad_2D([data[i]["mel"] for i in idxs], MAX_FRAMES)
                    pitch = pad_fixed([data[i]["pitch"] for i in idxs])
                    return [torch.from_numpy(a) for a in (texts, mels, fixed, pitch)]

                def collate_fn(self, data):
                    return self.reprocess(data, range(len(data)))
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from dataset import TextMelDataset


            def main(items, model, optimizer):
                device = torch_xla.device()
                dataset = TextMelDataset(items)
                loader = DataLoader(dataset, batch_size=16, drop_last=True,
                                    collate_fn=dataset.collate_fn)
                for batch in pl.MpDeviceLoader(loader, device):
                    model(*batch).backward()
                    optimizer.step()
                    torch_xla.sync()
            """,
    })
    assert lint(root / "dataset.py") == [(20, "XLA101"), (21, "XLA101")]
    shown = messages(root / "dataset.py")
    assert "max(...) at utils/tools.py:8" in shown[0] and "pad_1D(...)" in shown[0]
    assert "max(...) at utils/tools.py:18" in shown[1]
    assert lint(root / "utils" / "tools.py") == []


def test_a_padding_helper_left_at_its_default_length_in_another_module(
        tmp_path: Path) -> None:
    """XLA101 at the call of ``pad_batch(ids)``, a helper of another module whose
    ``length=None`` default it fills in with the batch's longest item (``if length is
    None: length = max(...)``) and sizes its buffer by; not at the call that passes a
    fixed ``length=MAX_LEN``."""
    root = write(tmp_path / "proj", {
        "pyproject.toml": "",
        "utils.py": """\
            def pad_batch(seqs, length=None, value=0):
                if length is None:
                    length = max(s.size(0) for s in seqs)
                out = seqs[0].new_full((len(seqs), length), value)
                for i, s in enumerate(seqs):
                    n = min(s.size(0), length)
                    out[i, :n] = s[:n]
                return out


            class Padder:
                def pad(self, seqs, length=None):
                    if length is None:
                        length = max(s.size(0) for s in seqs)
                    out = seqs[0].new_full((len(seqs), length), 0)
                    for i, s in enumerate(seqs):
                        out[i, :s.size(0)] = s[:length]
                    return out
            """,
        "data.py": """\
            import torch

            from utils import Padder, pad_batch

            MAX_LEN = 128
            PADDER = Padder()


            def train_collate(batch):
                ids = [torch.tensor(b["input_ids"]) for b in batch]
                return pad_batch(ids, length=MAX_LEN)


            def eval_collate(batch):
                ids = [torch.tensor(b["input_ids"]) for b in batch]
                return pad_batch(ids)


            def method_collate(batch):
                ids = [torch.tensor(b["input_ids"]) for b in batch]
                return PADDER.pad(ids, MAX_LEN)


            def starred_collate(batch):
                args = ([torch.tensor(b["input_ids"]) for b in batch], MAX_LEN)
                return pad_batch(*args)
            """,
        "train.py": """\
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from torch.utils.data import DataLoader

            from data import eval_collate, train_collate


            def main(train_set, eval_set, model):
                device = torch_xla.device()
                for data, fn in ((train_set, train_collate), (eval_set, eval_collate),
                                 (eval_set, method_collate), (eval_set, starred_collate)):
                    loader = DataLoader(data, batch_size=64, drop_last=True, collate_fn=fn)
                    for ids in pl.MpDeviceLoader(loader, device):
                        model(ids)
            """,
    })
    assert lint(root / "data.py") == [(16, "XLA101")]
    assert "max(...) at utils.py:3" in messages(root / "data.py")[0]


def test_a_member_setter_makes_no_forward_pass_of_an_ensemble_loop(tmp_path: Path) -> None:
    """An ensemble's member loop in another module (threads, one per device) hands each
    member device tensors through a setter, then trains it in full with a function whose
    epoch loop reads the epoch's loss once: that loop is no step loop of the member loop
    (a setter stores, it runs no forward pass). The per-step read still is reported."""
    root = write(tmp_path / "ens", {
        "pyproject.toml": "[project]\nname = 'ens'\n",
        "trainer.py": """\
            import torch
            import torch_xla
            from torch import nn


            def fit_one(model, x, y, epochs=3):
                optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(epochs):
                    total = torch.zeros((), device=x.device)
                    for i in range(0, len(x) - len(x) % 32, 32):
                        optimizer.zero_grad()
                        loss = nn.functional.mse_loss(model(x[i:i + 32]), y[i:i + 32])
                        loss.backward()
                        optimizer.step()
                        total += loss.detach()
                        print(loss.item())
                        torch_xla.sync()
                    print(f"epoch {epoch}: {float(total):.4f}")
                return model
            """,
        "parallel.py": """\
            import threading

            import torch_xla
            from trainer import fit_one


            def fit_members(members, x, y, anchors, devices):
                out = [None] * len(members)

                def worker(device, ids):
                    xd, yd = x.to(device), y.to(device)
                    extra = anchors.to(device)
                    for i in ids:
                        members[i].set_anchors(extra)
                        out[i] = fit_one(members[i], xd, yd)

                threads = [threading.Thread(target=worker, args=(d, [k]))
                           for k, d in enumerate(devices)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                return out


            def main(members, x, y, anchors):
                return fit_members(members, x, y, anchors, [torch_xla.device()])
            """,
    })
    assert lint(root / "trainer.py") == [(16, "XLA201")]


def test_a_projects_own_xla_spawn_sets_the_mp_fn_arguments(tmp_path: Path) -> None:
    """A copy of transformers' xla_spawn.py in the project that imports the script by
    path and spawns ``mod._mp_fn`` with ``args=(seed,)`` decides what ``_mp_fn`` takes:
    the script's ``_mp_fn(index, seed)`` is not reported. Without that launcher it is."""
    files = {
        "pyproject.toml": "[project]\nname = 'spawned'\n",
        "bin/run_mlm.py": """\
            import torch


            def main(seed):
                torch.manual_seed(int(seed))


            def _mp_fn(index, seed):
                main(seed)
            """,
        "bin/xla_spawn.py": """\
            import importlib
            import sys
            import time
            from pathlib import Path

            import torch_xla.distributed.xla_multiprocessing as xmp


            def main():
                path = Path(sys.argv[1])
                sys.path.append(str(path.parent.resolve()))
                mod = importlib.import_module(path.stem)
                xmp.spawn(mod._mp_fn, args=(time.time(),), nprocs=8)


            if __name__ == "__main__":
                main()
            """,
    }
    root = write(tmp_path / "with", files)
    assert lint(root / "bin/run_mlm.py", target="all") == []
    files.pop("bin/xla_spawn.py")
    root = write(tmp_path / "without", files)
    assert lint(root / "bin/run_mlm.py", target="all") == [(8, "XLA505")]


def test_a_function_of_a_module_past_the_budget_returns_an_unknown(tmp_path: Path) -> None:
    """A function of a project module too big to analyse is not a library function: what
    it returns (here Python floats read on the host) is unknown, not the lazy tensors it
    is handed, so the caller's ``float(err)`` per step is not reported as a host read."""
    from flake8_xla.project.link import MAX_MODULE_BYTES

    padding = "# (a long module)\n" * (MAX_MODULE_BYTES // 18 + 10)
    root = write(tmp_path / "big", {
        "pyproject.toml": "[project]\nname = 'big'\n",
        "checks.py": """\
            import torch


            def max_error(ref, out):
                return float((ref.cpu() - out.cpu()).abs().max())
            """ + padding,
        "bench.py": """\
            import torch
            import torch_xla

            from checks import max_error


            def run(model, xs, ref):
                device = torch_xla.device()
                errs = []
                for x in xs:
                    out = model(x.to(device))
                    torch_xla.sync()
                    err = max_error(ref, out)
                    errs.append(float(err))
                return errs
            """,
    })
    assert lint(root / "bench.py") == []


def test_functions_the_replicas_may_run_stay_multi_replica(tmp_path: Path) -> None:
    """A module that starts its replicas on its own ``_mp_fn`` leaves out of them only the
    functions nothing but a direct call reaches: a function another module spawns
    (``xmp.spawn(trainer.finetune)``) or that ``_mp_fn`` runs through a value
    (``args.func(args)`` of an argparse subcommand's ``set_defaults(func=train)``) still
    runs in the replicas: its bare ``optimizer.step()`` is reported (XLA502), and so is
    its DataLoader without a sampler (XLA504)."""
    importer = write(tmp_path / "imp", {
        "pyproject.toml": "",
        "finetune_launch.py": """\
            import torch_xla.distributed.xla_multiprocessing as xmp

            from trainer import finetune

            if __name__ == "__main__":
                xmp.spawn(finetune, args=(2,))
            """,
        "trainer.py": """\
            import torch
            import torch_xla
            import torch_xla.core.xla_model as xm
            import torch_xla.distributed.parallel_loader as pl
            import torch_xla.distributed.xla_multiprocessing as xmp
            from torch.utils.data import DataLoader, TensorDataset
            from torch.utils.data.distributed import DistributedSampler
            import torch_xla.runtime as xr


            def make_loader(n):
                ds = TensorDataset(torch.randn(n, 16), torch.randn(n, 1))
                sampler = DistributedSampler(ds, num_replicas=xr.world_size(), rank=xr.global_ordinal())
                return DataLoader(ds, batch_size=64, sampler=sampler, drop_last=True)


            def pretrain(epochs):
                device = torch_xla.device()
                model = torch.nn.Linear(16, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                loader = make_loader(8192)
                for epoch in range(epochs):
                    for x, y in pl.MpDeviceLoader(loader, device):
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        xm.optimizer_step(opt)


            def finetune(index, epochs):
                # spawned by finetune_launch.py: runs in every replica too
                device = torch_xla.device()
                model = torch.nn.Linear(16, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=0.01)
                loader = make_loader(2048)
                for epoch in range(epochs):
                    for x, y in pl.MpDeviceLoader(loader, device):
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()  # expected: XLA502


            def _mp_fn(index, epochs):
                pretrain(epochs)


            if __name__ == "__main__":
                xmp.spawn(_mp_fn, args=(3,))
            """,
    })
    assert lint(importer / "trainer.py") == [(39, "XLA502")]
    subcommand = write(tmp_path / "sub", {
        "pyproject.toml": "",
        "cli.py": """\
            import argparse

            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            import torch_xla.distributed.xla_multiprocessing as xmp
            from torch.utils.data import DataLoader, TensorDataset


            def train(args):
                device = torch_xla.device()
                model = torch.nn.Linear(16, 1).to(device)
                opt = torch.optim.SGD(model.parameters(), lr=args.lr)
                ds = TensorDataset(torch.randn(4096, 16), torch.randn(4096, 1))
                loader = DataLoader(ds, batch_size=64, shuffle=True, drop_last=True)
                for epoch in range(args.epochs):
                    for x, y in pl.MpDeviceLoader(loader, device):
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()  # expected: XLA502


            def _mp_fn(index, args):
                args.func(args)  # the subcommand's function, in every replica


            if __name__ == "__main__":
                parser = argparse.ArgumentParser()
                commands = parser.add_subparsers(required=True)
                cmd = commands.add_parser("train")
                cmd.add_argument("--lr", type=float, default=0.1)
                cmd.add_argument("--epochs", type=int, default=3)
                cmd.set_defaults(func=train)
                xmp.spawn(_mp_fn, args=(parser.parse_args(),))
            """,
    })
    assert lint(subcommand / "cli.py") == [(15, "XLA504"), (20, "XLA502")]


def test_a_mixin_of_another_module_keeps_a_constructor_flag_unknown(tmp_path: Path) -> None:
    """``FastMarginLoss(DebugChecks, MarginLoss)`` passes ``validate=False`` to the base,
    but the mixin ``DebugChecks`` of ``debugging.py`` sets ``self.validate = True``: the
    checks may run, so the data-dependent ``assert`` stays reported."""
    top = write(tmp_path / "r", {
        "pyproject.toml": "",
        "debugging.py": """\
            class DebugChecks:
                # (a mixin: lets a run switch a loss's input checks back on)

                def enable_checks(self):
                    self.validate = True
            """,
        "losses.py": """\
            import torch
            import torch_xla
            import torch_xla.distributed.parallel_loader as pl
            from torch import nn

            from debugging import DebugChecks


            class MarginLoss(nn.Module):
                def __init__(self, validate=True):
                    super().__init__()
                    self.validate = validate

                def forward(self, scores, labels):
                    if self.validate:
                        assert not torch.isnan(scores).any()  # expected: XLA103 (a mixin may turn it on)
                    return nn.functional.relu(0.5 - scores * labels).mean()


            class FastMarginLoss(DebugChecks, MarginLoss):
                def __init__(self):
                    super().__init__(validate=False)


            def train(model, loader, optimizer, debug=False):
                device = torch_xla.device()
                margin = FastMarginLoss()
                if debug:
                    margin.enable_checks()
                for x, y in pl.MpDeviceLoader(loader, device):
                    optimizer.zero_grad()
                    margin(model(x), y).backward()
                    optimizer.step()
            """,
    })
    assert lint(top / "losses.py") == [(16, "XLA103")]


def test_a_forward_inherited_by_a_subclass_takes_what_its_callers_pass(tmp_path: Path) -> None:
    """``train.py`` builds ``StrictSegLoss`` (of ``losses.py``), a subclass that keeps its
    base's ``forward``: the step's ``criterion(model(img), mask)`` runs that forward with the
    loader's lazy mask, so the base's target check reads it on the host every step. A
    subclass with a forward of its own gives the base's forward nothing."""
    losses = """\
        import torch.nn as nn
        import torch.nn.functional as F


        class BaseSegLoss(nn.Module):
            ignore_index = 255

            def _check(self, logits, target):
                valid = target != self.ignore_index
                assert (target[valid] < logits.shape[1]).all(), "label out of range"

            def forward(self, logits, target):
                self._check(logits, target)
                return self.loss(logits, target)

            def loss(self, logits, target):
                return F.cross_entropy(logits, target, ignore_index=self.ignore_index)


        class StrictSegLoss(BaseSegLoss):
            {body}
        """
    train = """\
        import torch
        import torch_xla
        import torch_xla.core.xla_model as xm
        import torch_xla.distributed.parallel_loader as pl

        from losses import StrictSegLoss


        def main(model, loader):
            device = torch_xla.device()
            model = model.to(device)
            criterion = StrictSegLoss()
            opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
            for img, mask in pl.MpDeviceLoader(loader, device):
                opt.zero_grad()
                loss = criterion(model(img), mask)
                loss.backward()
                xm.optimizer_step(opt)
        """
    top = write(tmp_path / "r", {"pyproject.toml": "", "train.py": train,
                                 "losses.py": losses.format(body="pass")})
    assert lint(top / "losses.py") == [(10, "XLA103"), (10, "XLA104")]
    own = write(tmp_path / "o", {"pyproject.toml": "", "train.py": train,
                                 "losses.py": losses.format(
                                     body="def forward(self, logits, target):\n"
                                          "                return logits.mean()")})
    assert lint(own / "losses.py") == []


def test_attributes_a_class_inherits_from_another_module_through_a_base_of_its_own(
        tmp_path: Path) -> None:
    """``Leaf(Mid)`` with ``Mid(base.Base)``: the optimizer that ``Base.__init__`` (base.py)
    builds is what ``self.optimizer`` of a Leaf steps, so Leaf's loop is a training loop
    (XLA201 at its ``.item()``). The attribute table kept with models.py's tree (in the
    per-process tree cache, for the files checked after it) holds no node of base.py's
    tree, which the cache may free first: another module's attributes are joined per
    session."""
    from flake8_xla.analysis.flows import syntax_cache
    from flake8_xla.project import link

    top = write(tmp_path / "p", {
        "pyproject.toml": "",
        "base.py": """\
            import torch


            class Base:
                def __init__(self, model):
                    self.model = model
                    self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            """,
        "models.py": """\
            import torch_xla
            import base


            class Mid(base.Base):
                pass


            class Leaf(Mid):
                def fit(self, loader):
                    for x, y in loader:
                        x, y = x.to(torch_xla.device()), y.to(torch_xla.device())
                        loss = ((self.model(x) - y) ** 2).mean()
                        loss.backward()
                        self.optimizer.step()
                        print(loss.item())
            """,
        "train.py": """\
            import torch
            import torch_xla
            from models import Leaf

            Leaf(torch.nn.Linear(2, 2).to(torch_xla.device())).fit([])
            """,
    })
    assert (16, "XLA201") in lint(top / "models.py")
    held = [entry[0] for entry in link._TREES.values() if entry is not None]
    assert any("Leaf" in t.locals for t in held)  # (models.py's tree is kept)
    for tree in held:
        for table in syntax_cache(tree).get("class_attrs", {}).values():
            for targets in table.values():
                assert all(node.root() is tree for node, _ in targets), targets


def test_a_loop_of_a_helper_module_that_a_script_drives_needs_a_barrier(tmp_path: Path) -> None:
    """XLA301: ``train.train(agent, n)`` runs its loop of updates (backward and an optimizer
    step in agent.py) from run.py's ``main()``, so it is the training loop, and it has no
    barrier. The same loop run from inside run2.py's step loop, which ends each step with
    ``torch_xla.sync()``, is a part of that step."""
    files = {
        "pyproject.toml": "",
        "agent.py": """\
            import torch


            class Agent:
                def __init__(self, device):
                    self.net = torch.nn.Linear(4, 2).to(device)
                    self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
                    self.device = device

                def update(self, obs):
                    loss = self.net(obs.to(self.device)).pow(2).mean()
                    self.opt.zero_grad()
                    loss.backward()
                    self.opt.step()
                    return loss
            """,
        "train.py": """\
            import torch


            def train(agent, n_episodes):
                losses = []
                for e in range(n_episodes):
                    losses.append(agent.update(torch.randn(8, 4)))
                return losses
            """,
    }
    driven = write(tmp_path / "a", {**files, "run.py": """\
        import torch_xla.core.xla_model as xm

        import train
        from agent import Agent


        def main():
            agent = Agent(xm.xla_device())
            train.train(agent, 1000)


        if __name__ == "__main__":
            main()
        """})
    assert [f for f in lint(driven / "train.py") if f[1] == "XLA301"] == [(6, "XLA301")]
    stepped = write(tmp_path / "b", {**files, "run.py": """\
        import torch_xla
        import torch_xla.core.xla_model as xm

        import train
        from agent import Agent


        def main():
            agent = Agent(xm.xla_device())
            for epoch in range(10):
                train.train(agent, 1)
                torch_xla.sync()


        if __name__ == "__main__":
            main()
        """})
    assert [f for f in lint(stepped / "train.py") if f[1] == "XLA301"] == []


def test_a_guarded_cuda_choice_in_a_helper_nothing_calls(tmp_path: Path) -> None:
    """XLA501: ``'cuda' if torch.cuda.is_available() else 'cpu'`` returned by a helper of
    a module that the XLA script imports places nothing when no module of the project
    calls the helper; the same helper called by the script is reported (on an XLA host
    it silently trains on the CPU)."""
    helpers = """\
        import torch

        import opt_utils


        def get_device(device="auto"):
            if isinstance(device, torch.device):
                return device
            if device == "auto":
                device = "cuda" if torch.cuda.is_available() else "cpu"
            return torch.device(device)


        def make_model():
            return torch.nn.Linear(4, 2)
        """
    # (helpers.py imports a module that shows XLA use: a module that may drive XLA code)
    opt_utils = "import torch_xla.amp.syncfree as syncfree\n\nAdamW = syncfree.AdamW\n"
    unused = write(tmp_path / "a", {"pyproject.toml": "", "helpers.py": helpers,
                                    "opt_utils.py": opt_utils, "train.py": """\
        import torch_xla

        from helpers import make_model

        model = make_model().to(torch_xla.device())
        """})
    assert [f for f in lint(unused / "helpers.py") if f[1] == "XLA501"] == []
    used = write(tmp_path / "b", {"pyproject.toml": "", "helpers.py": helpers,
                                  "opt_utils.py": opt_utils, "train.py": """\
        import torch_xla

        from helpers import get_device, make_model

        model = make_model().to(get_device())
        """})
    assert [f for f in lint(used / "helpers.py") if f[1] == "XLA501"] == [(10, "XLA501")]
    # (without a project, other modules cannot be seen: still reported)
    assert (10, "XLA501") in lint(unused / "helpers.py", target="all")
