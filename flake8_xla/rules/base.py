"""The Rule base class: one hazard, one class, docs generated from its fields."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar

from flake8_xla.context import Finding, ModuleContext

if TYPE_CHECKING:
    from flake8_xla.analysis import Analyzer
    from flake8_xla.filefacts import FileFacts

#: Every concrete rule class, in definition order (filled by ``Rule.__init_subclass__``).
REGISTRY: list[type[Rule]] = []


class Rule:
    """A hazard detector.

    Subclasses set ``code`` (``XLA`` + 3 digits), a kebab-case ``name``, a
    ``message`` template (problem, cost and fix in one line; ``{sync}`` and
    ``{device}`` are filled with the targeted torch_xla's spellings), the
    ``explanation`` (markdown: why it is bad, example, fix), the ``source``
    documents it rests on, the torch_xla ``versions`` it applies to and the
    kind of its automatic ``fix`` (``'safe'``, ``'unsafe'`` or ``'none'``, as in
    ruff; the fixers live in :mod:`flake8_xla.fixes`), and implement :meth:`check`
    and :meth:`precondition`.

    A concrete subclass registers itself; ``opt_in`` rules are off unless selected by
    a longer prefix than ``XLA``; ``file_rule`` rules (XLA0xx) are about the file itself
    and are reported before any rule runs, never by the engine.
    ``migrate_message`` (optional) replaces ``message`` under
    ``--xla-migrate=torchtpu``: the same hazard told in TorchTPU's terms, with the
    same ``{...}`` fields. ``measurable`` is False for a rule whose claim no
    ``checks/`` pair can measure here (the TorchTPU band needs a TPU).
    """

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    explanation: ClassVar[str] = ""
    source: ClassVar[tuple[str, ...]] = ()
    versions: ClassVar[str] = "all"
    opt_in: ClassVar[bool] = False
    file_rule: ClassVar[bool] = False
    fix: ClassVar[str] = "none"
    migrate_message: ClassVar[str | None] = None
    measurable: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__ and not cls.__name__.startswith("_") and \
                cls.__module__.startswith("flake8_xla.rules."):
            REGISTRY.append(cls)

    def __init__(self, ctx: ModuleContext) -> None:
        self.ctx = ctx

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        """A cheap, syntax-only *necessary* condition for the rule to report in a file.

        The engine checks it on flake8's ast tree before building anything; it may let a
        file through for nothing but must never hide a finding. The default holds always.
        """
        return True

    @property
    def an(self) -> Analyzer | None:
        """The file's analyzer (None when astroid cannot build the file)."""
        return self.ctx.analyzer

    def check(self) -> Iterator[Finding]:
        """Yield the findings of this rule in ``self.ctx``."""
        raise NotImplementedError

    def finding(self, node, **fmt: str) -> Finding | None:
        """A Finding at ``node`` (ast or astroid) with the formatted message.

        A node of another module of the project (a value's origin) is reported where its
        value entered this file, and the message names its place (``data.py:41``); None
        when it has no place here (the engine drops it).
        """
        template = self.message
        if self.migrate_message and self.ctx.options.migrate == "torchtpu":
            template = self.migrate_message
        text = template.format(sync=self.ctx.sync_api, device=self.ctx.device_api, **fmt)
        return self.finding_text(node, f"{self.code} {text}")

    def finding_text(self, node, text: str) -> Finding | None:
        """A Finding at ``node`` with the whole message ``text`` (placed as by :meth:`finding`)."""
        placed = self._place(node)
        if placed is False:
            return None
        if placed:
            node, where = placed
            if where not in text:
                text = f"{text} (the cause is at {where})"
        return Finding(node.lineno, node.col_offset, self.code, text)

    def origin_text(self, node, here: str, there: str) -> str:
        """``here`` for a node of this file, else ``there`` with ``{where}`` filled in with
        the other module's place (``"the DataLoader built at {where}"``)."""
        placed = self._place(node)
        return there.format(where=placed[1]) if placed else here

    def _place(self, node) -> tuple | None | bool:
        session = self.ctx.project_session if "analyzer" in vars(self.ctx) else None
        return session.place(node) if session is not None else None
