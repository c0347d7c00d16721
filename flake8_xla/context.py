"""Per-file state shared by every rule: imports, the XLA gate, lazy astroid."""

from __future__ import annotations

import ast
import importlib.metadata
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from flake8_xla.facts import parse_version, xla_api
from flake8_xla.imports import ImportTable

if TYPE_CHECKING:
    from flake8_xla.filefacts import FileFacts

#: The newest torch_xla release of the API facts (flake8_xla/data/xla_api.json).
NEWEST_KNOWN_XLA = xla_api().newest
TARGETS = ("auto", "file", "all")
#: ``--xla-migrate`` values: the migration bands (XLA6xx: torch_xla -> TorchTPU).
MIGRATIONS = ("torchtpu",)


class Finding(NamedTuple):
    """One hazard: 1-based ``line``, 0-based ``col``, ``code`` such as XLA201, one-line ``message``."""

    line: int
    col: int
    code: str
    message: str


def installed_xla_version() -> tuple[int, int]:
    """Version of the installed torch_xla distribution (read from metadata, never imported).

    Falls back to the newest release of the API facts when it is absent, and reads a
    release outside the facts' range as the nearest one they cover.
    """
    try:
        return xla_api().facts_version(parse_version(importlib.metadata.version("torch_xla")))
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return NEWEST_KNOWN_XLA


@dataclass(frozen=True)
class Options:
    """User settings: ``target`` is 'auto' (the project decides what is XLA code), 'file'
    (each file decides for itself, without project analysis) or 'all'; ``version`` the
    targeted torch_xla;
    ``migrate`` a migration band to turn on (``'torchtpu'``) or None; ``selected``: the
    codes and prefixes the user selected by name (``--select`` / ``--extend-select``),
    which turn on opt-in rules."""

    target: str = "auto"
    version: tuple[int, int] = NEWEST_KNOWN_XLA
    migrate: str | None = None
    selected: tuple[str, ...] = ()

    def opts_in(self, code: str) -> bool:
        """An opt-in rule runs when a code or prefix longer than ``XLA`` selects it.

        ``--select=XLA`` (every default rule) does not turn it on;
        ``--extend-select=XLA302`` or ``XLA9`` does, as with flake8-bugbear's B9 band.
        """
        return any(len(s) > 3 and code.startswith(s) for s in self.selected)


