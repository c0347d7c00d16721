"""Build an astroid module from flake8's ast tree, without importing or inferring anything."""

from __future__ import annotations

import ast
import copy

import astroid
from astroid import nodes, rebuilder


class _NoImportBuilder(astroid.builder.AstroidBuilder):
    """An AstroidBuilder whose post-build step never imports or infers anything.

    The stock builder resolves star imports (importing the named module) and
    infers every ``obj.attr = value`` target, which parses whole libraries such
    as transformers and takes minutes. Names bound by ``from x import y`` are
    still registered, so scope lookup works; star imports stay unresolved.
    """

    def _post_build(self, module, builder, encoding):  # type: ignore[no-untyped-def]
        module.file_encoding = encoding
        for from_node, global_names in builder._import_from_nodes:
            if from_node.modname == "__future__":
                module.future_imports.update(name for name, _ in from_node.names)
            for name, asname in from_node.names:
                if name == "*":
                    continue
                local = asname or name
                holder = module if local in global_names else from_node.parent
                holder.set_local(local, from_node)
                holder.scope().locals[local].sort(key=lambda n: n.fromlineno or 0)
        return module


class _ReadOnlyRebuilder(rebuilder.TreeRebuilder):
    """astroid's TreeRebuilder, except that it never changes the ast tree it reads.

    The stock one takes a docstring off by reassigning the ``body`` of the ast
    Module/ClassDef/FunctionDef (``node.body = node.body[1:]``); on flake8's
    tree, which pyflakes and mccabe read after us, that would hide every
    docstring from them. Here it works on a shallow copy of such a node.
    """

    def _get_doc(self, node):  # type: ignore[no-untyped-def]
        return super()._get_doc(copy.copy(node))

    def _get_position_info(self, node, parent):  # type: ignore[no-untyped-def]
        # The ``def name`` / ``class name`` span, found by tokenizing each definition's
        # header again: no rule reads it (findings are placed at the ast positions).
        return None


class TreeRebuildError(RuntimeError):
    """astroid could parse the text but not rebuild flake8's ast tree of it (a defect)."""


def build_module(source: str, name: str, tree: ast.Module | None = None, *,
                 strict: bool = False) -> nodes.Module:
    """Build an astroid Module of ``source`` without importing or inferring anything.

    ``tree``, when given, is ``source`` already parsed by :mod:`ast` (flake8's
    tree): astroid rebuilds from it instead of parsing the text again, which
    saves about a fifth of the build, and leaves it unchanged
    (:class:`_ReadOnlyRebuilder`). If that fails, astroid parses ``source``
    itself; with ``strict``, that parse succeeding raises :class:`TreeRebuildError`
    instead, so that the crash sweep sees the rebuild fail. Raises
    astroid.AstroidSyntaxError (or another astroid error) on bad input.
    """
    builder = _NoImportBuilder(astroid.MANAGER, apply_transforms=False)
    rebuild_error: Exception | None = None
    if tree is not None:
        try:
            tree_rebuilder = _ReadOnlyRebuilder(astroid.MANAGER, None)
            module = tree_rebuilder.visit_module(tree, name, "<?>", False)
            return _done(builder._post_build(module, tree_rebuilder, "utf-8"), tree_rebuilder)
        except Exception as exc:  # noqa: BLE001 - another astroid: let it parse the text
            rebuild_error = exc
    module, tree_rebuilder = builder._data_build(source, name, None)
    if strict and rebuild_error is not None:
        raise TreeRebuildError(f"astroid parsed {name} but could not rebuild flake8's tree: "
                               f"{rebuild_error!r}") from rebuild_error
    return _done(builder._post_build(module, tree_rebuilder, "utf-8"), tree_rebuilder)


def _done(module: nodes.Module, rebuilder: object) -> nodes.Module:
    """``module``, once its rebuilder's state is dropped: the rebuilder keeps its visit
    methods bound to itself (a reference cycle) and lists of the tree's nodes, so that
    left alone it held the whole tree until the collector found the cycle, instead of
    the tree being freed by reference counting once its analysis breaks its parent links
    (:func:`flake8_xla.project.link.dismantle`)."""
    vars(rebuilder).clear()
    return module
