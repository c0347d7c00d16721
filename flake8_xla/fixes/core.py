"""The LibCST machinery of the fixers: find the node of a finding, rewrite it, add imports.

A fixer never asks the linter's analysis anything: it gets the source and the
findings (line, column, code) the linter reported, finds the CST node that
starts at that position and has the shape the rule reports (a call of
``.save``, a ``for`` loop ...), and returns :class:`Edit` objects. The edits of
one round are applied in one :class:`libcst.CSTTransformer` pass; an edit
rewrites the *updated* node, so edits of nested nodes compose. LibCST keeps
comments and formatting everywhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from flake8_xla.fixes import SAFE, UNSAFE, Target

__all__ = ["SAFE", "UNSAFE", "Edit", "FixContext", "Target", "apply_edits"]

Rewrite = Callable[[cst.CSTNode], "cst.CSTNode | cst.FlattenSentinel | cst.RemovalSentinel"]


@dataclass
class Edit:
    """Rewrite ``node`` (a node of the parsed module) with ``rewrite(updated node)``.

    ``applicability`` is ``'safe'`` or ``'unsafe'``; ``imports`` are
    ``(module, obj, asname)`` imports the new code needs; ``unused`` are
    ``(module, obj, asname)`` imports that may have become unused.
    """

    node: cst.CSTNode
    rewrite: Rewrite
    applicability: str = SAFE
    imports: list[tuple[str, str | None, str | None]] = field(default_factory=list)
    unused: list[tuple[str, str | None, str | None]] = field(default_factory=list)


def dotted(node: cst.BaseExpression | None) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def last_name(node: cst.BaseExpression | None) -> str | None:
    """``c`` of ``a.b.c`` or of ``c``; None for another expression."""
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Name):
        return node.value
    return None


def string_value(node: cst.CSTNode | None) -> str | None:
    """The value of a plain string literal (no f-string, no concatenation), else None."""
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - an odd literal: not a plain string
            return None
        return value if isinstance(value, str) else None
    return None


def keyword_arg(call: cst.Call, name: str) -> cst.Arg | None:
    """The ``name=`` argument of ``call``, or None."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def has_star_args(call: cst.Call) -> bool:
    """``*args`` or ``**kwargs`` in the call: the arguments are not all visible."""
    return any(arg.star for arg in call.args)


def positional(call: cst.Call) -> list[cst.Arg]:
    """The positional arguments of ``call``."""
    return [a for a in call.args if a.keyword is None and not a.star]


def expr(code: str) -> cst.BaseExpression:
    """``code`` parsed as an expression."""
    return cst.parse_expression(code)


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """``call`` with ``name=value`` set: replaced in place, or appended after the last
    argument (keeping the layout of a multi-line call)."""
    args = list(call.args)
    for i, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == name:
            args[i] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    new = cst.Arg(value=value, keyword=cst.Name(name),
                  equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                        whitespace_after=cst.SimpleWhitespace("")))
    if not args:
        return call.with_changes(args=[new])
    last = args[-1]
    if isinstance(last.comma, cst.Comma):  # a trailing comma, often one argument per line
        sep: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace(" ")
        if isinstance(last.comma.whitespace_after, cst.ParenthesizedWhitespace):
            before = args[-2].comma if len(args) > 1 else None
            sep = before.whitespace_after if isinstance(before, cst.Comma) else \
                call.whitespace_before_args
        args[-1] = last.with_changes(comma=cst.Comma(
            whitespace_before=last.comma.whitespace_before, whitespace_after=sep))
        args.append(new.with_changes(comma=last.comma))
    else:
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(new)
    return call.with_changes(args=args)


