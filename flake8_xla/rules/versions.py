"""XLA507/XLA508: torch_xla APIs removed or deprecated in the targeted release.

Every fact comes from ``flake8_xla/data/xla_api.json`` (:mod:`flake8_xla.facts`),
which ``scripts/api_facts.py`` reads from the torch_xla wheels of 2.1 ... 2.9.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar

from astroid import nodes

from flake8_xla.analysis.paths import caught_types
from flake8_xla.context import Finding
from flake8_xla.facts import NameFacts, short_name, version_text, xla_api
from flake8_xla.imports import canonical
from flake8_xla.rules.base import Rule


def _removed_table() -> dict[str, NameFacts]:
    api = xla_api()
    return {q: f for q, f in api.names.items()
            if any(f.removed_at(v, api.releases) for v in api.releases)}


def _deprecated_table() -> dict[str, NameFacts]:
    return {q: f for q, f in xla_api().names.items() if f.deprecated_in is not None}


class _VersionRule(Rule):
    """Reports uses of the names in ``table`` for which :meth:`_hit` answers."""

    #: qualified name -> facts: the names this rule can report (the engine's gate
    #: takes the last part of each key).
    table: ClassVar[dict[str, NameFacts]] = {}

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        target = xla_api().facts_version(self.ctx.options.version)
        lasts = self._last_parts()
        for node in an.module_nodes((nodes.Attribute, nodes.ImportFrom, nodes.Import)):
            if isinstance(node, nodes.Import):
                for name, _ in node.names:
                    fmt = self._hit(canonical(name), target)
                    if fmt and not _compat_shim(node, target):
                        yield self.finding(node, **fmt)
                continue
            if isinstance(node, nodes.ImportFrom):
                for name, _ in node.names:
                    # This statement's own module, not the file-wide table: a name
                    # imported twice (try/except shims, branches) stays apart.
                    if name == "*" or node.level:
                        continue
                    fmt = self._hit(canonical(f"{node.modname}.{name}"), target)
                    if fmt and not _compat_shim(node, target):
                        yield self.finding(node, **fmt)
                continue
            if isinstance(node.parent, nodes.Attribute) or node.attrname not in lasts:
                continue  # report the longest chain once; syntax first
            q = an.qualname(node)
            fmt = self._hit(q, target) if q else None
            if fmt and not _compat_shim(node, target):
                yield self.finding(node, **fmt)

    @classmethod
    def _last_parts(cls) -> frozenset[str]:
        """The last parts of the table's names (an Attribute can only match one)."""
        found = cls.__dict__.get("_lasts")
        if found is None:
            found = frozenset(q.rsplit(".", 1)[-1] for q in cls.table)
            cls._lasts = found
        return found

    def _hit(self, qualname: str, target: tuple[int, int]) -> dict[str, str] | None:
        raise NotImplementedError


VERSION_WORDS = re.compile(r"version|greater|less|_ge_|_lt_|(^|_)(pt|xla|torch)_?\d|_\d+_\d+",
                           re.IGNORECASE)
SHIM_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError"})


def _catches_shim_error(handler: nodes.ExceptHandler) -> bool:
    """The handler catches ImportError, ModuleNotFoundError or AttributeError."""
    return any(isinstance(t, nodes.Name) and t.name in SHIM_ERRORS
               for t in caught_types(handler))


def _tried_imports_present(trial: nodes.NodeNG, target: tuple[int, int]) -> bool:
    """The ``try`` body imports torch_xla names, and the targeted release has every one
    (``from torch_xla import sync as step_barrier``): its handler does not run there."""
    api = xla_api()
    names = []
    for stmt in trial.body:
        if isinstance(stmt, nodes.ImportFrom) and not stmt.level:
            names += [canonical(f"{stmt.modname}.{n}") for n, _ in stmt.names if n != "*"]
        elif isinstance(stmt, nodes.Import):
            names += [canonical(n) for n, _ in stmt.names]
    names = [q for q in names if q == "torch_xla" or q.startswith("torch_xla.")]
    return bool(names) and all(
        (f := api.names.get(q)) is not None and f.present(target) for q in names)


