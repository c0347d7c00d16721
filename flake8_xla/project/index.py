"""The project index: the modules of one project, where imports lead, what is XLA code.

:class:`ProjectIndex` lists the ``.py`` files under the root (one ``os.scandir`` walk,
sorted, leaving out the folders of :func:`~flake8_xla.project.roots.skipped_dir`, at most
:data:`MAX_FILES`), and keeps per file an entry keyed by its size and modification
time: whether its text could show XLA use at all (:data:`~flake8_xla.project.xlause.XLA_TEXT`)
and, built only for the modules that are reached, its
:class:`~flake8_xla.project.summary.Summary`. Entries live in the on-disk cache
(:mod:`flake8_xla.project.cache`) between runs. Nothing is imported or executed; nothing
outside the root is read; a file that cannot be read or parsed has no summary.

**Module resolution** follows Python's import system over the listed files: for an
absolute name, the importing script's own folder (Python puts it first on ``sys.path``;
for a module inside a package it comes last), the folder above the file's outermost
package, the root and ``root/src``; a regular package (``__init__.py``) wins over a module
file, which wins over a namespace package (a folder of ``.py`` files without
``__init__.py``); relative imports climb from the importing file's package. The project
wins over any installed package: nothing outside the root is consulted.

**Library copies.** A module inside a package whose top-level name is a library the API
model describes (``torch_xla/`` at the root of the pytorch/xla repository,
``src/transformers/``) is that library's own source: its facts stand for it, so it is
never made XLA code by its importers and calls into it are not followed.

**XLA code** (:meth:`ProjectIndex.is_xla_code`, for ``--xla-target=auto``): a module that
shows XLA use itself, and every module that a *program* showing XLA use (a script, or a
module importing torch_xla unconditionally; see :mod:`flake8_xla.project.xlause`) imports
or calls into, directly or through other project modules. A module that cannot be
imported without torch_xla (it imports, unconditionally at its top level, a project module
that imports torch_xla there, through any chain: ``from utils import get_device``) is such a
program too, and so is a script (not a test module) that runs a function or class of a
module showing XLA use whose own code uses torch_xla (``device = get_device()``, with
torch_xla imported under ``try:``). A program that builds its objects from configuration
files (it imports Hydra, hyperpyyaml or OmegaConf) also reaches the project modules that the
project's YAML files name as classes to build (``_target_: pkg.models.Net``, LDM's
``target:``, Lightning CLI's ``class_path:``, hyperpyyaml's ``!new:pkg.flow.Flow``). The
answer depends only on the files on disk, never on which file the linter was started on.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import tokenize
import warnings
from collections import deque
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from flake8_xla.filefacts import FileFacts
from flake8_xla.project.cache import DiskCache, cache_dir
from flake8_xla.project.roots import Root, find_root, run_dir, skipped_dir
from flake8_xla.project.summary import Summary, summarize
from flake8_xla.project.xlause import mentions_xla

#: The most files one project index lists; beyond them a file is not in the project.
MAX_FILES = 50_000
#: The most modules whose facts the preconditions of one file read (see
#: :meth:`ProjectIndex.reach`); past it every rule runs.
MAX_REACH = 400
#: The disk-cache record of the XLA-code set and the import graph (see :meth:`ProjectIndex.xla_code`).
LAYOUT_RECORD = "layout"
#: Files larger than this are not summarized (generated code, data).
MAX_BYTES = 4_000_000
#: YAML files the index reads for the classes they name (see :meth:`ProjectIndex.xla_code`),
#: at most, and the largest one read. Only configuration files count (:func:`_config_file`).
MAX_CONFIGS = 2_000
MAX_CONFIG_BYTES = 256_000
#: Folders of configuration files (Hydra's ``conf/``, latent diffusion's ``configs/``).
_CONFIG_DIRS = frozenset({"conf", "confs", "config", "configs", "cfg", "cfgs", "hparams",
                          "recipes", "yamls"})
#: Folders whose YAML files are tests' or runs' output, never a program's configuration.
_NOT_CONFIG_DIRS = frozenset({"test", "tests", "testing", "lightning_logs", "wandb",
                              "mlruns", "outputs", "runs", "logs", "multirun"})
#: A class named in a configuration file: Hydra's ``_target_:``, latent-diffusion's
#: ``target:``, Lightning CLI's ``class_path:``, and hyperpyyaml's ``!new:``/``!name:``/
#: ``!apply:`` tags; a dotted name of two to eight parts (comments are dropped first).
_CONFIG_TARGET = re.compile(
    r"(?:(?:^|[\s{,])(?:_target_|target|class_path)[ \t]*:[ \t]*|!(?:new|name|apply):)"
    r"[\"']?([A-Za-z_]\w{0,63}(?:\.[A-Za-z_]\w{0,63}){1,7})\b", re.MULTILINE)
_YAML_COMMENT = re.compile(r"(?:^|[ \t])#.*$", re.MULTILINE)
#: Libraries through which a program builds what its configuration files name (a module
#: name or prefix it imports: Lightning CLI's ``class_path:`` through jsonargparse).
_CONFIG_LIBRARIES = ("hydra", "hyperpyyaml", "omegaconf", "hydra_zen", "jsonargparse",
                     "lightning.pytorch.cli", "pytorch_lightning.cli", "lightning.cli")


def _config_file(rel: str) -> bool:
    """A YAML file that may configure a program: in a configuration folder (``conf/``,
    ``configs/``) or named for one (``config.yaml``, ``train_cfg.yml``), not under a
    tests' or runs' folder (``tests/``, ``lightning_logs/``, ``wandb/``)."""
    parts = rel.lower().split("/")
    if any(p in _NOT_CONFIG_DIRS for p in parts[:-1]):
        return False
    stem = parts[-1].rsplit(".", 1)[0]
    return any(p in _CONFIG_DIRS for p in parts[:-1]) or "conf" in stem or "cfg" in stem
#: An import statement that starts a line (a top-level one, or one in a string: the
#: hints it gives are checked against the module's ast before they count).
_TOP_IMPORT = re.compile(
    rb"^(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)"
    rb"|import[ \t]+([^\n#;]+))", re.MULTILINE)
_WORD = re.compile(r"[A-Za-z_]\w*")
#: ``.name =`` / ``.name +=`` (an attribute assigned), not ``.name ==``.
_ASSIGNED_ATTR = re.compile(rb"\.([A-Za-z_]\w*)\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)")


def parse_quietly(text: str, filename: str) -> ast.Module:
    """``ast.parse`` of another project module, without the SyntaxWarnings (invalid
    escapes, ``is`` with a literal) that Python prints for that module's own code: the
    linter reads it for context, and only the checked files' problems are reported.
    Raises what ``ast.parse`` raises (SyntaxError, ValueError, RecursionError)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename)


def _import_hints(raw: bytes) -> list[str]:
    """The module and name words of the imports that start a line of ``raw`` (sorted):
    the words a top-level import of a project module must spell."""
    words: set[str] = set()
    for m in _TOP_IMPORT.finditer(raw):
        for group in m.groups()[1:]:
            if group:
                text = group.decode("ascii", "replace")
                words.update(w for w in _WORD.findall(text) if w != "as")
    return sorted(words)


#: torch_xla names through which a helper gives its caller the XLA device or runs XLA
#: steps (not a rank test, a seed or a checkpoint save beside a CUDA path).
_DRIVING = frozenset({"xla_device", "device", "mark_step", "sync", "optimizer_step",
                      "MpDeviceLoader", "ParallelLoader", "per_device_loader", "compile"})