class FixContext:
    """One parsed module with positions, parents and the import bookkeeping of a round.

    ``version`` is the targeted torch_xla ``(major, minor)``.
    """

    def __init__(self, source: str, version: tuple[int, int]) -> None:
        self.source = source
        self.version = version
        self.wrapper = MetadataWrapper(cst.parse_module(source))
        self.module = self.wrapper.module
        self.positions = self.wrapper.resolve(PositionProvider)
        self.parents = self.wrapper.resolve(ParentNodeProvider)
        self._lines = source.splitlines(True)
        self._starts: dict[tuple[int, int], list[cst.CSTNode]] = {}
        for node, where in self.positions.items():
            self._starts.setdefault((where.start.line, where.start.column), []).append(node)
        self._names: set[str] | None = None
        self._bindings: dict[str, str] | None = None
        self.planned_imports: dict[str, str] = {}

    # Finding nodes -------------------------------------------------------------
    def char_col(self, line: int, col: int) -> int:
        """The character column of byte column ``col`` of ``line``."""
        if not 0 < line <= len(self._lines):
            return col
        text = self._lines[line - 1]
        if text.isascii():
            return col
        return len(text.encode("utf-8")[:col].decode("utf-8", "ignore"))

    def at(self, target: Target) -> list[cst.CSTNode]:
        """The nodes that start at ``target``'s position, outermost first."""
        nodes = self._starts.get((target.line, self.char_col(target.line, target.col)), [])
        return sorted(nodes, key=self._size, reverse=True)

    def _size(self, node: cst.CSTNode) -> tuple[int, int]:
        where = self.positions[node]
        return (where.end.line - where.start.line, where.end.column
                if where.end.line != where.start.line else where.end.column - where.start.column)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """The parent of ``node`` (None for the module)."""
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        """The parents of ``node``, innermost first."""
        cur = self.parents.get(node)
        while cur is not None:
            yield cur
            cur = self.parents.get(cur)

    # Names and imports -----------------------------------------------------------
    @property
    def names(self) -> set[str]:
        """Every identifier used in the module."""
        if self._names is None:
            found: set[str] = set()

            class _Names(cst.CSTVisitor):
                def visit_Name(self, node: cst.Name) -> None:
                    found.add(node.value)

            self.module.visit(_Names())
            self._names = found
        return self._names

    @property
    def bindings(self) -> dict[str, str]:
        """Module imports: qualified module or ``module.obj`` -> the local name bound.

        ``import a.b as c`` gives ``{'a.b': 'c'}``; ``import a.b`` gives ``{'a': 'a',
        'a.b': 'a.b'}``; ``from a import b as c`` gives ``{'a.b': 'c'}``. Only the
        module's top level (and its top-level ``try``/``if`` blocks) is read.
        """
        if self._bindings is None:
            out: dict[str, str] = {}
            for stmt in _top_level(self.module.body):
                for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            name = dotted(alias.name) or ""
                            if alias.asname is not None:
                                out.setdefault(name, _asname(alias))
                            else:
                                parts = name.split(".")
                                for i in range(1, len(parts) + 1):
                                    out.setdefault(".".join(parts[:i]), ".".join(parts[:i]))
                    elif isinstance(small, cst.ImportFrom) and not small.relative and \
                            isinstance(small.names, Sequence):
                        base = dotted(small.module) or ""
                        for alias in small.names:
                            name = dotted(alias.name) or ""
                            out.setdefault(f"{base}.{name}", _asname(alias) or name)
            self._bindings = out
        return self._bindings

    def module_ref(self, qualified: str, alias: str | None = None) -> tuple[str, tuple[str, None,
                                                                                     str | None]]:
        """How to spell the module ``qualified`` here, and the import that binds it.

        An existing import is reused (``xm`` for ``import torch_xla.core.xla_model as
        xm``). Otherwise ``import qualified as alias`` when ``alias`` is free in the
        module, else ``import qualified`` and the dotted name.
        """
        bound = self.bindings.get(qualified)
        if bound is not None:
            return bound, (qualified, None, None if bound == qualified else bound)
        planned = self.planned_imports.get(qualified)
        if planned is not None:
            return planned, (qualified, None, None if planned == qualified else planned)
        if alias and alias not in self.names:
            self.planned_imports[qualified] = alias
            return alias, (qualified, None, alias)
        self.planned_imports[qualified] = qualified
        return qualified, (qualified, None, None)

    # Version-dependent spellings -----------------------------------------------
    def sync(self) -> tuple[str, tuple[str, None, str | None]]:
        """The step barrier call of the targeted release and its import.

        ``torch_xla.sync()`` from 2.8 on, ``xm.mark_step()`` before (the spellings of
        :attr:`flake8_xla.context.ModuleContext.sync_api`).
        """
        if self.version >= (2, 8):
            ref, imp = self.module_ref("torch_xla")
            return f"{ref}.sync()", imp
        ref, imp = self.module_ref("torch_xla.core.xla_model", "xm")
        return f"{ref}.mark_step()", imp


def _asname(alias: cst.ImportAlias) -> str | None:
    if alias.asname is None:
        return None
    name = alias.asname.name
    return name.value if isinstance(name, cst.Name) else None


def _top_level(body: Sequence[cst.CSTNode]) -> Iterable[cst.CSTNode]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, cst.Try):
            yield from stmt.body.body
        elif isinstance(stmt, cst.If):
            yield from stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()


class _Apply(cst.CSTTransformer):
    def __init__(self, edits: Sequence[Edit]) -> None:
        super().__init__()
        self.by_node: dict[int, list[Edit]] = {}
        for edit in edits:
            self.by_node.setdefault(id(edit.node), []).append(edit)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[override]
        result: object = updated_node
        for edit in self.by_node.get(id(original_node), ()):
            if not isinstance(result, cst.CSTNode):
                break
            result = edit.rewrite(result)
        return result


def _comments(module: cst.Module) -> list[str]:
    found: list[str] = []

    class _Comments(cst.CSTVisitor):
        def visit_Comment(self, node: cst.Comment) -> None:
            found.append(node.value)

    module.visit(_Comments())
    return found


def apply_edits(ctx: FixContext, edits: Sequence[Edit], *, remove_unused: bool = True) -> str:
    """The module's code with ``edits`` applied, their imports added and the imports
    they left unused removed (only where no comment is lost with them)."""
    module = ctx.module.visit(_Apply(edits))
    needed = {imp for e in edits for imp in e.imports}
    if needed:
        context = CodemodContext()
        for mod, obj, asname in sorted(needed, key=lambda t: (t[0], t[1] or "", t[2] or "")):
            AddImportsVisitor.add_needed_import(context, mod, obj, asname)
        module = AddImportsVisitor(context).transform_module(module)
    unused = {imp for e in edits for imp in e.unused}
    if unused and remove_unused:
        context = CodemodContext()
        for mod, obj, asname in sorted(unused, key=lambda t: (t[0], t[1] or "", t[2] or "")):
            RemoveImportsVisitor.remove_unused_import(context, mod, obj, asname)
        try:
            trimmed = RemoveImportsVisitor(context).transform_module(module)
        except Exception:  # noqa: BLE001 - keeping an unused import is harmless
            trimmed = module
        if _comments(trimmed) == _comments(module):
            module = trimmed
    return module.code
