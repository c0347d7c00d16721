"""Every test gets its own disk-cache folder, so that findings stored by one test (the
findings store of :mod:`flake8_xla.project.results`) never answer another's run.

Also the project of a symlinked module that two test files check (``symlinked_project``).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAKE8_XLA_CACHE_DIR", str(tmp_path_factory.mktemp("flake8-xla-cache")))
    monkeypatch.delenv("FLAKE8_XLA_NO_RESULTS", raising=False)


@pytest.fixture
def symlinked_project(tmp_path: Path) -> Path:
    """A project (its root, returned) whose ``train.py`` imports ``data``, where
    ``data.py`` is a symlink to ``data_v1.py``; ``make_loader()`` there builds a loader
    with a ragged last batch (line 6)."""
    top = tmp_path / "p"
    top.mkdir()
    (top / "pyproject.toml").write_text("")
    (top / "data_v1.py").write_text(textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, TensorDataset


        def make_loader():
            return DataLoader(TensorDataset(torch.randn(100, 4)), batch_size=32)
        """))
    (top / "train.py").write_text(textwrap.dedent("""\
        import torch
        import torch_xla
        import torch_xla.distributed.parallel_loader as pl

        from data import make_loader

        device = torch_xla.device()
        model = torch.nn.Linear(4, 2).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for (x,) in pl.MpDeviceLoader(make_loader(), device):
            model(x).sum().backward()
            opt.step()
        """))
    (top / "data.py").symlink_to(top / "data_v1.py")
    return top
