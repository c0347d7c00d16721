"""Per-module summaries: what the project index keeps about one module (syntax only).

A :class:`Summary` is built from the module's ast tree alone (never imported, never
run) and is stored in the on-disk cache as JSON, so it depends on nothing but the
file's own text: imports are kept as written (relative ones with their level) and are
resolved to files when the index is asked, from where the importing file lies.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from flake8_xla.astwalk import walk
from flake8_xla.imports import ImportTable
from flake8_xla.project.xlause import (
    is_program,
    is_script,
    launches_framework_trainer,
    name_chain,
    shows_xla_use,
)

#: Bumped whenever the summary's fields or their meaning change (old entries are rebuilt).
SCHEMA = 6


@dataclass(frozen=True)
class Summary:
    """What one module is, for the project index.

    Attributes:
        xla: the module shows XLA use (:func:`~flake8_xla.project.xlause.shows_xla_use`).
        program: a script or a module importing torch_xla unconditionally
            (:func:`~flake8_xla.project.xlause.is_program`).
        imports: ``(module, level, names)`` per import: ``import a.b`` is
            ``("a.b", 0, ())``, ``from ..x import y, z`` is ``("x", 2, ("y", "z"))``,
            a star import has the name ``"*"``.
        refs: the imported dotted names the code uses (``utils.save_weights``,
            ``.data.make_loader``: the import table's spelling of each Name/Attribute
            chain and of its prefixes), sorted.
        defs: the names the module binds at its top level (functions, classes,
            assignments), sorted.
        needs_xla: the module imports torch_xla (or torch_xla_py) unconditionally at its
            top level: it cannot be imported without torch_xla.
        top: the imports among ``imports`` written unconditionally at the module's top
            level (not under ``if``/``try``/``def``), in the same form.
        deep: the names of ``refs`` used somewhere other than as the callee of a call
            that runs once, at import time (a call outside every function, class body,
            loop and comprehension): those the module's functions and loops may call,
            or that it passes on as values, sorted. ``FLAGS = args.parse()`` at the top
            level uses ``args.parse`` only shallowly.
        script: the module runs as a script (``if __name__ == "__main__":`` at its top
            level), whether or not it shows XLA use.
        spawns_by_name: the module reads ``_mp_fn`` off a module it imports by name at
            run time (``importlib.import_module(script)``): a launcher such as Hugging
            Face's ``xla_spawn.py``, which runs ``xmp.spawn(mod._mp_fn, ...)`` for the
            training script named on its command line.
    """

    xla: bool
    program: bool
    imports: tuple[tuple[str, int, tuple[str, ...]], ...]
    refs: tuple[str, ...]
    defs: tuple[str, ...]
    needs_xla: bool = False
    top: tuple[tuple[str, int, tuple[str, ...]], ...] = ()
    deep: tuple[str, ...] = ()
    script: bool = False
    spawns_by_name: bool = False

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (see :meth:`from_json`)."""
        return {"x": self.xla, "p": self.program,
                "i": [[m, lv, list(ns)] for m, lv, ns in self.imports],
                "r": list(self.refs), "d": list(self.defs), "n": self.needs_xla,
                "t": [[m, lv, list(ns)] for m, lv, ns in self.top],
                "e": list(self.deep), "s": self.script, "l": self.spawns_by_name}

    @classmethod
    def from_json(cls, raw: object) -> Summary:
        """The summary stored by :meth:`to_json`. Raises ValueError when ``raw`` is malformed
        (a corrupt cache entry, which the caller then rebuilds)."""
        try:
            if not isinstance(raw, dict):
                raise TypeError("not an object")
            imports = _imports_from_json(raw["i"])
            top = _imports_from_json(raw["t"])
            refs = tuple(raw["r"])
            defs = tuple(raw["d"])
            deep = tuple(raw["e"])
            if not all(isinstance(r, str) for r in refs + defs + deep):
                raise TypeError("bad name")
            if not all(isinstance(raw[k], bool) for k in ("x", "p", "n", "s", "l")):
                raise TypeError("bad flag")
            return cls(raw["x"], raw["p"], imports, refs, defs, raw["n"], top, deep,
                       raw["s"], raw["l"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed summary: {exc}") from None


def _imports_from_json(raw: object) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    if not isinstance(raw, list):
        raise TypeError("bad imports")
    out = []
    for m, lv, ns in raw:
        if not isinstance(m, str) or not isinstance(lv, int) or \
                not all(isinstance(n, str) for n in ns):
            raise TypeError("bad import")
        out.append((m, lv, tuple(ns)))
    return tuple(out)


def _import_entries(stmt: ast.AST) -> list[tuple[str, int, tuple[str, ...]]]:
    """An import statement as :attr:`Summary.imports` keeps it (empty for other nodes)."""
    if isinstance(stmt, ast.Import):
        return [(a.name, 0, ()) for a in stmt.names]
    if isinstance(stmt, ast.ImportFrom):
        return [(stmt.module or "", stmt.level or 0, tuple(a.name for a in stmt.names))]
    return []


def _top_imports(tree: ast.Module) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    return tuple(e for stmt in tree.body for e in _import_entries(stmt))


#: Code that does not run when the module is imported, or runs more than once.
_IMPORT_TIME_PRUNE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.For,
                      ast.AsyncFor, ast.While, ast.comprehension, ast.ListComp, ast.SetComp,
                      ast.DictComp, ast.GeneratorExp)


def _import_time_callees(tree: ast.Module) -> set[int]:
    """ids of the Name/Attribute nodes that spell the callee of a call run once at import
    time: in a module-level statement (also under ``if``/``try``/``with``), outside
    every function, lambda, class body, loop and comprehension."""
    out: set[int] = set()
    for node in walk(tree, prune=_IMPORT_TIME_PRUNE):
        if type(node) is ast.Call:
            f = node.func  # type: ignore[attr-defined]
            while isinstance(f, ast.Attribute):
                out.add(id(f))
                f = f.value
            if isinstance(f, ast.Name):
                out.add(id(f))
    return out


def summarize(tree: ast.Module, source: str) -> Summary:
    """The summary of a module from its ast tree and text (no astroid, no import)."""
    table = ImportTable(tree, source)
    imports: list[tuple[str, int, tuple[str, ...]]] = []
    refs: set[str] = set()
    deep: set[str] = set()
    shallow = _import_time_callees(tree)
    names = table.names
    name_t, attr_t = ast.Name, ast.Attribute
    spawned_attr = False
    for node in walk(tree):
        t = type(node)
        ref = None
        if t is name_t:
            ref = names.get(node.id)  # type: ignore[attr-defined]
        elif t is attr_t:
            chain = name_chain(node)
            if chain and chain[0] in names:
                ref = ".".join([names[chain[0]], *chain[1:]])
            elif node.attr == "_mp_fn":  # type: ignore[attr-defined]
                spawned_attr = True  # ``mod._mp_fn`` of a module object, not an import
        elif t is ast.Import or t is ast.ImportFrom:
            imports.extend(_import_entries(node))
        if ref is not None:
            refs.add(ref)
            if id(node) not in shallow:
                deep.add(ref)
    defs: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        defs.add(sub.id)
    xla = shows_xla_use(tree, source, table)
    top = _top_imports(tree)
    needs = any(m.split(".", 1)[0] in ("torch_xla", "torch_xla_py") for m, lv, _ in top
                if not lv)
    program = xla and (is_program(tree) or launches_framework_trainer(tree, table))
    return Summary(xla=xla, program=program, imports=tuple(imports),
                   refs=tuple(sorted(refs)), defs=tuple(sorted(defs)), needs_xla=needs,
                   top=top, deep=tuple(sorted(deep)), script=is_script(tree),
                   spawns_by_name=spawned_attr and "importlib.import_module" in refs)