def _test_module(rel: str) -> bool:
    """A test module by its path (``test_*.py``, ``*_test.py``, under ``tests/``)."""
    parts = rel.split("/")
    name = parts[-1]
    return name.startswith("test_") or name.endswith("_test.py") or any(
        p in ("test", "tests") for p in parts[:-1])


def _stem(rel: str) -> str:
    """The last name a module's import spells: ``pkg/utils.py`` → ``utils``, ``pkg/__init__.py``
    → ``pkg``, ``ns/`` → ``ns``."""
    rel = rel.rstrip("/")
    if rel.endswith("/__init__.py") or rel == "__init__.py":
        rel = _parent(rel)
    name = rel.rsplit("/", 1)[-1]
    return name.removesuffix(".py")


@lru_cache(maxsize=1)
def library_members() -> dict[str, frozenset[str]]:
    """For each top-level package the API model describes, the names it lists directly
    under it (``datasets``: ``load_dataset``, ``distributed``, ``Dataset``, ...)."""
    data = _api_data()
    out: dict[str, set[str]] = {}
    for table in ("calls", "prefixes"):
        for key in data.get(table, {}) or {}:
            parts = key.split(".")
            if len(parts) > 1 and parts[0].isidentifier() and parts[1].isidentifier():
                out.setdefault(parts[0], set()).add(parts[1])
    return {k: frozenset(v) for k, v in out.items()}


def _api_data() -> dict:
    """The API model's data file, read without loading the analysis ({} when missing)."""
    try:
        try:
            import tomllib as toml
        except ModuleNotFoundError:  # pragma: no cover - Python 3.10
            import tomli as toml  # type: ignore[no-redef]
        data_file = Path(__file__).resolve().parent.parent / "data" / "api_model.toml"
        with data_file.open("rb") as fh:
            return toml.load(fh)
    except Exception:  # noqa: BLE001 - no data: no library copies
        return {}


@lru_cache(maxsize=1)
def library_roots() -> frozenset[str]:
    """Top-level package names the API model describes (``torch``, ``torch_xla``, ...),
    read from ``flake8_xla/data/api_model.toml`` without loading the analysis."""
    data = _api_data()
    names: set[str] = set()
    for table in ("calls", "prefixes"):
        for key in data.get(table, {}) or {}:
            if "." in key:
                names.add(key.split(".", 1)[0])
    return frozenset(n for n in names if n.isidentifier())


def _decode(raw: bytes) -> str:
    """Source text as Python reads it (PEP 263 coding line, else UTF-8); ValueError if not."""
    import io

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise ValueError(str(exc)) from None


def _parent(rel: str) -> str:
    return rel.rsplit("/", 1)[0] if "/" in rel else ""


def _join(base: str, name: str) -> str:
    return f"{base}/{name}" if base else name


