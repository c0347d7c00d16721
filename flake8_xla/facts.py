"""API facts read from the released wheels: the data files under ``flake8_xla/data/``.

``xla_api.json`` says, for every public name of the public torch_xla modules, which
minor releases have it, which release deprecated it (and the replacement the
deprecation names) and which removed it. ``torchtpu_api.json`` holds the public
``torch.tpu`` table of torch-tpu and the traps its sources show. Both are written by
``scripts/api_facts.py`` from the wheels on the package index (read with ``ast``,
never imported). Rules and messages take every version fact from here; none types
one.

Versions are ``(major, minor)`` tuples such as ``(2, 9)``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

Version = tuple[int, int]

DATA_DIR = Path(__file__).resolve().parent / "data"
XLA_DATA = "xla_api.json"
TPU_DATA = "torchtpu_api.json"

#: The short spellings torch_xla's own docs and examples use for its modules.
#: Display only: ``xm.mark_step`` reads better than the qualified name.
SHORT_NAMES: tuple[tuple[str, str], ...] = (
    ("torch_xla.core.xla_model.", "xm."),
    ("torch_xla.runtime.", "xr."),
    ("torch_xla.distributed.xla_multiprocessing.", "xmp."),
    ("torch_xla.distributed.parallel_loader.", "pl."),
    ("torch_xla.debug.metrics.", "met."),
    ("torch_xla.distributed.spmd.", "xs."),
)


def version_text(version: Version) -> str:
    """``(2, 9)`` -> ``'2.9'``."""
    return f"{version[0]}.{version[1]}"


def parse_version(text: str) -> Version:
    """``'2.9.0+cpu'`` -> ``(2, 9)``. Raises ValueError when no ``major.minor`` is found."""
    m = re.match(r"\s*(\d+)\.(\d+)", text)
    if not m:
        raise ValueError(f"not a torch_xla version: {text!r} (expected e.g. 2.9)")
    return int(m.group(1)), int(m.group(2))


def _as_version(text: str) -> Version:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def short_name(qualname: str) -> str:
    """The conventional short spelling: ``torch_xla.core.xla_model.mark_step`` -> ``xm.mark_step``."""
    for prefix, short in SHORT_NAMES:
        if qualname.startswith(prefix):
            return short + qualname[len(prefix):]
    return qualname


@dataclass(frozen=True)
class NameFacts:
    """What the wheels say about one qualified name.

    Attributes:
        qualname: e.g. ``torch_xla.core.xla_model.mark_step``.
        kind: ``function``, ``class``, ``value`` or ``module`` (in the newest release
            that has it).
        releases: the minor releases in which ``import module; getattr(module, name)``
            succeeds (for a module: ``import`` succeeds).
        deprecated_in: the first release whose sources mark it deprecated, or None.
        replacement: the API the deprecation names (or, for an API removed without a
            notice, the replacement a ``checks/`` script runs), or None.
        message: the deprecation's text ('' when none).
        removed_in: the first release after the last one that has it, or None.
    """

    qualname: str
    kind: str
    releases: tuple[Version, ...]
    deprecated_in: Version | None = None
    replacement: str | None = None
    message: str = ""
    removed_in: Version | None = None

    def present(self, version: Version) -> bool:
        """True when ``version`` has the name."""
        return version in self.releases

    def removed_at(self, version: Version, known: tuple[Version, ...]) -> Version | None:
        """The release that removed the name, if an earlier release had it and ``version``
        does not; None when ``version`` has it or it only appeared later.

        ``known`` is the sorted tuple of releases the facts cover.
        """
        if self.present(version):
            return None
        earlier = [r for r in self.releases if r < version]
        if not earlier:
            return None
        later = [r for r in known if r > earlier[-1]]
        return later[0] if later else None

    def deprecated_at(self, version: Version) -> bool:
        """True when ``version`` has the name and marks it deprecated."""
        return self.present(version) and self.deprecated_in is not None and \
            self.deprecated_in <= version


class XlaApi:
    """The torch_xla facts of ``xla_api.json``.

    Attributes:
        releases: the minor releases read, oldest first, e.g. ``((2, 1), ..., (2, 9))``.
        wheels: ``{'2.9': {'file': ..., 'sha256': ..., 'version': '2.9.0'}, ...}``.
        names: ``{qualified name: NameFacts}``.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        self.releases: tuple[Version, ...] = tuple(
            sorted(_as_version(r) for r in data["releases"]))
        self.wheels: dict[str, dict[str, str]] = data.get("wheels", {})
        self._raw_names: dict[str, dict[str, Any]] = data["names"]

    @cached_property
    def names(self) -> dict[str, NameFacts]:
        """``{qualified name: NameFacts}`` (built on first use: option parsing needs only
        the releases)."""
        out: dict[str, NameFacts] = {}
        for qualname, entry in self._raw_names.items():
            dep = entry.get("deprecated") or {}
            repl = dep.get("replacement") or (entry.get("replacement") or {}).get("name")
            out[qualname] = NameFacts(
                qualname=qualname, kind=entry["kind"],
                releases=tuple(_as_version(r) for r in entry["releases"]),
                deprecated_in=_as_version(dep["release"]) if dep.get("release") else None,
                replacement=repl, message=dep.get("message") or "",
                removed_in=_as_version(entry["removed"]) if entry.get("removed") else None)
        return out

    @property
    def newest(self) -> Version:
        """The newest release the facts cover (the default ``--xla-version``)."""
        return self.releases[-1]

    def accepted_versions(self) -> tuple[Version, ...]:
        """Every ``--xla-version`` accepted: the releases read, plus the earlier minors of
        the first release's major that have no wheel (2.0: read with the 2.1 facts)."""
        first = self.releases[0]
        return tuple((first[0], m) for m in range(first[1])) + self.releases

    def facts_version(self, version: Version) -> Version:
        """The release whose facts answer for ``version`` (2.0 -> 2.1); clamps to the range."""
        if version < self.releases[0]:
            return self.releases[0]
        if version > self.releases[-1]:
            return self.releases[-1]
        return version

    def lookup(self, qualname: str) -> NameFacts | None:
        """The facts of the longest known prefix of ``qualname`` (``xm.mark_step.__doc__``
        -> ``xm.mark_step``; an unknown name of a known module -> the module), or None
        outside the covered modules."""
        parts = qualname.split(".")
        for i in range(len(parts), 0, -1):
            found = self.names.get(".".join(parts[:i]))
            if found is not None:
                return found
        return None

    def present(self, qualname: str, version: Version) -> bool:
        """True when ``version`` has ``qualname`` (unknown names count as present)."""
        found = self.names.get(qualname)
        return found is None or found.present(self.facts_version(version))

    def spelling(self, qualname: str, version: Version, call: bool = True) -> str:
        """How the targeted release spells the API ``qualname``: its deprecation's
        replacement once deprecated (``torch_xla.sync()`` for ``xm.mark_step`` from 2.8
        on), else the short name (``xm.mark_step()``)."""
        version = self.facts_version(version)
        name = qualname
        facts = self.names.get(qualname)
        if facts is not None and facts.deprecated_at(version) and facts.replacement and \
                self.present(facts.replacement, version):
            name = facts.replacement
        return short_name(name) + ("()" if call and "(" not in name else "")