class ModuleContext:
    """Everything the rules may ask about one file; each answer is computed once.

    The ast tree comes from flake8. The import table and the XLA gate are cheap
    and syntax-only; the astroid module and its :class:`Analyzer` are built only
    when a rule asks for them, and are None when astroid cannot build the file.
    """

    def __init__(self, tree: ast.Module, source: str, filename: str, options: Options,
                 strict: bool = False) -> None:
        self.tree = tree
        self.source = source
        self.filename = filename
        self.options = options
        #: engine strict mode: an astroid build that fails only from flake8's tree raises
        self.strict = strict
        self._hidden: tuple[tuple[int, int], ...] = ()

    @cached_property
    def imports(self) -> ImportTable:
        """The module's import table."""
        return ImportTable(self.tree, self.source)

    @cached_property
    def is_xla_code(self) -> bool:
        """True when the file is checked.

        ``--xla-target=all``: every file. ``file``: the file imports torch_xla (or legacy
        torch_xla_py) or uses the string ``'xla'`` as a device. ``auto`` (default): the
        file shows XLA use (that, or a framework's XLA switch), or its project makes it
        XLA code (see :mod:`flake8_xla.project`).
        """
        from flake8_xla.project.xlause import file_rule, mentions_xla, shows_xla_use

        if self.options.target == "all":
            return True
        if self.options.target == "file":
            return file_rule(self.tree, self.source, self.imports)
        # The project index first: its answer for the file on disk includes the file's own
        # XLA use, read once per tree and kept in the cache, so that the module walk below
        # runs only for a file the index does not know as XLA code (an unsaved buffer that
        # adds XLA use, a file outside any project).
        index = self.project_index
        if index is not None and index.is_xla_code(self.filename):
            return True
        if not mentions_xla(self.source):
            return False
        if index is not None:
            rel = index.rel(self.filename)
            if rel is not None and index.holds_text(rel, self.source):
                # the index summarised this very text: its answer already weighs the
                # file's own XLA use (a walk of a long test file costs ~10 ms)
                return False
        return shows_xla_use(self.tree, self.source, self.imports)

    @cached_property
    def project_index(self):  # -> ProjectIndex | None
        """The :class:`~flake8_xla.project.index.ProjectIndex` of the file's project, or
        None (``--xla-target=file``, a file that is not on disk, or in no project)."""
        if self.options.target == "file":
            return None
        try:
            from flake8_xla.project.index import index_for
            return index_for(self.filename)
        except Exception:  # no project analysis rather than a crash
            if self.strict:
                raise
            return None

    @cached_property
    def is_torchtpu_code(self) -> bool:
        """True when the file uses TorchTPU: ``torch.tpu``, an import of ``torch_tpu``, or
        the string ``'tpu'`` used as a device (only asked under ``--xla-migrate``)."""
        if "tpu" not in self.source:
            return False
        if self.imports.imports_prefix("torch_tpu") or self.imports.imports_prefix("torch.tpu"):
            return True
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and node.attr == "tpu" and \
                    isinstance(node.value, ast.Name) and \
                    self.imports.resolve(node.value.id) == "torch":
                return True
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    node.value == "tpu" or node.value.startswith("tpu:")):
                return True
        return False

    def stored_facts(self) -> FileFacts | None:
        """The file's :class:`~flake8_xla.filefacts.FileFacts` as the project index holds them
        (``auto``/``all``), when the file on disk is ``source``: read from the index's disk
        cache instead of walking the tree again. None otherwise (the caller computes them)."""
        if self.options.target == "file":
            return None
        try:
            session = self._session_or_none()
            if session is None:
                return None
            index = session.index
            facts = index.stored_facts(session.rel)
            if facts is None or not index.holds_text(session.rel, self.source):
                return None
            return facts
        except Exception:  # the facts only save time: computed from the tree instead
            if self.strict:
                raise
            return None

    @property
    def hidden_spans(self) -> tuple[tuple[int, int], ...]:
        """Line spans the rule now running does not look for findings in (the file's unit
        tests, for a rule not reported there: see :meth:`Analyzer.rule_nodes`)."""
        return self._hidden

    @hidden_spans.setter
    def hidden_spans(self, spans: tuple[tuple[int, int], ...]) -> None:
        self._hidden = spans
        an = vars(self).get("analyzer")
        if an is not None:
            an.hidden_spans = spans

    @cached_property
    def unit_tests(self) -> tuple[tuple[int, int], ...]:
        """Line spans of the file's unit tests (:func:`flake8_xla.testcode.unit_test_spans`)."""
        from flake8_xla.testcode import unit_test_spans
        return unit_test_spans(self.tree, self.filename)

    @cached_property
    def analyzer(self):  # -> Analyzer | None (import kept lazy: astroid is costly to load)
        """The astroid-backed :class:`~flake8_xla.analysis.Analyzer`, or None if astroid fails."""
        try:
            from flake8_xla.analysis import Analyzer, TreeRebuildError, build_module
            from flake8_xla.analysis.flows import mark_unit_tests
            module = None
            session = self._session_or_none()
            if session is not None and self.crosses_modules:
                # the tree other files' analyses of this project refer to
                module = session.shared_module(self.source, self.tree, self.imports,
                                               strict=self.strict)
            if module is None:
                module = build_module(self.source, "flake8_xla_checked", self.tree,
                                      strict=self.strict)
            an = Analyzer(module, self.imports)
            an.hidden_spans = self._hidden
            mark_unit_tests(module, self.unit_tests)
        except TreeRebuildError:  # raised only in strict mode, to be seen
            raise
        except Exception:  # noqa: BLE001 - astroid failure means "unknown", never a crash
            return None
        session = self._session_or_none()
        if session is not None:
            session.attach(an)  # calls into other modules of the project are followed
        return an

    @cached_property
    def crosses_modules(self) -> bool:
        """Values or step regions may cross into this file from other project modules (it
        imports one, or an XLA module imports it): the rules' single-file preconditions do
        not hold then, so the engine runs every rule."""
        session = self._session_or_none()
        if session is None:
            return False
        try:
            return session.index.linked(session.rel, every_module=self.options.target == "all")
        except Exception:  # the gates are only an optimisation
            if self.strict:
                raise
            return True

    def gate_facts(self, own: FileFacts) -> FileFacts | None:
        """The facts the preconditions read for a file that :attr:`crosses_modules`: its
        own merged with those of the project modules its check may analyse
        (:meth:`~flake8_xla.project.index.ProjectIndex.gate_facts`); None when they
        cannot be known, and every rule runs."""
        session = self._session_or_none()
        if session is None:
            return None
        try:
            return session.index.gate_facts(session.rel, own,
                                            every_module=self.options.target == "all")
        except Exception:  # the gates are only an optimisation
            if self.strict:
                raise
            return None

    def _session_or_none(self):  # -> Session | None
        try:
            return self.project_session
        except Exception:  # single-file analysis rather than a crash
            if self.strict:
                raise
            return None

    @cached_property
    def project_session(self):  # -> flake8_xla.project.link.Session | None
        """The cross-module link of this file's analysis, or None (no project, or the file
        is not one of its modules)."""
        index = self.project_index
        if index is None:
            return None
        rel = index.rel(self.filename)
        if rel is None:
            return None
        from flake8_xla.project.link import Session
        return Session(index, rel, self.options.target)

    # Version-aware spellings -------------------------------------------------
    @property
    def sync_api(self) -> str:
        """The step barrier of the targeted torch_xla, from the API facts: ``xm.mark_step()``,
        or the replacement its deprecation names once deprecated (``torch_xla.sync()``)."""
        return xla_api().spelling("torch_xla.core.xla_model.mark_step", self.options.version)

    @property
    def device_api(self) -> str:
        """The XLA device getter of the targeted torch_xla, from the API facts:
        ``xm.xla_device()``, or its deprecation's replacement (``torch_xla.device()``)."""
        return xla_api().spelling("torch_xla.core.xla_model.xla_device", self.options.version)