class ProjectIndex:
    """The index of the project at ``root`` (see the module docstring); one per process.

    Every method is safe on any tree: unreadable and unparseable files, cyclic and star
    imports, same-named modules in different folders, tens of thousands of files.
    """

    def __init__(self, root: Root, use_disk_cache: bool = True) -> None:
        self.root = root
        self.truncated = False
        self.files: dict[str, tuple[int, int]] = {}
        #: each module's status-change time (ns) and inode, which the findings store
        #: keys on besides size and mtime (an edit whose mtime was put back still shows)
        self.changes: dict[str, tuple[int, int]] = {}
        self.packages: set[str] = set()
        self.dirs: set[str] = set()
        #: the project's configuration files (YAML, :func:`_config_file`; at most
        #: :data:`MAX_CONFIGS`): ``rel -> (size, mtime, ctime, inode)``
        self.configs: dict[str, tuple[int, int, int, int]] = {}
        self._scanned = False
        self._fingerprint: str | None = None
        self._disk = DiskCache(cache_dir(root) if use_disk_cache else None, root)
        self._entries: dict[str, dict[str, Any]] = {}
        self._changed: set[str] = set()
        self._summaries: dict[str, Summary | None] = {}
        self._resolved: dict[tuple[str, str, int], str | None] = {}
        self._targets: dict[str, tuple[str, ...]] = {}
        self._xla: frozenset[str] | None = None
        self._programs: frozenset[str] = frozenset()
        self._saved_targets = 0
        self._library: dict[str, bool] = {}
        self._copies: dict[str, bool] = {}
        self._reverse_maps: dict[str, dict[str, list[str]]] = {}
        self._method_callers: dict[tuple[str, frozenset[str], bool], list[str]] = {}
        self._sibling_memo: dict[tuple[str, bool], list[str]] = {}
        self._lasts: dict[tuple[str, bool], frozenset[str]] = {}
        self._hints: dict[str, list[str]] | None = None
        self._xla_def_memo: dict[str, frozenset[str]] = {}
        self._facts: dict[str, FileFacts | None] = {}
        self._holds: tuple[str, str, bool] | None = None
        self._gate_facts: dict[tuple[str, bool], tuple[bool, FileFacts | None]] = {}
        self._assigned_attrs: dict[str, frozenset[str] | None] = {}
        self._sets_env: dict[tuple[str, tuple[str, ...]], bool] = {}
        #: :meth:`rel` of each path asked (the same file is asked for by the plugin, the
        #: findings store and the link session)
        self._rels: dict[str, str | None] = {}

    # ------------------------------------------------------------------ files
    def scan(self) -> None:
        """List the project's files (once); load the disk cache."""
        if self._scanned:
            return
        self._scanned = True
        stack = [""]
        while stack:
            rel_dir = stack.pop()
            folder = os.path.join(self.root.path, rel_dir) if rel_dir else str(self.root.path)
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            names = {e.name for e in entries}
            if rel_dir and "__init__.py" in names:
                self.packages.add(rel_dir)
            subdirs = []
            has_py = False
            for e in entries:
                try:
                    if e.is_dir(follow_symlinks=False):
                        subdirs.append(e.name)
                    elif e.name.endswith(".py") and (e.is_file(follow_symlinks=False) or (
                            e.is_symlink() and e.is_file() and self._inside(e.path))):
                        # (a module symlinked to a file of the project imports as the
                        # file; one pointing outside the root is never read)
                        if len(self.files) >= MAX_FILES:
                            self.truncated = True
                            continue
                        st = e.stat()
                        rel = _join(rel_dir, e.name)
                        self.files[rel] = (st.st_size, st.st_mtime_ns)
                        self.changes[rel] = (st.st_ctime_ns, st.st_ino)
                        has_py = True
                    elif e.name.endswith((".yaml", ".yml")) and \
                            len(self.configs) < MAX_CONFIGS and \
                            _config_file(_join(rel_dir, e.name)) and \
                            e.is_file(follow_symlinks=False):
                        st = e.stat()
                        if st.st_size <= MAX_CONFIG_BYTES:
                            self.configs[_join(rel_dir, e.name)] = (
                                st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
                except OSError:
                    continue
            if has_py:
                d = rel_dir
                while d and d not in self.dirs:
                    self.dirs.add(d)
                    d = _parent(d)
            for name in reversed(subdirs):
                sub = _join(rel_dir, name)
                if skipped_dir(name):
                    continue
                try:
                    with os.scandir(os.path.join(self.root.path, sub)) as it:
                        inner = {x.name for x in it}
                except OSError:
                    continue
                if skipped_dir(name, inner):
                    continue
                stack.append(sub)
        self._entries = self._disk.load()

    @property
    def cache_folder(self) -> Path | None:
        """The project's disk-cache folder (see :func:`~flake8_xla.project.cache.cache_dir`),
        or None when the disk cache is off or cannot be written."""
        return self._disk.folder

    def fingerprint(self) -> str:
        """A digest of the project as listed (once per process): the root and every
        module's path, size, modification time, status-change time and inode."""
        if self._fingerprint is None:
            self.scan()
            h = hashlib.sha256(str(self.root.path).encode("utf-8", "surrogateescape"))
            h.update(b"truncated" if self.truncated else b"whole")
            for rel in sorted(self.files):
                size, mtime = self.files[rel]
                ctime, inode = self.changes.get(rel, (0, 0))
                h.update(f"{rel}\0{size}\0{mtime}\0{ctime}\0{inode};".encode(
                    "utf-8", "surrogateescape"))
            for rel in sorted(self.configs):  # (what they name is XLA code, see xla_code)
                size, mtime, ctime, inode = self.configs[rel]
                h.update(f"config:{rel}\0{size}\0{mtime}\0{ctime}\0{inode};".encode(
                    "utf-8", "surrogateescape"))
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def _inside(self, path: str) -> bool:
        """``path`` (a symlink) resolves to a file under the root."""
        try:
            Path(os.path.realpath(path)).relative_to(self.root.path)
        except (ValueError, OSError):
            return False
        return True

    def rel(self, path: str | os.PathLike[str]) -> str | None:
        """The key of ``path`` in this index (posix, relative to the root), or None
        (memoised per path: the files are listed once per index)."""
        key = os.fspath(path)
        if key in self._rels:
            return self._rels[key]
        found = self._rels[key] = self._rel(path)
        return found

    def _rel(self, path: str | os.PathLike[str]) -> str | None:
        self.scan()
        try:
            # the path as named first: a module symlinked to another file of the project
            # is imported under its own name
            own = Path(os.path.abspath(os.fspath(path)))
            base = Path(os.path.realpath(own.parent))
            rel = (base / own.name).relative_to(self.root.path).as_posix()
            if rel in self.files:
                return rel
            rel = Path(os.path.realpath(own)).relative_to(self.root.path).as_posix()
        except (ValueError, OSError):
            return None
        return rel if rel in self.files else None

    def current(self, path: str | os.PathLike[str]) -> bool:
        """The file ``path`` is as this index listed it (size and modification time), or
        the index has not listed its files yet, or does not hold it. False after an edit
        in a long-lived process (an editor's language server, ``--fix`` rounds): its
        summary, facts and what other modules' analyses read of it are then out of date."""
        if not self._scanned:
            return True
        rel = self.rel(path)
        held = self.files.get(rel) if rel is not None else None
        if held is None:
            return True
        try:
            st = os.stat(self.path(rel))
        except OSError:
            return False
        return (st.st_size, st.st_mtime_ns) == held

    def path(self, rel: str) -> Path:
        """The absolute path of an index key."""
        return self.root.path / rel

    def _entry(self, rel: str) -> dict[str, Any]:
        """The file's entry, rebuilt when missing, stale or malformed."""
        size, mtime = self.files[rel]
        e = self._entries.get(rel)
        if e is not None and e.get("s") == size and e.get("m") == mtime and \
                isinstance(e.get("c"), bool) and isinstance(e.get("h"), list) and \
                not e.get("u"):
            return e
        e = {"s": size, "m": mtime, "c": False, "h": []}
        try:
            raw = self._read_bytes(rel)
            if raw is not None:
                e["c"] = mentions_xla(raw)
                e["h"] = _import_hints(raw)
        except OSError:
            e["u"] = True
        self._entries[rel] = e
        self._changed.add(rel)
        return e

    def summary(self, rel: str) -> Summary | None:
        """The module's summary (built and cached on first use); None when the file cannot
        be read, decoded or parsed, or is larger than :data:`MAX_BYTES`."""
        if rel in self._summaries:
            return self._summaries[rel]
        self.scan()
        if rel not in self.files:
            return None
        e = self._entry(rel)
        if "sum" in e and not e.get("u"):
            try:
                found = Summary.from_json(e["sum"]) if e["sum"] is not None else None
                self._summaries[rel] = found
                return found
            except ValueError:
                pass  # corrupt: rebuilt below
        return self._build(rel)[0]

    def assigned_attributes(self, rel: str) -> frozenset[str] | None:
        """Attribute names the module assigns to (``model.window = ...``, ``x.y +=``; by a
        scan of its text), or None when it cannot be read (memoised)."""
        memo = self._assigned_attrs
        if rel not in memo:
            raw = self._read_bytes(rel) if rel in self.files else None
            memo[rel] = None if raw is None else frozenset(
                m.decode("ascii", "replace") for m in _ASSIGNED_ATTR.findall(raw))
        return memo[rel]

    def sets_environment(self, rel: str, names: Iterable[str]) -> bool:
        """A module that ``rel`` imports, directly or through others (at most 200), sets
        one of the environment variables ``names`` (``os.environ["RANK"] = ...``,
        ``os.environ.setdefault("RANK", ...)``, or an ``os.environ.update(...)``; by a
        scan of the text, memoised)."""
        wanted = tuple(sorted(names))
        memo = self._sets_env
        key = (rel, wanted)
        if key not in memo:
            self.scan()
            seen = self._import_closure([rel], 199)
            words = b"|".join(re.escape(n.encode()) for n in wanted)
            pattern = re.compile(
                rb"environ\[\s*[\"'](?:" + words + rb")[\"']\s*\]\s*=(?!=)|"
                rb"environ\.setdefault\(\s*[\"'](?:" + words + rb")[\"']|environ\.update\(")
            found = False
            for other in sorted(seen - {rel}):
                raw = self._read_bytes(other)
                if raw is not None and b"environ" in raw and pattern.search(raw):
                    found = True
                    break
            memo[key] = found
        return memo[key]

    def facts(self, rel: str) -> FileFacts | None:
        """The module's :class:`~flake8_xla.filefacts.FileFacts` (stored with its summary);
        None when it has no summary."""
        if rel not in self._facts:
            if self.summary(rel) is not None and rel not in self._facts:
                # the summary came from the disk cache: so do its facts
                try:
                    self._facts[rel] = FileFacts.from_json(self._entry(rel).get("f"))
                except ValueError:  # corrupt: rebuilt with the summary
                    self._build(rel)
            self._facts.setdefault(rel, None)
        return self._facts[rel]

    def _read_bytes(self, rel: str) -> bytes | None:
        """The file's bytes, or None when it is larger than :data:`MAX_BYTES` (read no
        further). Raises OSError when it cannot be read."""
        with open(self.path(rel), "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
        return raw if len(raw) <= MAX_BYTES else None

    def holds_text(self, rel: str, source: str) -> bool:
        """The file of ``rel`` on disk decodes to ``source`` (False for an editor's unsaved
        buffer, or a file that cannot be read). The last answer is kept for the same
        ``source`` object: every question about one checked file reads it once."""
        held = self._holds
        if held is not None and held[0] == rel and held[1] is source:
            return held[2]
        try:
            raw = self._read_bytes(rel)
            same = raw is not None and _decode(raw) == source
        except (OSError, ValueError):
            same = False
        self._holds = (rel, source, same)
        return same

    def stored_facts(self, rel: str) -> FileFacts | None:
        """The module's facts when this index already holds them (computed in this process
        or read from the disk cache for the file as it is now), without reading or parsing
        the file; else None."""
        if rel in self._facts:
            return self._facts[rel]
        e = self._entries.get(rel)
        if e is None or rel not in self.files or (e.get("s"), e.get("m")) != self.files[rel] \
                or e.get("u") or not e.get("f") or "sum" not in e:
            return None
        return self.facts(rel)

    def _build(self, rel: str) -> tuple[Summary | None, FileFacts | None]:
        """Read and parse the module once: its summary and facts, stored in its entry."""
        found: Summary | None = None
        facts: FileFacts | None = None
        try:
            raw = self._read_bytes(rel)
            if raw is not None:
                text = _decode(raw)
                tree = parse_quietly(text, str(rel))
                found = summarize(tree, text)
                facts = FileFacts(tree)
        except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
            found = facts = None
        e = self._entry(rel)
        e["sum"] = found.to_json() if found is not None else None
        e["f"] = facts.to_json() if facts is not None else None
        self._changed.add(rel)
        self._summaries[rel] = found
        self._facts[rel] = facts
        return found, facts

    def reach(self, rel: str, *, every_module: bool = False) -> list[str] | None:
        """The modules whose code one check of ``rel`` may analyse through the project
        link: ``rel`` and the XLA-code modules importing it, directly or through others
        (any module, with ``every_module``), and every module those import, directly or
        through others (library copies left out); sorted. None past
        :data:`MAX_REACH` modules."""
        out = self._import_closure(self._upward(rel, every_module), MAX_REACH)
        return None if len(out) > MAX_REACH else sorted(out)

    def _import_closure(self, starts: Iterable[str], limit: int | None = None) -> set[str]:
        """``starts`` and every project module they import, directly or through others
        (breadth first, in sorted order); with ``limit``, the search stops once more than
        ``limit`` modules are found (the set returned is then partial)."""
        out = set(starts)
        queue = deque(sorted(out))
        while queue and (limit is None or len(out) <= limit):
            for t in self.import_targets(queue.popleft()):
                if t not in out:
                    out.add(t)
                    queue.append(t)
        return out

    def gate_facts(self, rel: str, own: FileFacts, *, every_module: bool = False
                   ) -> FileFacts | None:
        """The facts the rules' preconditions read for ``rel`` when values and step regions
        cross into it: ``own`` (the checked text's facts) merged with those of every other
        module of :meth:`reach`. None (no precondition can be trusted) when the reach is
        too large or a module of it has no facts."""
        key = (rel, every_module)
        if key not in self._gate_facts:
            reach = self.reach(rel, every_module=every_module)
            found = [self.facts(m) for m in reach or () if m != rel]
            others = [f for f in found if f is not None]
            trusted = reach is not None and len(others) == len(found)
            self._gate_facts[key] = (trusted, FileFacts.merged(others) if others else None)
            self.flush()
        trusted, merged = self._gate_facts[key]
        if not trusted:
            return None
        return FileFacts.merged([own, merged]) if merged is not None else own

    def load_record(self, kind: str, key: str) -> Any:
        """A record of the disk cache (see :meth:`DiskCache.load_record`), or None."""
        return self._disk.load_record(kind, key)

    def save_record(self, kind: str, key: str, record: Any) -> None:
        """Store a record in the disk cache (see :meth:`DiskCache.save_record`)."""
        self._disk.save_record(kind, key, record)

    def flush(self) -> None:
        """Write the entries built since the last flush to the disk cache."""
        if self._changed:
            for rel in list(self._entries):
                if rel not in self.files:
                    del self._entries[rel]
            self._disk.save(self._entries, self._changed)
            self._changed = set()

    # ------------------------------------------------------------------ resolution
    def _bases(self, importer: str) -> list[str | None]:
        """Folders absolute names start from, for a module of ``importer`` (None: the
        folder above an installed package's root)."""
        if self.root.import_base is not None:
            return [None]
        here = _parent(importer)
        in_package = here in self.packages
        out: list[str | None] = [] if in_package else [here]
        top = here
        while top in self.packages:
            top = _parent(top)
        out += [top, ""]
        if "src" in self.dirs:
            out.append("src")
        if in_package:
            out.append(here)
        seen: list[str | None] = []
        for b in out:
            if b not in seen:
                seen.append(b)
        return seen

    def _names_root(self, name: str) -> bool:
        """``name`` is the project root folder's name (``plm_surrogate`` for a clone in
        ``plm_surrogate/``, or a snapshot folder ``owner+plm_surrogate@commit``), with
        ``-`` and ``_`` alike, and no top-level module or folder of the project has it."""
        if name in self.dirs or f"{name}.py" in self.files:
            return False
        folder = self.root.path.name.split("@", 1)[0].rsplit("+", 1)[-1]

        def norm(text: str) -> str:
            return text.lower().replace("-", "_")

        return bool(folder) and norm(folder) == norm(name)

    def _find(self, base: str | None, parts: list[str]) -> str | None:
        if base is None:  # above an installed package's root: parts[0] names the root
            if not parts or parts[0] != self.root.path.name:
                return None
            if len(parts) == 1:
                return "__init__.py" if "__init__.py" in self.files else None
            base, parts = "", parts[1:]
        cur = base
        for i, part in enumerate(parts):
            d = _join(cur, part)
            if i == len(parts) - 1:
                if f"{d}/__init__.py" in self.files:
                    return f"{d}/__init__.py"
                if f"{d}.py" in self.files:
                    return f"{d}.py"
                if d in self.dirs:
                    return d + "/"
                return None
            if f"{d}/__init__.py" in self.files or d in self.dirs:
                cur = d
                continue
            return None
        return None

    def resolve(self, importer: str, module: str, level: int = 0) -> str | None:
        """The index key of module ``module`` imported by ``importer`` with ``level`` dots:
        a file (``pkg/mod.py``, ``pkg/__init__.py``), a namespace folder (``ns/``), or None."""
        self.scan()
        key = (importer if level else _parent(importer), module, level)
        if key in self._resolved:
            return self._resolved[key]
        parts = [p for p in module.split(".") if p] if module else []
        found: str | None = None
        if level:
            base = _parent(importer)
            for _ in range(level - 1):
                if not base:
                    base = None  # type: ignore[assignment]
                    break
                base = _parent(base)
            if base is not None:
                if parts:
                    found = self._find(base, parts)
                elif f"{_join(base, '__init__.py')}" in self.files:
                    found = _join(base, "__init__.py")
                elif base in self.dirs or base == "":
                    found = (base + "/") if base else None
        elif parts:
            bases = self._bases(importer)
            for b in bases:
                found = self._find(b, parts)
                if found is not None:
                    break
            else:
                # ``from runtime.trainer.base import Trainer`` in a module of
                # ``app/runtime/trainer/``, run by ``app/main.py``: the script's folder is
                # on sys.path, an ancestor of the importer's packages (``runtime`` is a
                # namespace folder). Only a module file counts from there, never a bare
                # folder (a library's name matching a folder of the project).
                cur = _parent(importer)
                while cur:
                    cur = _parent(cur)
                    if cur in bases or not cur:
                        continue
                    hit = self._find(cur, parts)
                    if hit is not None and not hit.endswith("/"):
                        found = hit
                        break
                if found is None and len(parts) > 1 and self._names_root(parts[0]):
                    # ``from plm_surrogate.model.architecture import ...`` in a clone of the
                    # repository ``plm_surrogate``, run from the folder above it: the first
                    # name is the repository's own folder (a module file only)
                    hit = self._find("", parts[1:])
                    if hit is not None and not hit.endswith("/"):
                        found = hit
        self._resolved[key] = found
        return found

    def resolve_name(self, importer: str, dotted: str) -> tuple[str, list[str]] | None:
        """A dotted name as the import table spells it (``utils.save_weights``,
        ``..data.make_loader``): the longest module prefix that resolves, and the rest.
        None when no prefix is a project module."""
        level = len(dotted) - len(dotted.lstrip("."))
        parts = dotted[level:].split(".") if dotted[level:] else []
        for n in range(len(parts), -1 if level else 0, -1):
            if n == 0 and not level:
                break
            target = self.resolve(importer, ".".join(parts[:n]), level)
            if target is not None:
                return target, parts[n:]
        return None

    def is_library(self, rel: str) -> bool:
        """The module is part of a library copy (see the module docstring)."""
        if rel in self._library:
            return self._library[rel]
        self.scan()
        d = rel[:-1] if rel.endswith("/") else _parent(rel)
        top_dir: str | None = None
        if self.root.import_base is not None:
            top_name: str | None = self.root.path.name
        else:
            top_name = None
            while d in self.packages:
                top_name, top_dir = d.rsplit("/", 1)[-1], d
                d = _parent(d)
        found = top_name is not None and top_name in library_roots() and (
            top_dir is None or self._copies_library(top_dir, top_name))
        self._library[rel] = found
        return found

    def _copies_library(self, top_dir: str, name: str) -> bool:
        """The top-level package ``top_dir``, named like the library ``name`` that the API
        model describes, is a copy of it: it has a module or subpackage named like one of
        the library's members that the model lists (``torch/nn``, ``datasets/load.py``),
        or its ``__init__`` defines or imports one (``load_dataset``). A project's own
        ``datasets`` package of dataset classes (``datasets/coco.py``, ``build_dataset``)
        is not: its modules are the project's."""
        memo = self._copies.get(top_dir)
        if memo is not None:
            return memo
        self.scan()
        members = library_members().get(name, frozenset())
        if not members:
            # (a library the model knows by a prefix alone, ``scipy.``: any package of
            # that name is taken for a copy, as before members were compared)
            self._copies[top_dir] = True
            return True
        found = any(f"{top_dir}/{m}.py" in self.files or f"{top_dir}/{m}" in self.packages
                    for m in members)
        init = f"{top_dir}/__init__.py"
        if not found and init in self.files:
            s = self.summary(init)
            found = s is None or bool(set(s.defs) & members) or any(
                n in members for _, _, names in s.imports for n in names)
        self._copies[top_dir] = found
        return found

    def import_targets(self, rel: str) -> tuple[str, ...]:
        """Project module files ``rel`` imports or calls into (library copies left out)."""
        if rel in self._targets:
            return self._targets[rel]
        s = self.summary(rel)
        out: list[str] = []
        if s is not None:
            for module, level, names in s.imports:
                found: list[str | None] = []
                if not names:
                    parts = module.split(".")
                    found += [self.resolve(rel, ".".join(parts[:i + 1]), level)
                              for i in range(len(parts))]
                else:
                    found.append(self.resolve(rel, module, level))
                    found += [self.resolve(rel, f"{module}.{n}" if module else n, level)
                              for n in names if n != "*"]
                out += [f for f in found if f is not None]
            for ref in s.refs:
                hit = self.resolve_name(rel, ref)
                if hit is not None:
                    out.append(hit[0])
        targets = tuple(sorted({t for t in out if t.endswith(".py") and t != rel and
                                not self.is_library(t)}))
        self._targets[rel] = targets
        return targets

    # ------------------------------------------------------------------ XLA code
    def xla_code(self) -> frozenset[str]:
        """Index keys of the modules that are XLA code (see the module docstring)."""
        if self._xla is not None:
            return self._xla
        self.scan()
        if self._load_layout():
            return self._xla  # type: ignore[return-value]
        direct: set[str] = set()
        programs: list[str] = []
        for rel in self.files:
            if not self._entry(rel)["c"]:
                continue
            s = self.summary(rel)
            if s is not None and s.xla:
                direct.add(rel)
                if s.program:
                    programs.append(rel)
        needing = self._needing_xla()
        direct |= needing
        drivers = self._drivers(direct)
        direct |= drivers
        spawned = self._spawned_by_name(direct)
        direct |= spawned
        programs = sorted(set(programs) | needing | drivers | spawned)
        reached = self._import_closure(set(programs) | self._configured(programs))
        self._programs = frozenset(programs)
        self._xla = frozenset(direct | reached)
        self.flush()
        self._save_layout()
        return self._xla

    def _xla_configs(self) -> list[str]:
        """The YAML files an XLA program may read: not one whose path says it is for GPUs
        (``conf/gpu.yaml``, ``configs/cuda/``; unless it also says TPU or XLA), nor one
        whose name only scripts without XLA use quote (``config_name="gpu"`` in a
        ``train_gpu.py``; a library module that loads it, such as an inference API's, may
        load it for the XLA program too)."""
        out = []
        quoted = self._quoted_config_names()
        for rel in sorted(self.configs):
            words = set(re.split(r"[^a-z0-9]+", rel.lower()))
            if words & {"gpu", "gpus", "cuda"} and not words & {"tpu", "tpus", "xla"}:
                continue
            base = rel.rsplit("/", 1)[-1]
            quoting = quoted.get(base.rsplit(".", 1)[0], set()) | quoted.get(base, set())
            if quoting and all((s := self.summary(m)) is not None and not s.xla and s.script
                               for m in quoting):
                continue
            out.append(rel)
        return out

    def _quoted_config_names(self) -> dict[str, set[str]]:
        """``name -> modules`` for each YAML file's name and stem that a module quotes
        (``config_name="tpu"``, ``"conf/tpu.yaml"``; by a scan of the text)."""
        names = {n for rel in self.configs for n in (
            rel.rsplit("/", 1)[-1], rel.rsplit("/", 1)[-1].rsplit(".", 1)[0])}
        out: dict[str, set[str]] = {}
        if not names:
            return out
        pattern = re.compile(rb"[\"'](?:[^\"'\n]*/)?(" + b"|".join(
            re.escape(n.encode()) for n in sorted(names, key=len, reverse=True)) + rb")[\"']")
        for rel in sorted(self.files):
            raw = self._read_bytes(rel)
            if raw is None:
                continue
            for m in pattern.finditer(raw):
                out.setdefault(m.group(1).decode("utf-8", "replace"), set()).add(rel)
        return out

    def _config_names(self, configs: Iterable[str]) -> list[str]:
        """The dotted class names the YAML files ``configs`` name (see
        :data:`_CONFIG_TARGET`), sorted; a file that cannot be read names none."""
        names: set[str] = set()
        for rel in configs:
            try:
                text = (self.root.path / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            text = _YAML_COMMENT.sub("", text)
            names.update(m.group(1) for m in _CONFIG_TARGET.finditer(text))
        return sorted(names)

    def _configured(self, programs: Iterable[str]) -> set[str]:
        """Project modules that the YAML files name as classes to build, for the programs
        that build from configuration (they import one of :data:`_CONFIG_LIBRARIES`),
        resolved from each such program."""
        builders = [rel for rel in programs if (s := self.summary(rel)) is not None and any(
            module == lib or module.startswith(lib + ".") for module, _, _ in s.imports
            for lib in _CONFIG_LIBRARIES)]
        if not builders or not self.configs:
            return set()
        out: set[str] = set()
        for dotted in self._config_names(self._xla_configs()):
            for rel in builders:
                hit = self.resolve_name(rel, dotted)
                # (the rest names a top-level definition of the module: ``target:
                # data.csv`` is a file name, not the class ``csv`` of ``data.py``)
                if hit is not None and hit[0].endswith(".py") and hit[1] and \
                        not self.is_library(hit[0]) and \
                        (found := self.summary(hit[0])) is not None and (
                            hit[1][0] in found.defs or any(
                                hit[1][0] in names for _, _, names in found.imports)):
                    # (``mypkg.models.UNet`` re-exported by ``mypkg/models/__init__.py``:
                    # the package and, through its imports, the defining module)
                    out.add(hit[0])
                    break
        return out

    def _spawned_by_name(self, direct: set[str]) -> set[str]:
        """Training scripts that a launcher of the project runs by name: when a module
        showing XLA use imports a script named at run time and spawns its ``_mp_fn``
        (Hugging Face's ``xla_spawn.py``), every module that could show XLA use and
        defines a top-level ``_mp_fn`` (the entry point that launcher calls, ``# For
        xla_spawn (TPUs)`` in the Hugging Face examples) is XLA code."""
        if not any((s := self.summary(rel)) is not None and s.spawns_by_name
                   for rel in direct):
            return set()
        out: set[str] = set()
        for rel in self.files:
            if rel in direct or not self._entry(rel)["c"] or self.is_library(rel):
                continue
            s = self.summary(rel)
            if s is not None and "_mp_fn" in s.defs:
                out.add(rel)
        return out

    def _layout_key(self) -> str:
        from flake8_xla.project.results import tool_fingerprint
        return f"{tool_fingerprint()}\0{self.fingerprint()}"

    def _load_layout(self) -> bool:
        """Take the XLA-code set, the programs and the modules' import targets from the
        disk cache, when they were computed by this very linter over the project exactly
        as it is listed now (:meth:`fingerprint`: every file's path and state); else
        False. A malformed record is ignored (recomputed)."""
        record = self._disk.load_record(LAYOUT_RECORD, self._layout_key())
        try:
            xla = frozenset(record["xla"])
            programs = frozenset(record["programs"])
            targets = {rel: tuple(t) for rel, t in record["targets"].items()}
            if not all(isinstance(x, str) and x in self.files
                       for x in xla | programs | set(targets) |
                       {t for ts in targets.values() for t in ts}):
                return False
        except (TypeError, KeyError, AttributeError, ValueError):
            return False
        self._xla, self._programs = xla, programs
        for rel, t in targets.items():
            self._targets.setdefault(rel, t)
        self._saved_targets = len(self._targets)
        return True

    def _save_layout(self) -> None:
        if self._xla is None:
            return
        self._saved_targets = len(self._targets)
        self._disk.save_record(LAYOUT_RECORD, self._layout_key(), {
            "xla": sorted(self._xla), "programs": sorted(self._programs),
            "targets": {rel: list(t) for rel, t in sorted(self._targets.items())}})

    def _drivers(self, direct: set[str]) -> set[str]:
        """Scripts that run XLA code of the project: a module with ``if __name__ ==
        "__main__":`` that imports a module showing XLA use and uses one of its functions or
        classes whose own code uses torch_xla (``device = get_device()`` from a helper that
        returns the XLA device, ``train_model(...)`` from a module whose step loop syncs),
        also in its ``__main__`` block. Such a
        script is a program of the XLA path: what it imports is XLA code. A test module is
        not (it runs the code under its test settings). Candidates are found by the words
        of their import lines (:func:`_import_hints`)."""
        found: set[str] = set()
        by_word = self._by_hint()
        for target in sorted(direct):
            if self.is_library(target):
                continue
            for rel in by_word.get(_stem(target), ()):
                if rel in direct or rel in found or self.is_library(rel):
                    continue
                if _test_module(rel):
                    continue  # a test runs the code under its test settings, not on XLA
                s = self.summary(rel)
                if s is None or not s.script:
                    continue
                used = {hit[1][0] for ref in s.refs
                        if (hit := self.resolve_name(rel, ref)) is not None and
                        hit[0] == target and hit[1]}
                if used and not used.isdisjoint(self._xla_defs(target)):
                    found.add(rel)
        return found

    def _xla_defs(self, rel: str) -> frozenset[str]:
        """Top-level functions and classes of ``rel`` whose own code makes the XLA device or
        runs XLA steps (``xm.xla_device()``, ``xm.mark_step()``, ``MpDeviceLoader``, an
        ``"xla"`` device string; not ``xm.is_master_ordinal()`` or ``xm.set_rng_state()``
        beside a CUDA path): the names through
        which a script runs the module's XLA code (``get_device()`` returning
        ``xm.xla_device()``), not its other helpers (a ``set_seed`` beside a TPU
        ``train()``). Empty when the file cannot be read or parsed."""
        found = self._xla_def_memo.get(rel)
        if found is not None:
            return found
        names: set[str] = set()
        try:
            raw = self._read_bytes(rel)
            tree = parse_quietly(_decode(raw), rel) if raw is not None else None
        except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            from flake8_xla.astwalk import walk
            from flake8_xla.imports import ImportTable
            from flake8_xla.project.xlause import name_chain
            bound = ImportTable(tree).names
            for stmt in tree.body:
                if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                for node in walk(stmt):
                    if isinstance(node, (ast.Name, ast.Attribute)):
                        chain = name_chain(node)
                        head = bound.get(chain[0]) if chain else None
                        if head is not None and head.split(".", 1)[0] in (
                                "torch_xla", "torch_xla_py") and \
                                (len(chain) > 1 and chain[-1] in _DRIVING or
                                 len(chain) == 1 and head.rsplit(".", 1)[-1] in _DRIVING):
                            names.add(stmt.name)
                            break
                    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                            node.value.split(":", 1)[0] == "xla":
                        names.add(stmt.name)
                        break
        found = self._xla_def_memo[rel] = frozenset(names)
        return found

    def _needing_xla(self) -> set[str]:
        """Modules that cannot be imported without torch_xla: those that import it
        unconditionally at their top level, and those that import such a module
        unconditionally at theirs, through any chain (a script whose device comes from
        ``utils.get_device()``, ``utils.py`` importing ``torch_xla.core.xla_model``).
        Candidates are found by the words of their import lines (:func:`_import_hints`);
        each is confirmed by its summary's top-level imports."""
        needing: set[str] = set()
        for rel in self.files:
            if self._entry(rel)["c"]:
                s = self.summary(rel)
                if s is not None and s.needs_xla:
                    needing.add(rel)
        if not needing:
            return needing
        by_word = self._by_hint()
        queue = deque(sorted(needing))
        while queue:
            target = queue.popleft()
            for rel in by_word.get(_stem(target), ()):
                if rel in needing or self.is_library(rel):
                    continue
                s = self.summary(rel)
                if s is None or not self._imports_any(rel, s.top, needing):
                    continue
                needing.add(rel)
                queue.append(rel)
        return needing

    def _imports_any(self, rel: str, imports: Iterable[tuple[str, int, tuple[str, ...]]],
                     among: set[str]) -> bool:
        """One of ``imports`` (as :class:`Summary` keeps them) of ``rel`` names a module of
        ``among``."""
        for module, level, names in imports:
            if self.resolve(rel, module, level) in among:
                return True
            for n in names:
                if n != "*" and self.resolve(
                        rel, f"{module}.{n}" if module else n, level) in among:
                    return True
        return False

    def is_xla_code(self, path: str | os.PathLike[str]) -> bool:
        """``path`` is XLA code by the project rule (False for a file outside the index)."""
        rel = self.rel(path)
        return rel is not None and rel in self.xla_code()

    def callers(self, rel: str, names: Iterable[str], *, every_module: bool = False,
                deep: bool = False) -> list[str]:
        """Modules that import ``rel`` (or call into it) and spell one of ``names`` as the
        last part of a name they use, sorted: the modules that are XLA code, or with
        ``every_module`` all of them (``--xla-target=all``). With ``deep``, only a use
        other than an import-time call counts (:attr:`Summary.deep`): the modules whose
        functions or loops may run those names."""
        table = self._reverse(every_module)
        wanted = set(names)
        return [m for m in table.get(rel, ()) if self._last_names(m, deep) & wanted or
                self._star_spells(m, wanted)]

    def _star_spells(self, rel: str, wanted: set[str]) -> bool:
        """``rel`` star-imports a module (``from onsets_and_frames import *``) and spells one
        of ``wanted`` somewhere: star-imported names are not in its summary's references."""
        s = self.summary(rel)
        if s is None or not _star_imports(s):
            return False
        facts = self.facts(rel)
        return facts is not None and bool(facts.idents & wanted)

    def calls_attr(self, rel: str, names: Iterable[str], *, unknown: bool = False) -> bool:
        """``rel`` calls an attribute named one of ``names`` (``x.train(...)``), by its
        syntax facts; ``unknown`` when the facts cannot be read."""
        facts = self.facts(rel)
        return unknown if facts is None else not facts.call_attrs.isdisjoint(names)

    def attr_callers(self, rel: str, methods: Iterable[str], *,
                     every_module: bool = False, hops: int = 3, limit: int = 64) -> list[str]:
        """Modules that import ``rel``, or import one of its importers (``hops`` steps up
        the import graph: a registry module that imports the subclasses, imported by the
        script), and call an attribute named one of ``methods`` (``trainer.train(...)`` on
        an object built from ``rel``'s class): nearest first, then sorted; XLA code, or
        with ``every_module`` any module. At most ``limit`` importers are looked at (a
        base module that half of a large project imports stays cheap)."""
        wanted = set(methods)
        table = self._reverse(every_module)
        out: list[str] = []
        seen = {rel}
        frontier = [rel]
        for _ in range(hops):
            nxt = []
            for m in (m for f in frontier for m in table.get(f, ())):
                if m in seen:
                    continue
                if len(seen) > limit:
                    return out
                seen.add(m)
                nxt.append(m)
                if self.calls_attr(m, wanted):
                    out.append(m)
            frontier = sorted(nxt)
        return out

    def method_callers(self, rel: str, methods: Iterable[str], *,
                       every_module: bool = False) -> list[str]:
        """Modules that may call methods of ``rel``'s objects without importing ``rel``:
        the other modules that a module importing ``rel`` also imports (the composition
        root ``train.py`` builds the model of ``model.py`` and hands it to the evaluator of
        ``evaluator.py``; also a module importing such an importer, the root that takes
        the class through a re-export), that call an attribute named one of ``methods``
        (``gen_model.generate(...)``). XLA code only, or with ``every_module`` any module;
        sorted, without ``rel``'s importers (see :meth:`callers`)."""
        wanted = frozenset(methods)
        key = (rel, wanted, every_module)
        found = self._method_callers.get(key)
        if found is not None:
            return found
        xla = None if every_module else self.xla_code()
        out: set[str] = set()
        importers = set(self._reverse(every_module).get(rel, ()))
        for m in self._siblings(rel, every_module):
            if m not in out and m not in importers and (xla is None or m in xla) and \
                    self.calls_attr(m, wanted):
                out.add(m)
        found = self._method_callers[key] = sorted(out)
        return found

    def _siblings(self, rel: str, every_module: bool) -> list[str]:
        """The modules that the importers of ``rel`` import (besides ``rel``), and the
        modules that the importers of those importers import (see
        :meth:`method_callers`), in a fixed order; memoised (a module that most of a large
        library imports, such as its ``utils``, has thousands of importers)."""
        key = (rel, every_module)
        found = self._sibling_memo.get(key)
        if found is None:
            table = self._reverse(every_module)
            importers = table.get(rel, [])
            known = set(importers)
            # (and the modules importing those: ``main.py`` builds the ``DataEncoder`` that
            # ``data.py`` re-exports from ``encoder.py`` and hands it to ``train.py``)
            parents = list(importers) + sorted({p for m in importers for p in table.get(m, ())
                                                if p != rel and p not in known})
            seen: set[str] = set()
            found = []
            for parent in parents:
                for m in self.import_targets(parent):
                    if m != rel and m not in seen:
                        seen.add(m)
                        found.append(m)
            self._sibling_memo[key] = found
        return found

    def neighbours(self, rel: str, *, every_module: bool = False) -> list[str]:
        """The project modules ``rel`` imports or calls into, then those that import it
        and are XLA code (any module, with ``every_module``): sorted within each group,
        without repeats."""
        out = list(self.import_targets(rel))
        out += [m for m in self._reverse(every_module).get(rel, ()) if m not in out]
        return out

    def linked(self, rel: str, *, every_module: bool = False) -> bool:
        """``rel`` imports a project module, or a module that is XLA code (any module, with
        ``every_module``) imports it: values and step regions may cross into it."""
        return bool(self.import_targets(rel)) or bool(self._reverse(every_module).get(rel))

    def used_by_xla_code(self, rel: str, name: str) -> bool:
        """A module that is XLA code and imports ``rel`` spells ``name`` (or imports ``*``
        from it)."""
        for m in self._reverse(False).get(rel, ()):
            other = self.summary(m)
            if name in self._last_names(m) or other is None or _star_imports(other):
                return True
        return False

    def reads_attribute(self, rel: str, owner: str, attr: str) -> bool:
        """A module of the project that imports ``rel`` reads ``owner.attr`` (a field of a
        class or object ``rel`` defines at its top level: ``CFG.device`` after ``from
        config import CFG``), by its import table's spelling of the names it uses, or
        star-imports from ``rel`` (one cannot tell)."""
        tail = f"{owner}.{attr}"
        for m in self._reverse(True).get(rel, ()):
            other = self.summary(m)
            if m == rel:
                continue
            if other is None or _star_imports(other) or any(
                    r == tail or r.endswith("." + tail) for r in other.refs):
                return True
        return False

    def used_nowhere(self, rel: str, name: str) -> bool:
        """``name``, a top-level definition of ``rel``, a module that shows no XLA use of
        its own nor imports one that does, is spelled by no other module of the project
        that imports ``rel`` (nor imported with ``*``): a helper the project never runs
        (``init_distributed_mode`` of a GPU launcher that the TPU script does not call).
        Syntax facts only; for ``--xla-target=auto``."""
        own = self.summary(rel)
        if own is None or own.xla or self.used_by_xla_code(rel, name) or any(
                (s := self.summary(t)) is None or s.xla for t in self.import_targets(rel)):
            return False  # (a module that drives XLA code may be run from outside)
        for m in self._by_hint().get(_stem(rel), ()):
            if m == rel or rel not in self.import_targets(m):
                continue
            other = self.summary(m)
            if other is None or name in self._last_names(m) or _star_imports(other):
                return False
        return True

    def spelled_elsewhere(self, rel: str, name: str) -> bool:
        """Another module of the project that imports ``rel`` spells ``name`` (or imports
        ``*`` from it), or one cannot tell (no summary): it may call what ``rel`` defines
        under that name. Syntax facts only."""
        for m in self._reverse(True).get(rel, ()):
            other = self.summary(m)
            if m != rel and (other is None or name in self._last_names(m) or _star_imports(other)):
                return True
        return False

    def launched_by_name(self, rel: str, name: str) -> bool:
        """Another module of the project imports torch_xla's launcher
        (``xla_multiprocessing``) and spells ``.<name>`` in its text: a launcher of the
        project's own, which imports scripts by path and spawns their ``name`` with the
        arguments it chooses (a copy of transformers' ``xla_spawn.py`` passing
        ``args=(seed,)`` to ``xmp.spawn(mod._mp_fn, ...)``). Reads only those modules."""
        needle = "." + name
        for m in self._by_hint().get("xla_multiprocessing", ()):
            if m == rel or self.is_library(m):
                continue
            try:
                raw = self._read_bytes(m)
            except OSError:
                continue
            if raw is not None and needle in _decode(raw):
                return True
        return False

    def used_only_off_xla(self, rel: str, name: str) -> bool:
        """``name``, a top-level definition of ``rel``, is used only by modules that are not
        XLA code: no module that is XLA code and imports ``rel`` spells ``name`` (nor
        imports ``*`` from it), and some other importer does (a ``build_loader_gpu``
        beside the ``build_loader_tpu`` that the TPU script calls). Syntax facts only;
        for ``--xla-target=auto`` (under ``all`` every module is XLA code)."""
        if self.used_by_xla_code(rel, name):
            return False
        # Evidence that another module uses it: the modules whose import lines spell the
        # module's name (the scan's words, so only those few are summarised; an
        # importer missed here only keeps the function on the XLA path).
        xla = self.xla_code()
        for m in self._by_hint().get(_stem(rel), ()):
            if m != rel and m not in xla and not self.is_library(m) and \
                    rel in self.import_targets(m) and name in self._last_names(m):
                return True
        return False

    def _by_hint(self) -> dict[str, list[str]]:
        """Import-line word -> the modules whose import lines spell it (from the scan)."""
        if self._hints is None:
            table: dict[str, list[str]] = {}
            for rel in self.files:
                for w in self._entry(rel)["h"]:
                    table.setdefault(w, []).append(rel)
            self._hints = table
        return self._hints

    def importers(self, rel: str) -> list[str]:
        """Every module of the project that imports ``rel``, directly or through others,
        sorted (``rel`` left out)."""
        return sorted(self._upward(rel, True) - {rel})

    def direct_importers(self, rel: str) -> tuple[str, ...]:
        """The modules of the project that import ``rel`` themselves."""
        return tuple(self._reverse(True).get(rel, ()))

    def _upward(self, rel: str, every_module: bool) -> set[str]:
        """``rel`` and the modules that import it, directly or through others (the XLA-code
        ones, or any with ``every_module``)."""
        reverse = self._reverse(every_module)
        up = {rel}
        queue = deque([rel])
        while queue:
            for m in reverse.get(queue.popleft(), ()):
                if m not in up:
                    up.add(m)
                    queue.append(m)
        return up

    def imported(self, rel: str, *, every_module: bool = False) -> bool:
        """A module that is XLA code (any module, with ``every_module``) imports ``rel``."""
        return bool(self._reverse(every_module).get(rel))

    def _reverse(self, every_module: bool) -> dict[str, list[str]]:
        key = "all" if every_module else "xla"
        found = self._reverse_maps.get(key)
        if found is None:
            sets: dict[str, set[str]] = {}
            among = self.files if every_module else self.xla_code()
            for m in sorted(among):
                for t in self.import_targets(m):
                    sets.setdefault(t, set()).add(m)
            # ``from models import Net`` with ``models/__init__.py`` re-exporting
            # ``from .net import Net``: the importers of a package reach the modules its
            # ``__init__`` imports (through nested packages too)
            for _ in range(4):
                grew = False
                for init in sorted(t for t in sets if t.endswith("__init__.py")):
                    for t in self.import_targets(init):
                        if t == init:
                            continue
                        into = sets.setdefault(t, set())
                        before = len(into)
                        had = t in into
                        into.update(sets[init])
                        if not had:
                            into.discard(t)
                        if len(into) != before:
                            grew = True
                if not grew:
                    break
            found = {t: sorted(importers) for t, importers in sets.items()}
            self._reverse_maps[key] = found
            self.flush()
            if len(self._targets) > self._saved_targets:
                self._save_layout()  # with the import targets of every XLA-code module
        return found

    def _last_names(self, rel: str, deep: bool = False) -> frozenset[str]:
        found = self._lasts.get((rel, deep))
        if found is None:
            s = self.summary(rel)
            found = frozenset(r.rsplit(".", 1)[-1] for r in (s.deep if deep else s.refs)
                              ) if s else frozenset()
            self._lasts[(rel, deep)] = found
        return found


def _star_imports(summary: Summary) -> bool:
    """The module star-imports from some module (``from helpers import *``): which of that
    module's names it uses cannot be told from its references."""
    return any("*" in names for _, _, names in summary.imports)


_INDEXES: dict[Path, ProjectIndex] = {}
#: :func:`index_for` of each (path, working folder) asked in this process: the plugin and
#: the file's analysis both ask it, and finding the root reads the file system
_INDEX_OF: dict[tuple[str, str | None], ProjectIndex | None] = {}
_INDEX_OF_MAX = 65_536


def index_for(path: str | os.PathLike[str]) -> ProjectIndex | None:
    """The (per-process) index of the project ``path`` belongs to, or None when it belongs
    to none (see :func:`~flake8_xla.project.roots.find_root`). Memoised per path and
    working folder until :func:`reset`."""
    key = (os.fspath(path), run_dir())  # (find_root reads both)
    if key in _INDEX_OF:
        index = _INDEX_OF[key]
        if index is None or index.current(path):
            return index
        _forget(index)  # the file changed since the index listed it: list the tree again
    root = find_root(path)
    index = None
    if root is not None:
        index = _INDEXES.get(root.path)
        if index is not None and not index.current(path):
            _forget(index)
            index = None
        if index is None:
            index = _INDEXES[root.path] = ProjectIndex(root)
    if len(_INDEX_OF) >= _INDEX_OF_MAX:
        _INDEX_OF.clear()
    _INDEX_OF[key] = index
    return index


def _forget(index: ProjectIndex) -> None:
    """Drop ``index`` from this process's tables (a later :func:`index_for` builds a new
    one, which lists the files again and rereads the disk cache)."""
    if _INDEXES.get(index.root.path) is index:
        del _INDEXES[index.root.path]
    for k in [k for k, v in _INDEX_OF.items() if v is index]:
        del _INDEX_OF[k]


def reset() -> None:
    """Forget every index of this process (tests; a long-lived process after edits)."""
    _INDEXES.clear()
    _INDEX_OF.clear()
