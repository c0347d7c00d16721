"""The findings store: a checked file's findings kept on disk until anything they depend on
changes, as ruff's cache keeps its results.

flake8 re-reads and re-checks every file on every run; most of them have not changed
since the last run (a pre-commit hook run on a whole tree, CI restoring its cache, an
editor linting the file it opened again). A file's findings are a function of

- its own text (the buffer flake8 was handed, which an editor may not have saved),
- the settings (:class:`~flake8_xla.context.Options` and the engine's switches),
- the linter itself: every file of the ``flake8_xla`` package (path, size and
  modification time, so that an edited development install never reuses old answers)
  and the astroid and Python versions,
- and, unless ``--xla-target=file``, the whole project: which modules are XLA code and
  what the calls across modules see are decided over all of its modules, so the key holds
  the project index's table of every module's path, size and modification time (the
  facts the index cache trusts, see :mod:`~flake8_xla.project.cache`) and each module's
  status-change time and inode, so that an edit whose modification time was put back
  (a copy that preserves times) still counts.

One small JSON file per checked file, ``results/<hash of its path>.json`` in the
project's cache folder (:func:`~flake8_xla.project.cache.cache_dir`), holds that key and
the findings; it is used only when the whole key matches, and is rewritten atomically
otherwise. So an edit anywhere in a project re-checks its files on the next run (their
answers may have changed), and an unchanged tree is answered from the store.

``FLAKE8_XLA_NO_CACHE=1`` turns every disk cache off; ``FLAKE8_XLA_NO_RESULTS=1`` only
this store (the index cache stays). A store that cannot be read or written is simply
not used: the file is then checked as usual.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from flake8_xla import __version__
from flake8_xla.project.cache import _atomic_write, cache_dir
from flake8_xla.project.roots import find_root

ENV_OFF = "FLAKE8_XLA_NO_RESULTS"
FORMAT = "flake8-xla findings"
#: Bumped when the stored entry's shape changes.
SCHEMA = 1
#: Engine switches that change what a run reports (see :mod:`flake8_xla.engine`).
ENGINE_ENV = ("FLAKE8_XLA_NO_GATES", "FLAKE8_XLA_STRICT")

#: One finding as stored: ``(line, col, message)``.
Stored = tuple[int, int, str]


def _off() -> bool:
    return any(os.environ.get(name, "") not in ("", "0")
               for name in (ENV_OFF, "FLAKE8_XLA_NO_CACHE"))


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """A digest of the linter itself: the version, every file of the installed
    ``flake8_xla`` package (relative path, size, modification time in ns), and the
    astroid and Python versions. Computed once per process (a few dozen ``stat`` calls)."""
    h = hashlib.sha256(f"{FORMAT} {SCHEMA} {__version__} {sys.version}".encode())
    package = Path(__file__).resolve().parent.parent
    for folder, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".py", ".toml", ".json", ".txt")):
                continue
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            h.update(f"{os.path.relpath(path, package)}:{st.st_size}:{st.st_mtime_ns};".encode())
    try:
        from importlib.metadata import version
        h.update(f"astroid {version('astroid')}".encode())
    except Exception:  # noqa: BLE001 - astroid's version unknown: the rest still keys it
        h.update(b"astroid ?")
    return h.hexdigest()


class FindingsStore:
    """The stored findings of one checked file (see the module docstring).

    Args:
        filename: the checked file as flake8 names it; a file that is not on disk (stdin)
            or belongs to no folder the cache can use is never stored.
        source: the text flake8 checks.
        options: the run's settings (any object whose ``repr`` names them all).
        index: the project index when the run is project-aware (``--xla-target`` auto or
            all), else None.
    """

    def __init__(self, filename: str, source: str, options: Any, index: Any) -> None:
        self.path: Path | None = None
        self.key = ""
        if _off():
            return
        try:
            if index is not None:
                folder = index.cache_folder  # the index found it already
            else:
                root = find_root(filename)
                folder = cache_dir(root) if root is not None else None
            if folder is None:
                return
            # the file by the name it is checked under: a module symlinked to another
            # file of the project is another module (see ProjectIndex.rel)
            named = os.path.abspath(filename)
            parts = [tool_fingerprint(), repr(options), named,
                     *(f"{k}={os.environ.get(k, '')}" for k in ENGINE_ENV),
                     hashlib.sha256(source.encode("utf-8", "surrogateescape")).hexdigest(),
                     index.fingerprint() if index is not None else "single file"]
            self.key = hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")
                                      ).hexdigest()
            name = hashlib.sha256(named.encode("utf-8", "surrogateescape")).hexdigest()[:24]
            self.path = folder / "results" / f"{name}.json"
        except Exception:  # noqa: BLE001 - no store: the file is checked as usual
            self.path = None

    def load(self) -> list[Stored] | None:
        """The stored findings when their key matches, else None (absent, stale, corrupt)."""
        if self.path is None:
            return None
        try:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
            if not isinstance(data, dict) or data.get("format") != FORMAT or \
                    data.get("key") != self.key:
                return None
            out: list[Stored] = []
            for item in data["findings"]:
                line, col, message = item
                if not (isinstance(line, int) and isinstance(col, int) and
                        isinstance(message, str)):
                    return None
                out.append((line, col, message))
            return out
        except (OSError, ValueError, TypeError, KeyError, UnicodeDecodeError, RecursionError):
            return None

    def save(self, findings: list[Stored]) -> None:
        """Store ``findings`` under this file's key (atomic; errors ignored)."""
        if self.path is None:
            return
        data = {"format": FORMAT, "key": self.key,
                "findings": [[line, col, message] for line, col, message in findings]}
        with contextlib.suppress(OSError, ValueError, TypeError):
            self.path.parent.mkdir(exist_ok=True)
            _atomic_write(self.path, json.dumps(data, separators=(",", ":")))


def stored_or_checked(filename: str, source: str, options: Any, index: Any,
                      check: Callable[[], list[Stored]]) -> list[Stored]:
    """The file's findings: from the store when its key matches, else ``check()`` (then
    stored). ``check`` raising propagates and stores nothing."""
    store = FindingsStore(filename, source, options, index)
    found = store.load()
    if found is not None:
        return found
    found = check()
    store.save(found)
    return found
