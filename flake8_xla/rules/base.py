"""The Rule base class: one hazard, one class, docs generated from its fields."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from flake8_xla.context import Finding, ModuleContext


class Rule:
    """A hazard detector.

    Subclasses set ``code`` (``XLA`` + 3 digits), a kebab-case ``name``, a
    ``message`` template (problem, cost and fix in one line; ``{sync}`` and
    ``{device}`` are filled with the targeted torch_xla's spellings), the
    ``explanation`` (markdown: why it is bad, example, fix), the ``source``
    documents it rests on, the torch_xla ``versions`` it applies to and the
    kind of its automatic ``fix`` (``'safe'``, ``'unsafe'`` or ``'none'``, as in
    ruff; the fixers live in :mod:`flake8_xla.fixes`), and implement :meth:`check`.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    explanation: ClassVar[str] = ""
    source: ClassVar[tuple[str, ...]] = ()
    versions: ClassVar[str] = "all"
    needs_astroid: ClassVar[bool] = False
    fix: ClassVar[str] = "none"

    def __init__(self, ctx: ModuleContext) -> None:
        self.ctx = ctx

    def check(self) -> Iterator[Finding]:
        """Yield the findings of this rule in ``self.ctx``."""
        raise NotImplementedError

    def finding(self, node, **fmt: str) -> Finding:
        """A Finding at ``node`` (ast or astroid) with the formatted message."""
        text = self.message.format(sync=self.ctx.sync_api, device=self.ctx.device_api, **fmt)
        return Finding(node.lineno, node.col_offset, self.code, f"{self.code} {text}")