def _compat_shim(node: nodes.NodeNG, target: tuple[int, int] | None = None) -> bool:
    """The use sits in a compatibility shim: a branch chosen by a version check
    (``if _XLA_GREATER_EQUAL_2_1: ... else: <old API>``), a ``try`` whose handlers
    catch ImportError/AttributeError or such a handler (the fallback), or under
    ``hasattr(...)``. The script then runs
    on the releases that have the API and takes the other path on the rest."""
    child, cur = node, node.parent
    while cur is not None and not isinstance(cur, nodes.Module):
        if isinstance(cur, (nodes.If, nodes.IfExp)) and child is not cur.test:
            test = cur.test.as_string()
            if VERSION_WORDS.search(test) or "hasattr(" in test:
                return True
        if isinstance(cur, nodes.Try) and any(s is child for s in cur.body) and \
                any(_catches_shim_error(h) for h in cur.handlers):
            return True
        if isinstance(cur, nodes.ExceptHandler) and target is not None and \
                _catches_shim_error(cur) and _tried_imports_present(cur.parent, target):
            # ``except ImportError: from torch_xla.core.xla_model import mark_step``: the
            # fallback runs only on the releases where the newer spelling is missing
            return True
        child, cur = cur, cur.parent
    return False


def _fix(facts: NameFacts, target: tuple[int, int], seen: frozenset[str] = frozenset()) -> str:
    """The advice for a removed/deprecated API: its replacement as the targeted release
    spells it, following a replacement that is itself gone there."""
    repl = facts.replacement
    api = xla_api()
    if not repl:
        return (f"it has no replacement named in the wheels; port the call, or pin "
                f"torch_xla<{version_text(facts.removed_in)}" if facts.removed_in else
                "see its deprecation notice")
    further = api.names.get(repl)
    if further is not None and repl not in seen:
        gone = further.removed_at(target, api.releases)
        if gone and further.replacement:
            return _fix(further, target, seen | {repl})
        if gone:
            return (f"its replacement {short_name(repl)} is gone too since torch_xla "
                    f"{version_text(gone)}; port the call")
    call = "()" if (further is not None and further.kind == "function") else ""
    return f"use {short_name(repl)}{call}"


