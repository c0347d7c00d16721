"""XLA507/XLA508: torch_xla APIs removed or deprecated in the targeted release."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from astroid import nodes

from flake8_xla.context import Finding
from flake8_xla.imports import canonical
from flake8_xla.rules.base import Rule

# qualified name -> (torch_xla version that removed it, replacement)
REMOVED: dict[str, tuple[tuple[int, int], str]] = {
    "torch_xla.core.xla_model.xrt_world_size": ((2, 7), "torch_xla.runtime.world_size()"),
    "torch_xla.core.xla_model.get_ordinal": ((2, 7), "torch_xla.runtime.global_ordinal()"),
    "torch_xla.core.xla_model.get_local_ordinal": ((2, 7),
                                                   "torch_xla.runtime.local_ordinal()"),
    "torch_xla.amp.GradScaler": ((2, 9), "torch.amp.GradScaler('xla')"),
}
# qualified name -> (torch_xla version that deprecated it, replacement)
DEPRECATED: dict[str, tuple[tuple[int, int], str]] = {
    "torch_xla.core.xla_model.mark_step": ((2, 8), "torch_xla.sync()"),
    "torch_xla.core.xla_model.xla_device": ((2, 8), "torch_xla.device()"),
}


def _fmt(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


class _VersionRule(Rule):
    table: ClassVar[dict[str, tuple[tuple[int, int], str]]] = {}

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        target = self.ctx.options.version
        for node in an.module_nodes((nodes.Attribute, nodes.ImportFrom)):
            if isinstance(node, nodes.ImportFrom):
                for name, _ in node.names:
                    # This statement's own module, not the file-wide table: a name
                    # imported twice (try/except shims, branches) stays apart.
                    q = canonical(f"{node.modname}.{name}") if name != "*" and \
                        not node.level else None
                    hit = self._match(q or "", target) if q else None
                    if hit:
                        yield self.finding(node, what=hit[0], since=hit[1], fix=hit[2])
                continue
            if isinstance(node.parent, nodes.Attribute):
                continue  # report the longest chain once
            q = an.qualname(node)
            hit = self._match(q or "", target)
            if hit:
                yield self.finding(node, what=hit[0], since=hit[1], fix=hit[2])

    def _match(self, q: str, target: tuple[int, int]) -> tuple[str, str, str] | None:
        for name, (since, fix) in self.table.items():
            if (q == name or q.startswith(name + ".")) and target >= since:
                short = name.replace("torch_xla.core.xla_model.", "xm.")
                return short, _fmt(since), fix
        return None


class RemovedXlaApi(_VersionRule):
    """XLA507: a torch_xla API that the targeted release no longer has (it crashes).

    Source: torch_xla 2.9.0 sources (``torch_xla/core/xla_model.py`` has no
    ``xrt_world_size``/``get_ordinal``; ``torch_xla/amp/__init__.py`` exports no
    ``GradScaler``), and the 2.5/2.6 deprecation warnings "will be removed in
    release 2.7" for ``xrt_world_size`` and ``get_ordinal``.
    """

    code = "XLA507"
    fix = "safe"
    name = "removed-xla-api"
    message = ("removed torch_xla API: {what} no longer exists in torch_xla {since}+ and raises "
               "AttributeError/ImportError; use {fix}")
    explanation = """\
Scripts written for torch_xla 1.x call APIs that newer releases removed:
`xm.xrt_world_size()` and `xm.get_ordinal()` (gone in 2.7, use `xr.world_size()`
and `xr.global_ordinal()` from `torch_xla.runtime`), and `torch_xla.amp.GradScaler`
(gone in 2.9, use `torch.amp.GradScaler("xla")`). The script crashes at that line.
The finding depends on `--xla-version` (default: the installed torch_xla, else 2.9).

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
    source = ("torch_xla 2.9.0 source: torch_xla/core/xla_model.py, torch_xla/amp/__init__.py",
              "https://github.com/huggingface/transformers/issues/37301")
    versions = "xrt_world_size/get_ordinal: removed in 2.7; torch_xla.amp.GradScaler: 2.9"
    table = REMOVED


class DeprecatedXlaApi(_VersionRule):
    """XLA508: a torch_xla API deprecated in the targeted release.

    Source: torch_xla 2.9.0 sources, ``torch_xla/core/xla_model.py``:
    ``@deprecated("Use torch_xla.sync instead") def mark_step`` and
    ``@deprecated("Use torch_xla.device instead") def xla_device``.
    """

    code = "XLA508"
    fix = "safe"
    name = "deprecated-xla-api"
    message = ("deprecated torch_xla API: {what} is deprecated since torch_xla {since}; use {fix}")
    explanation = """\
`xm.mark_step()` and `xm.xla_device()` still work but warn, and will be removed:
use `torch_xla.sync()` and `torch_xla.device()`. Only reported when
`--xla-version` is 2.8 or newer.

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
    source = ("torch_xla 2.9.0 source: torch_xla/core/xla_model.py (@deprecated decorators)",)
    versions = "2.8 and later"
    table = DEPRECATED