@cache
def _load(name: str) -> dict[str, Any]:
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


@cache
def xla_api() -> XlaApi:
    """The torch_xla facts (loaded once per process)."""
    return XlaApi(_load(XLA_DATA))


@cache
def torchtpu_api() -> dict[str, Any]:
    """The torch-tpu facts: ``version``, ``torch_requirement``, ``torch_min``, ``public``
    (``{'torch.tpu.synchronize': {'stage': ..., 'prefer': ..., 'file': ..., 'line': ...}}``)
    and ``traps`` (``{'compile_dynamic_true': {'file': ..., 'line': ..., 'message': ...}}``)."""
    return _load(TPU_DATA)


def check_version(text: str) -> Version:
    """Parse and validate an ``--xla-version`` value.

    Returns ``(major, minor)``. Raises ValueError with a message naming the accepted
    range when the text is not a version or not a release the facts cover.
    """
    version = parse_version(text)
    api = xla_api()
    accepted = api.accepted_versions()
    if version not in accepted:
        first, newest = api.releases[0], api.newest
        older = ", ".join(version_text(v) for v in accepted if v < first)
        raise ValueError(
            f"torch_xla {version_text(version)} is not a release flake8-xla knows: use "
            f"{version_text(accepted[0])} ... {version_text(newest)}"
            + (f" ({older}: read as {version_text(first)}, the first release with a wheel)"
               if older else ""))
    return version
