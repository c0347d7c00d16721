"""The API model: library facts read from ``flake8_xla/data/api_model.toml``.

What a library function returns (as an abstract value spec), and whether it syncs, runs
a step barrier, moves data, bounds shapes or steps an optimizer, lives in one data file.
The analysis and the rules ask :func:`model` for an :class:`Entry` by qualified name,
or by receiver kind and method name, and never type a library fact themselves.

Sources of the facts: the torch, torch_xla 2.9, transformers, accelerate, Lightning and
ignite APIs as documented by each project (the file's comments name the conventions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as _toml  # type: ignore[no-redef]

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "api_model.toml"


@dataclass(frozen=True)
class Entry:
    """What one library function or method does.

    Attributes:
        returns: the return spec (see the data file's header), or None (unknown).
        bare_returns: the return spec when the call passes no argument at all, if it
            differs (``t.type()`` names the type as a string; ``t.type(torch.half)`` casts).
        barrier: the call ends the XLA step.
        barrier_kw: a keyword that makes the call a barrier when it is truthy.
        sync: ``"scalar"``, ``"transfer"``, ``"read"``, ``"compare"``, ``"size"`` or
            ``"items"`` (how it reads a lazy tensor).
        sync_kw: a keyword that, when truthy, makes the call read its result on the host
            (``clip_grad_norm_(..., error_if_nonfinite=True)`` tests the norm in Python).
        effects: names such as ``"backward"``, ``"optimizer_step"``, ``"launch"``.
        bounds: the call bounds the shapes it produces.
        sizes: known dataset lengths by split (``{"train": 60000, "test": 10000}``).
        tokenizer_call: a tokenizer method that takes ``padding=``.
        name: the key the entry was found under.
    """

    returns: str | None = None
    bare_returns: str | None = None
    barrier: bool = False
    barrier_kw: str | None = None
    sync: str | None = None
    sync_kw: str | None = None
    effects: frozenset[str] = frozenset()
    bounds: bool = False
    sizes: tuple[tuple[str, int], ...] = ()
    tokenizer_call: bool = False
    name: str = ""

    def does(self, effect: str) -> bool:
        """True when ``effect`` is one of the entry's effects."""
        return effect in self.effects


def _entry(name: str, raw: dict) -> Entry:
    return Entry(
        returns=raw.get("returns"),
        bare_returns=raw.get("bare_returns"),
        barrier=bool(raw.get("barrier", False)),
        barrier_kw=raw.get("barrier_kw"),
        sync=raw.get("sync"),
        sync_kw=raw.get("sync_kw"),
        effects=frozenset(raw.get("effects", ())),
        bounds=bool(raw.get("bounds", False)),
        sizes=tuple(sorted((raw.get("sizes") or {}).items())),
        tokenizer_call=bool(raw.get("tokenizer_call", False)),
        name=name,
    )


class ApiModel:
    """The parsed data file. Raises ValueError when the file is malformed."""

    def __init__(self, data: dict) -> None:
        try:
            self.calls = {k: _entry(k, v) for k, v in data.get("calls", {}).items()}
            self.prefixes = sorted(((k, _entry(k, v)) for k, v in data.get("prefixes", {}).items()),
                                   key=lambda kv: -len(kv[0]))
            self.patterns = [(re.compile(k), _entry(k, v))
                             for k, v in data.get("patterns", {}).items()]
            self.methods = {kind: {m: _entry(f"{kind}.{m}", v) for m, v in table.items()}
                            for kind, table in data.get("methods", {}).items()}
        except (AttributeError, TypeError, re.error) as exc:
            raise ValueError(f"malformed API model: {exc}") from exc
        self._memo: dict[str, Entry | None] = {}
        self._exact: dict[str, bool] = {}

    def call(self, qualname: str | None) -> Entry | None:
        """The entry for a qualified name: exact, then patterns, then the longest prefix."""
        if not qualname:
            return None
        if qualname in self._memo:
            return self._memo[qualname]
        found = self.calls.get(qualname)
        if found is None:
            for pattern, entry in self.patterns:
                if pattern.match(qualname):
                    found = entry
                    break
        if found is None:
            for prefix, entry in self.prefixes:
                if qualname.startswith(prefix):
                    found = entry
                    break
        self._memo[qualname] = found
        return found

    def exact(self, qualname: str) -> bool:
        """``qualname`` has an entry of its own or matches a pattern (not only a prefix
        such as ``datasets.``, which a project package of that name may shadow)."""
        found = self._exact.get(qualname)
        if found is None:
            found = self._exact[qualname] = qualname in self.calls or any(
                p.match(qualname) for p, _ in self.patterns)
        return found

    def method(self, kind: str, name: str) -> Entry | None:
        """The entry for method ``name`` of a value of ``kind`` (a Kind value string)."""
        table = self.methods.get(kind)
        return table.get(name) if table else None

    def names_with(self, *, effect: str | None = None, barrier: bool = False,
                   returns_prefix: str | None = None) -> frozenset[str]:
        """Qualified names of [calls] entries with ``effect``, a barrier, or such a return."""
        out = set()
        for name, e in self.calls.items():
            if effect is not None and effect in e.effects or barrier and (e.barrier or e.barrier_kw) or returns_prefix is not None and (e.returns or "").startswith(returns_prefix):
                out.add(name)
        return frozenset(out)

    def method_names(self, *, effect: str | None = None, sync: str | None = None,
                     kinds: tuple[str, ...] | None = None) -> frozenset[str]:
        """Method names (any receiver kind, or those of ``kinds``) with ``effect`` or ``sync``."""
        out = set()
        for kind, table in self.methods.items():
            if kinds is not None and kind not in kinds:
                continue
            for name, e in table.items():
                if (effect is not None and effect in e.effects) or (
                        sync is not None and e.sync == sync):
                    out.add(name)
        return frozenset(out)


@lru_cache(maxsize=1)
def model() -> ApiModel:
    """The API model of the installed package (parsed once per process)."""
    with DATA_FILE.open("rb") as fh:
        return ApiModel(_toml.load(fh))
