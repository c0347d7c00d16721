"""Every test gets its own disk-cache folder, so that findings stored by one test (the
findings store of :mod:`flake8_xla.project.results`) never answer another's run."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLAKE8_XLA_CACHE_DIR", str(tmp_path_factory.mktemp("flake8-xla-cache")))
    monkeypatch.delenv("FLAKE8_XLA_NO_RESULTS", raising=False)
