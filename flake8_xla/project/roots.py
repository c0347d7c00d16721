"""Project roots: which folder a checked file's project is, and what belongs to it.

The root of a file's project is the nearest folder above it that holds
``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git`` (as for ruff, mypy and
black). Without such a folder the root is the folder above the file's outermost
package (the folder of ``__init__.py`` files around it), which is the file's own folder
for a loose script; or, when flake8 runs in a folder a few levels above that one, the
folder it runs in (``flake8 .`` at the top of a copy without markers: a ``src`` folder
that is not a package, namespace packages). A file inside an installed package (under ``site-packages`` or
``dist-packages``) never belongs to the project above that folder: its project is its
top-level package, resolved from the ``site-packages`` folder.

Nothing outside the root is ever read. Folders that hold no project code are not part
of it: virtual environments and build output (ruff's default ``exclude`` plus
``__pycache__``), hidden folders, folders that are a project of their own (they hold a
marker), folders with a ``pyvenv.cfg``, and an interpreter's standard library
(``lib/python3.11``, which holds ``os.py`` and ``site.py``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
INSTALL_DIRS = frozenset({"site-packages", "dist-packages"})
#: ``lib/python3.11``: the standard library of a Python installation (a pyenv or conda
#: prefix inside a git checkout is not a project).
_STDLIB_DIR = re.compile(r"python\d+(\.\d+)?")
#: Folders that hold no project code (ruff's default ``exclude`` and caches).
SKIP_DIRS = frozenset({
    ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints",
    ".mypy_cache", ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache",
    ".svn", ".tox", ".venv", ".vscode", "__pypackages__", "_build", "buck-out", "build",
    "dist", "node_modules", "site-packages", "dist-packages", "venv", "__pycache__",
    ".flake8_xla_cache",
})


@dataclass(frozen=True)
class Root:
    """A project root.

    Attributes:
        path: the folder nothing outside of which is read (absolute, resolved).
        marked: True when a marker file made it the root (its cache may live inside).
        import_base: the folder dotted module names start from when it is not ``path``
            itself (the ``site-packages`` folder of an installed package), else None.
    """

    path: Path
    marked: bool
    import_base: Path | None = None


def _has_marker(folder: str) -> bool:
    return any(os.path.exists(os.path.join(folder, m)) for m in MARKERS)


#: How many folders above the fallback root (the folder above the outermost package) the
#: folder flake8 runs in may be and still be taken as the project (see :func:`_run_root`).
MAX_RUN_DIR_HOPS = 3


@lru_cache(maxsize=4096)
def _root_of_dir(folder: str, run_dir: str | None = None) -> Root | None:
    """The root for files in ``folder`` (an absolute, resolved path), when flake8 runs in
    ``run_dir`` (absolute and resolved, or None when unknown)."""
    start = Path(folder)
    cur = start
    while True:
        if cur.name in INSTALL_DIRS:
            return _installed_root(start, cur)
        if _has_marker(str(cur)):
            return Root(cur, True)
        if cur.parent == cur:
            break
        cur = cur.parent
    # No marker: the folder above the outermost package around the file.
    top = start
    while (top / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    return _run_root(top, run_dir) or Root(top, False)


def _run_root(top: Path, run_dir: str | None) -> Root | None:
    """The folder flake8 runs in as the root of an unmarked project: ``flake8 .`` at the top
    of a repository copied without its ``.git`` (a notebook's or a CI job's files) checks
    ``src/data/loaders.py`` (a package in a ``src`` folder that is not one) and the
    ``train.py`` beside ``src`` as one project, as it checks them in a git checkout. Taken
    only when it holds ``top`` at most :data:`MAX_RUN_DIR_HOPS` folders up, through no
    folder that holds no project code (:func:`skipped_dir`: a virtual environment, a
    standard library), and is neither the file system's root nor the home folder (an
    editor started there must not scan it); else None."""
    if run_dir is None:
        return None
    run = Path(run_dir)
    if run == top or run.parent == run:
        return None
    try:
        if run == Path.home():
            return None
        rel = top.relative_to(run)
    except (ValueError, RuntimeError, KeyError):
        return None
    if len(rel.parts) > MAX_RUN_DIR_HOPS:
        return None
    folder = run
    for part in rel.parts:
        # (a virtual environment or an interpreter's standard library on the way down:
        # the file is not project code of the folder flake8 runs in)
        folder = folder / part
        try:
            entries = set(os.listdir(folder))
        except OSError:
            return None
        if skipped_dir(part, entries):
            return None
    return Root(run, False)


def run_dir() -> str | None:
    """The current working folder, resolved (None when it is gone): where
    :func:`find_root` may stop looking for a marker."""
    try:
        return os.path.realpath(os.getcwd())
    except OSError:
        return None


def _installed_root(start: Path, site: Path) -> Root | None:
    """The top-level package under ``site`` that holds ``start``; None for ``site`` itself."""
    try:
        rel = start.relative_to(site)
    except ValueError:
        return None
    if not rel.parts:
        return None
    return Root(site / rel.parts[0], False, import_base=site)


def find_root(file: str | os.PathLike[str]) -> Root | None:
    """The project root of ``file`` (see the module docstring), or None.

    None when the file is not an existing regular file, lies directly in a
    ``site-packages`` folder, or sits in a folder that holds no project code
    (:data:`SKIP_DIRS`, a hidden folder) below its root. Never raises for a path.
    """
    try:
        path = Path(os.path.realpath(os.fspath(file)))
        if not path.is_file():
            return None
    except (OSError, ValueError):
        return None
    root = _root_of_dir(str(path.parent), run_dir())
    if root is None:
        return None
    try:
        rel = path.parent.relative_to(root.path)
    except ValueError:
        return None
    if any(part in SKIP_DIRS or part.startswith(".") for part in rel.parts):
        return None
    parts = rel.parts
    if any(parts[i].lower() == "lib" and _STDLIB_DIR.fullmatch(parts[i + 1].lower())
           for i in range(len(parts) - 1)):
        return None  # an interpreter's own library, not project code
    return root


def skipped_dir(name: str, entries: set[str] | None = None) -> bool:
    """A sub-folder the project scan leaves out: :data:`SKIP_DIRS`, hidden folders, and
    (given its entry names) a nested project or a virtual environment."""
    if name in SKIP_DIRS or name.startswith("."):
        return True
    return entries is not None and (any(m in entries for m in MARKERS) or
                                    "pyvenv.cfg" in entries or
                                    {"os.py", "site.py"} <= entries)  # a stdlib folder
