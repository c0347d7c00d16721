"""The on-disk cache of the project index, shared by flake8 ``-jN`` workers and editor runs.

Where it lives (the first that applies):

1. ``$FLAKE8_XLA_CACHE_DIR/projects/<hash of the root>/`` when that variable is set;
2. ``<root>/.flake8_xla_cache/`` when a marker file made the folder the root and it is
   writable, as ruff's ``.ruff_cache`` and mypy's ``.mypy_cache`` (the folder holds a
   ``.gitignore`` of ``*`` and a ``CACHEDIR.TAG``, so git and backup tools skip it);
3. ``$XDG_CACHE_HOME/flake8-xla/projects/<hash>/`` (default ``~/.cache/...``) otherwise,
   e.g. for an installed package or a folder without a marker.

``FLAKE8_XLA_NO_CACHE=1`` turns the disk cache off (the index is then rebuilt in each
process). Deleting the folder is always safe.

Records that depend on several modules (the calls one module's step region makes into
the others, :mod:`flake8_xla.project.link`) are kept one file each under a subfolder
(``steps/``), with the files they read and their state, checked before use.

One JSON file holds an entry per module, keyed by its path relative to the root and
valid only while the file's size and modification time (ns) are those recorded; a
stale entry, a malformed one, or a file written by another schema or linter (another
version, or the same version with other package files) is rebuilt, never trusted. Writes are atomic (a temporary file in the same folder, then
``os.replace``), and a writer first merges the entries another worker saved meanwhile,
so two workers writing at once lose at most some work, never the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from flake8_xla import __version__
from flake8_xla.project.roots import Root
from flake8_xla.project.summary import SCHEMA

CACHE_DIR_NAME = ".flake8_xla_cache"
ENV_DIR = "FLAKE8_XLA_CACHE_DIR"
ENV_OFF = "FLAKE8_XLA_NO_CACHE"
INDEX_NAME = "index.json"
FORMAT = "flake8-xla project index"
_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
        "# This file is a cache directory tag created by flake8-xla.\n"
        "# For information about cache directory tags see https://bford.info/cachedir/\n")


def _writable_dir(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / ".gitignore").exists():
            _atomic_write(folder / ".gitignore", "# Created by flake8-xla automatically.\n*\n")
        if not (folder / "CACHEDIR.TAG").exists():
            _atomic_write(folder / "CACHEDIR.TAG", _TAG)
        return os.access(folder, os.W_OK)
    except OSError:
        return False


def _root_hash(root: Root) -> str:
    return hashlib.sha256(str(root.path).encode("utf-8", "surrogateescape")).hexdigest()[:16]


def cache_dir(root: Root) -> Path | None:
    """The cache folder of ``root`` (see the module docstring), or None when off or when
    no folder can be written."""
    if os.environ.get(ENV_OFF, "") not in ("", "0"):
        return None
    env = os.environ.get(ENV_DIR)
    if env:
        folder = Path(env) / "projects" / _root_hash(root)
        return folder if _writable_dir(folder) else None
    if root.marked:
        folder = root.path / CACHE_DIR_NAME
        if _writable_dir(folder):
            return folder
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "flake8-xla" / "projects" / _root_hash(root)
    return folder if _writable_dir(folder) else None


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``."""
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class DiskCache:
    """The index entries of one project on disk (see the module docstring).

    Entries are plain dicts ``{"s": size, "m": mtime_ns, ...}``; the index gives them
    their meaning. Every method swallows I/O errors: a cache that cannot be read is
    empty, one that cannot be written is not written.
    """

    def __init__(self, folder: Path | None, root: Root) -> None:
        self.folder = folder
        self.root = root
        self.path = folder / INDEX_NAME if folder is not None else None

    def _header(self) -> dict[str, Any]:
        # the linter itself (its version and every file of the package): a summary made
        # by other code (an upgrade, an install from a newer checkout) is not trusted
        from flake8_xla.project.results import tool_fingerprint
        return {"format": FORMAT, "schema": SCHEMA, "version": __version__,
                "tool": tool_fingerprint(), "root": str(self.root.path)}

    def load(self) -> dict[str, dict[str, Any]]:
        """The stored entries (empty when absent, unreadable, malformed or of another
        schema, linter version or root)."""
        if self.path is None:
            return {}
        try:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return {}
        if not isinstance(data, dict) or any(data.get(k) != v for k, v in self._header().items()):
            return {}
        files = data.get("files")
        if not isinstance(files, dict):
            return {}
        return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, dict)}

    def save(self, entries: dict[str, dict[str, Any]], changed: set[str]) -> None:
        """Store ``entries`` (every module of the project), keeping what another worker
        stored meanwhile for the keys this one did not change and dropping the entries of
        files that are gone; atomic."""
        if self.path is None or not changed:
            return
        merged = {k: v for k, v in self.load().items() if k in entries}
        for key, entry in entries.items():
            if key in changed or key not in merged:
                merged[key] = entry
        data = {**self._header(), "files": merged}
        try:
            _atomic_write(self.path, json.dumps(data, separators=(",", ":"), sort_keys=True))
        except (OSError, ValueError, TypeError):
            return

    def load_record(self, kind: str, key: str) -> Any:
        """A record stored by :meth:`save_record` (None when absent, unreadable, malformed
        or written under another header or ``key``). Records live in
        ``<folder>/<kind>/<digest of key>.json``, one file each."""
        path = self._record_path(kind, key)
        if path is None:
            return None
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("key") != key or \
                any(data.get(k) != v for k, v in self._header().items()):
            return None
        return data.get("record")

    def save_record(self, kind: str, key: str, record: Any) -> None:
        """Store ``record`` (JSON-ready) under ``key``; atomic, last writer wins."""
        path = self._record_path(kind, key)
        if path is None:
            return
        try:
            path.parent.mkdir(exist_ok=True)
            _atomic_write(path, json.dumps({**self._header(), "key": key, "record": record},
                                           separators=(",", ":")))
        except (OSError, ValueError, TypeError):
            return

    def _record_path(self, kind: str, key: str) -> Path | None:
        if self.folder is None:
            return None
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]
        return self.folder / kind / f"{digest}.json"