class RemovedXlaApi(_VersionRule):
    """XLA507: a torch_xla API that the targeted release no longer has (it crashes).

    Source: the torch_xla wheels of 2.1 ... 2.9 on the package index, read by
    ``scripts/api_facts.py`` into ``flake8_xla/data/xla_api.json``: a name some
    earlier release has (``import module; getattr(module, name)``) and the targeted
    release lacks.
    """

    code = "XLA507"
    fix = "safe"
    name = "removed-xla-api"
    message = ("removed torch_xla API: {what} no longer exists in torch_xla {since}+ (last in "
               "{last}) and raises AttributeError/ImportError; {fix}")
    explanation = """\
Scripts written for older torch_xla releases call APIs that newer releases removed;
the script crashes at that line. Which names exist in which release is read from the
released wheels (`flake8_xla/data/xla_api.json`, written by `scripts/api_facts.py`
from the torch_xla wheels of 2.1 to 2.9): for example `xm.xrt_world_size()`,
`xm.get_ordinal()` and `xm.parse_xla_device()` are gone from 2.7 on (their 2.5
deprecation names `xr.world_size()`, `xr.global_ordinal()` and
`torch_xla._internal.utils.parse_xla_device()`), `torch_xla.runtime.xla_device()`
from 2.8 on, `torch_xla.amp.GradScaler` from 2.9 on. `xm.get_local_ordinal()` still
exists in 2.9. The replacement is the one the deprecation notice names; where the
release removed an API without a notice, the message says so, except for
`torch_xla.amp.GradScaler`, whose replacement `torch.amp.GradScaler("xla")` runs in
`checks/XLA402/fixed.py`. The finding depends on `--xla-version` (default: the
installed torch_xla, else the newest release of the facts).

**Example**
```python
rank = xm.get_ordinal()
```
**Use instead**
```python
import torch_xla.runtime as xr
rank = xr.global_ordinal()
```
"""
    source = (("torch_xla wheels 2.1.0 ... 2.9.0 (sha256 in flake8_xla/data/xla_api.json), "
              "read with ast by scripts/api_facts.py"),
              ("torch_xla 2.5.1 source: torch_xla/core/xla_model.py (deprecated(...) of "
              "xrt_world_size, get_ordinal, parse_xla_device: 'will be removed in release 2.7')"),
              "https://github.com/huggingface/transformers/issues/37301")
    versions = "every release the API facts cover (2.0 read as 2.1, ... 2.9)"
    table = _removed_table()

    def _hit(self, qualname: str, target: tuple[int, int]) -> dict[str, str] | None:
        api = xla_api()
        facts = api.lookup(qualname)
        if facts is None:
            return None
        since = facts.removed_at(target, api.releases)
        if since is None:
            return None
        last = [r for r in facts.releases if r < since][-1]
        return {"what": short_name(facts.qualname), "since": version_text(since),
                "last": version_text(last), "fix": _fix(facts, target)}


class DeprecatedXlaApi(_VersionRule):
    """XLA508: a torch_xla API deprecated in the targeted release.

    Source: the torch_xla wheels of 2.1 ... 2.9 (``flake8_xla/data/xla_api.json``):
    ``@deprecated("Use torch_xla.sync instead")`` on ``xm.mark_step`` and
    ``@deprecated("Use torch_xla.device instead")`` on ``xm.xla_device`` (2.8),
    ``deprecated(this_module, ...)`` in ``xla_model.py`` (2.5), ``register_deprecated``
    in ``torch_xla/experimental/pjrt.py`` (2.1-2.4), and deprecation warnings on call or
    at import.
    """

    code = "XLA508"
    fix = "safe"
    name = "deprecated-xla-api"
    message = ("deprecated torch_xla API: {what} is deprecated since torch_xla {since}; {fix}")
    explanation = """\
A deprecated API still works but warns, and a later release removes it. The facts
come from the wheels: `@deprecated(...)` decorators (`xm.mark_step` and
`xm.xla_device` from 2.8: use `torch_xla.sync()` and `torch_xla.device()`),
torch_xla's `deprecated(...)`/`register_deprecated(...)` helpers, and warnings that
say "deprecated" on every call or at import (`torch_xla.experimental.xla_sharding`:
use `torch_xla.distributed.spmd`). Only reported when `--xla-version` is at or after
the release that deprecated it and still has it (after that, XLA507 reports it).

**Example**
```python
device = xm.xla_device()
xm.mark_step()
```
**Use instead**
```python
device = torch_xla.device()
torch_xla.sync()
```
"""
    source = ("torch_xla 2.9.0 source: torch_xla/core/xla_model.py (@deprecated decorators)",
              ("torch_xla wheels 2.1.0 ... 2.9.0, read by scripts/api_facts.py "
              "(flake8_xla/data/xla_api.json)"))
    versions = "from the release that deprecated each API (facts: flake8_xla/data/xla_api.json)"
    table = _deprecated_table()

    def _hit(self, qualname: str, target: tuple[int, int]) -> dict[str, str] | None:
        facts = xla_api().lookup(qualname)
        if facts is None or not facts.deprecated_at(target) or facts.deprecated_in is None:
            return None
        return {"what": short_name(facts.qualname), "since": version_text(facts.deprecated_in),
                "fix": _fix(facts, target)}
