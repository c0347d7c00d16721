"""Generate the API facts of flake8-xla from released wheels (run by hand, not in CI).

Two data files come out of it, both inside the package:

``flake8_xla/data/xla_api.json``
    For every public name of the public torch_xla modules: the minor releases that
    have it (``import module; getattr(module, name)`` would succeed), the release
    that deprecated it with the replacement its deprecation names, and the release
    that removed it. Read from the torch_xla wheel of every minor release on the
    package index (2.1 ... 2.9; the newest patch release of each minor), all for
    one platform (CPython 3.10, manylinux_2_28_x86_64).

``flake8_xla/data/torchtpu_api.json``
    The public ``torch.tpu`` table of torch-tpu (``torch_tpu/_internal/public_api.py``),
    each export with the stage its decorators give it (internal APIs raise when user
    code calls them, and name the ``torch.accelerator`` API to use instead), the
    torch versions the wheel supports, and the traps that its sources show
    (``torch.compile(..., dynamic=True)``, the Inductor backend with TPU inputs, forked
    children, untraceable context managers), each with the file and line it rests on.

The wheels are fetched with ``pip download --no-deps`` into a cache folder (default
``build/api-wheels``; never commit them) and read with :mod:`ast` only: nothing of
them is imported or run. The header of each data file names the wheels and their
sha256; keys are sorted and nothing depends on the clock, so a second run writes
the same bytes (``--check`` verifies that the committed files are reproduced).

Usage::

    python scripts/api_facts.py                   # download (or reuse) the wheels, write both files
    python scripts/api_facts.py --check           # regenerate in memory, compare with the files
    python scripts/api_facts.py --offline         # use only the wheels already in the cache
    python scripts/api_facts.py --xla-versions 2.1.0,2.9.0 --out-dir /tmp/facts

Exit status: 0 written (or reproduced), 1 ``--check`` found a difference, 2 a wheel
could not be downloaded or read.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "flake8_xla" / "data"
DEFAULT_CACHE = ROOT / "build" / "api-wheels"
SCHEMA = 1
GENERATOR = "scripts/api_facts.py"

#: torch_xla: one platform every release from 2.1 to 2.9 has a wheel for.
XLA_PACKAGE = "torch_xla"
XLA_PYTHON = "3.10"
XLA_PLATFORM = "manylinux_2_28_x86_64"
XLA_FIRST_MINOR = (2, 1)  # 2.0 has no wheel on the package index
#: torch-tpu: the release the migration band rests on.
TPU_PACKAGE = "torch-tpu"
TPU_VERSION = "0.2.0"
TPU_PYTHON = "3.11"
TPU_PLATFORM = "manylinux_2_31_x86_64"

#: Public torch_xla modules: these modules and everything below them ...
XLA_SCOPE_TREES = ("torch_xla.core", "torch_xla.amp", "torch_xla.distributed", "torch_xla.debug",
                   "torch_xla.utils", "torch_xla.experimental")
#: ... these modules alone ...
XLA_SCOPE_EXACT = ("torch_xla", "torch_xla.runtime")
#: ... minus these trees (kernels and test helpers, not APIs of training scripts).
XLA_SCOPE_EXCLUDED = ("torch_xla.experimental.pallas_kernels", "torch_xla.utils.stablehlo_test_utils",
                      "torch_xla.core.xla_env_vars")

#: Callables whose decorator or call marks a torch_xla API as deprecated.
DEPRECATION_DECORATORS = frozenset({"typing_extensions.deprecated", "warnings.deprecated",
                                    "deprecated.deprecated", "deprecated.classic.deprecated"})
XLA_DEPRECATION_HELPER = "torch_xla.experimental.deprecation.deprecated"
XLA_MARK_DEPRECATED = "torch_xla.experimental.deprecation.mark_deprecated"
XLA_REGISTER_DEPRECATED = "torch_xla.experimental.deprecation.register_deprecated"
WARNING_CALLS = frozenset({"warnings.warn", "logging.warning", "logging.warn"})

#: Replacements for APIs that a release removed *without* any deprecation notice in
#: the wheels (so no message names one). Each is run under torch_xla 2.9 by a
#: ``checks/`` script of this repository, named as its evidence.
SILENT_REMOVAL_REPLACEMENTS: dict[str, tuple[str, str]] = {
    "torch_xla.amp.GradScaler": ("torch.amp.GradScaler('xla')",
                                 "checks/XLA402/fixed.py runs it under torch_xla 2.9.0"),
}

_REPLACEMENT = re.compile(
    r"(?:\b[Uu]se|[Pp]lease use|[Rr]eplace (?:it )?with|[Mm]igrate to)\s+`?"
    r"([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+)(\(\))?`?")


class FactsError(RuntimeError):
    """A wheel could not be downloaded, found or read."""


# ----------------------------------------------------------------------------- wheels
@dataclass(frozen=True)
class Wheel:
    """One downloaded wheel: ``version`` as released, ``path`` on disk."""

    package: str
    version: str
    path: Path

    @property
    def sha256(self) -> str:
        """Hex sha256 of the wheel file."""
        h = hashlib.sha256()
        with self.path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()


def _run_pip(args: list[str]) -> str:
    proc = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise FactsError(f"pip {' '.join(args)} failed:\n{proc.stderr.strip()[-2000:]}")
    return proc.stdout


def index_versions(package: str, python: str, platform: str) -> list[str]:
    """Versions of ``package`` on the package index with a wheel for ``python``/``platform``."""
    out = _run_pip(["index", "versions", package, "--python-version", python,
                    "--platform", platform, "--only-binary=:all:"])
    m = re.search(r"Available versions:\s*(.+)", out)
    if not m:
        raise FactsError(f"pip index versions {package}: no 'Available versions' line")
    return [v.strip() for v in m.group(1).split(",") if v.strip()]


def _release_key(version: str) -> tuple[int, ...] | None:
    """``'2.8.1'`` -> (2, 8, 1); None for pre-releases and local versions."""
    if not re.fullmatch(r"\d+(\.\d+)+", version):
        return None
    return tuple(int(p) for p in version.split("."))


def newest_patch_per_minor(versions: Iterable[str],
                           first: tuple[int, int] = XLA_FIRST_MINOR) -> list[str]:
    """The newest patch release of each minor release from ``first`` on, oldest first."""
    best: dict[tuple[int, int], tuple[int, ...]] = {}
    for v in versions:
        key = _release_key(v)
        if key is None or len(key) < 2 or key[:2] < first:
            continue
        if key > best.get(key[:2], ()):
            best[key[:2]] = key
    return [".".join(map(str, best[m])) for m in sorted(best)]


def download(package: str, version: str, cache: Path, python: str, platform: str,
             offline: bool = False) -> Wheel:
    """The wheel of ``package==version`` in ``cache``, downloaded with pip unless present."""
    norm = re.sub(r"[-_.]+", "_", package).lower()
    pattern = f"{norm}-{version}-*.whl"

    def found() -> Path | None:
        hits = sorted(p for p in cache.glob(pattern) if python.replace(".", "") in p.name)
        return hits[0] if hits else None

    hit = found()
    if hit is None:
        if offline:
            raise FactsError(f"{pattern} is not in {cache} (--offline)")
        cache.mkdir(parents=True, exist_ok=True)
        _run_pip(["download", f"{package}=={version}", "--no-deps", "--only-binary=:all:",
                  "--python-version", python, "--platform", platform, "-d", str(cache)])
        hit = found()
        if hit is None:
            raise FactsError(f"pip download {package}=={version} left no {pattern} in {cache}")
    return Wheel(package, version, hit)


def wheel_sources(path: Path, top: str) -> dict[str, tuple[str, bool]]:
    """``{module name: (source, is_package)}`` for every ``.py`` file under ``top/`` in a wheel."""
    out: dict[str, tuple[str, bool]] = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for name in sorted(zf.namelist()):
                if name.startswith(f"{top}/") and name.endswith(".py"):
                    out.update(_module_entry(name, zf.read(name)))
    except (OSError, zipfile.BadZipFile) as exc:
        raise FactsError(f"cannot read {path}: {exc}") from exc
    return out


def tree_sources(root: Path, top: str) -> dict[str, tuple[str, bool]]:
    """Like :func:`wheel_sources` for an unpacked package (``root/top/...``, e.g. site-packages)."""
    out: dict[str, tuple[str, bool]] = {}
    for path in sorted((root / top).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        out.update(_module_entry(rel, path.read_bytes()))
    return out


def _module_entry(rel: str, data: bytes) -> dict[str, tuple[str, bool]]:
    parts = rel[:-3].split("/")
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    if not all(p.isidentifier() for p in parts):
        return {}
    return {".".join(parts): (data.decode("utf-8", errors="replace"), is_package)}


# ------------------------------------------------------------------ one module, ast only
@dataclass(frozen=True)
class Deprecation:
    """How a release marks an API deprecated: the warning ``message``, the ``replacement``
    it names (a dotted name, or None) and ``how`` (the mechanism, for the reader)."""

    message: str
    replacement: str | None
    how: str


@dataclass
class Binding:
    """A module-level name. ``kind``: def, class, value, alias (a value that is another
    name), from (``from m import n``), star (via ``from m import *``), module
    (``import m``), other (loop, with, except targets)."""

    kind: str
    target: str | None = None  # qualified name for alias/from/star/module bindings
    deprecation: Deprecation | None = None
    fallback: bool = False  # bound in an except handler or an else branch
    conditional: bool = False  # bound only on some branches of an ``if``


def const_text(node: ast.AST | None) -> str | None:
    """The text of a string literal, a concatenation of them, or an f-string's constant parts."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{...}" for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = const_text(node.left), const_text(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def replacement_in(message: str) -> str | None:
    """The dotted API a deprecation message tells users to use instead, or None."""
    m = _REPLACEMENT.search(message)
    return m.group(1) if m else None


class ModuleModel:
    """The module-level bindings of one module of one release, from its ast.

    Follows what ``import`` would execute at module level: statements in order,
    into ``if``/``try``/``with``/``for`` bodies (an ``else`` branch or ``except``
    handler only binds names the main path left unbound), ``del`` unbinds. Names
    bound inside functions and classes are not module attributes.
    """

    def __init__(self, name: str, source: str, is_package: bool) -> None:
        self.name = name
        self.is_package = is_package
        self.tree = ast.parse(source)
        self.imports: dict[str, str] = {}  # local name -> qualified name
        self.bindings: dict[str, Binding] = {}
        self.values: dict[str, ast.expr] = {}  # module-level ``name = <expr>``
        self.all_names: list[str] | None = None
        self.deprecation: Deprecation | None = None
        self.dynamic = False  # module-level __getattr__: any name may resolve
        self.star_sources: list[str] = []
        self.register_calls: list[tuple[ast.expr, int]] = []  # register_deprecated(mod, expr)
        self._conditional = 0  # depth of ``if`` branches being walked
        self._recorders: list[set[str]] = []  # names bound while walking each branch
        self._walk(self.tree.body, fallback=False, top=True)

    # -- names
    def absolute(self, module: str | None, level: int) -> str:
        """The absolute module of ``from <level dots><module> import ...``."""
        if not level:
            return module or ""
        base = self.name.split(".")
        if not self.is_package:
            base = base[:-1]
        base = base[: len(base) - (level - 1)] if level > 1 else base
        return ".".join([*base, module] if module else base)

    def qualify(self, node: ast.AST) -> str | None:
        """The qualified name a Name/Attribute expression refers to, from this module's view."""
        if isinstance(node, ast.Name):
            if node.id in self.imports:
                return self.imports[node.id]
            return f"{self.name}.{node.id}"
        if isinstance(node, ast.Attribute):
            base = self.qualify(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def _bind(self, name: str, binding: Binding, fallback: bool) -> None:
        for recorder in self._recorders:
            recorder.add(name)
        if fallback and name in self.bindings:
            return
        binding.fallback = fallback
        binding.conditional = self._conditional > 0
        self.bindings[name] = binding

    def _branches(self, stmt: ast.If, fallback: bool) -> None:
        """Both branches of an ``if``: a name bound on both is bound unconditionally.

        ``if __name__ == '__main__':`` never runs on import and ``if TYPE_CHECKING:``
        never at run time, so their bodies bind nothing.
        """
        test = ast.unparse(stmt.test).replace('"', "'")
        if test in ("__name__ == '__main__'", "TYPE_CHECKING", "typing.TYPE_CHECKING"):
            self._walk(stmt.orelse, fallback)
            return
        seen: list[set[str]] = []
        for body, fb in ((stmt.body, fallback), (stmt.orelse, True)):
            self._recorders.append(set())
            self._conditional += 1
            try:
                self._walk(body, fb)
            finally:
                self._conditional -= 1
                seen.append(self._recorders.pop())
        if self._conditional == 0:
            for name in seen[0] & seen[1]:
                if name in self.bindings:
                    self.bindings[name].conditional = False

    # -- statements
    def _walk(self, body: list[ast.stmt], fallback: bool, top: bool = False) -> None:
        for i, stmt in enumerate(body):
            self._statement(stmt, fallback, docstring=top and i == 0)

    def _statement(self, stmt: ast.stmt, fallback: bool, docstring: bool = False) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    self.imports[alias.asname] = alias.name
                    self._bind(alias.asname, Binding("module", alias.name), fallback)
                else:
                    head = alias.name.split(".", 1)[0]
                    self.imports[head] = head
                    self._bind(head, Binding("module", head), fallback)
        elif isinstance(stmt, ast.ImportFrom):
            module = self.absolute(stmt.module, stmt.level)
            for alias in stmt.names:
                if alias.name == "*":
                    self.star_sources.append(module)
                    self._bind(f"*{module}", Binding("star", module), fallback)
                    continue
                local = alias.asname or alias.name
                self.imports[local] = f"{module}.{alias.name}"
                self._bind(local, Binding("from", f"{module}.{alias.name}"), fallback)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if stmt.name == "__getattr__":
                self.dynamic = True
            self._bind(stmt.name, Binding("def", deprecation=self._def_deprecation(stmt)),
                       fallback)
        elif isinstance(stmt, ast.ClassDef):
            self._bind(stmt.name, Binding("class", deprecation=self._def_deprecation(stmt)),
                       fallback)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assign(stmt, fallback)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self.bindings.pop(target.id, None)
        elif isinstance(stmt, ast.If):
            self._branches(stmt, fallback)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self._walk(stmt.body, fallback)
            self._walk(stmt.orelse, fallback)
            for handler in stmt.handlers:
                if handler.name:
                    self._bind(handler.name, Binding("other"), True)
                self._walk(handler.body, True)
            self._walk(stmt.finalbody, fallback)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                for name in _target_names(item.optional_vars):
                    self._bind(name, Binding("other"), fallback)
            self._walk(stmt.body, fallback)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            for name in _target_names(stmt.target):
                self._bind(name, Binding("other"), fallback)
            self._register_loop(stmt)
            self._walk(stmt.body, fallback)
            self._walk(stmt.orelse, fallback)
        elif isinstance(stmt, ast.While):
            self._walk(stmt.body, fallback)
            self._walk(stmt.orelse, fallback)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            callee = self.qualify(call.func)
            if callee == XLA_REGISTER_DEPRECATED and len(call.args) >= 2:
                self.register_calls.append((call.args[1], stmt.lineno))
            elif not fallback and not self._conditional and not docstring and \
                    self.deprecation is None:
                text = self._warning_text(call)
                if text is not None:
                    self.deprecation = Deprecation(text, replacement_in(text),
                                                   "warning at import")
            if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
                    and call.func.value.id == "__all__" and call.func.attr == "extend" \
                    and call.args:
                self._extend_all(call.args[0])

    def _assign(self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign, fallback: bool) -> None:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        value = stmt.value
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "__all__":
                if isinstance(stmt, ast.AugAssign):
                    self._extend_all(value)
                else:
                    self.all_names = []
                    self._extend_all(value)
                continue
            if isinstance(stmt, ast.AugAssign):
                continue
            if isinstance(target, ast.Name):
                if value is None:  # a bare annotation binds nothing
                    continue
                self.values[target.id] = value
                self._bind(target.id, self._value_binding(target.id, value), fallback)
            else:
                for name in _target_names(target):
                    self._bind(name, Binding("value"), fallback)

    def _value_binding(self, name: str, value: ast.expr) -> Binding:
        if isinstance(value, (ast.Name, ast.Attribute)):
            target = self.qualify(value)
            if target:
                return Binding("alias", target)
        if isinstance(value, ast.Call) and self.qualify(value.func) == XLA_DEPRECATION_HELPER \
                and len(value.args) >= 2:
            new = self.qualify(value.args[1])
            extra = const_text(value.args[2]) if len(value.args) > 2 else None
            extra = extra or const_text(next((k.value for k in value.keywords
                                              if k.arg == "extra_msg"), None))
            # The text torch_xla.experimental.deprecation.deprecated logs on the first call.
            text = f"{self.name}.{name} is deprecated. Use {new} instead." + (
                f" {extra}" if extra else "")
            return Binding("alias", new, deprecation=Deprecation(
                text, new, "torch_xla.experimental.deprecation.deprecated"))
        return Binding("value")

    def _extend_all(self, value: ast.expr) -> None:
        if self.all_names is None:
            self.all_names = []
        if isinstance(value, (ast.List, ast.Tuple)):
            self.all_names += [t for t in (const_text(e) for e in value.elts) if t]
        elif isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add):
            self._extend_all(value.left)
            self._extend_all(value.right)

    def _register_loop(self, loop: ast.For | ast.AsyncFor) -> None:
        """``for alias in aliases: register_deprecated(this_module, alias)`` (torch_xla 2.1-2.4)."""
        loop_vars = set(_target_names(loop.target))
        calls = [s.value for s in loop.body if isinstance(s, ast.Expr)
                 and isinstance(s.value, ast.Call)
                 and self.qualify(s.value.func) == XLA_REGISTER_DEPRECATED
                 and len(s.value.args) >= 2 and isinstance(s.value.args[1], ast.Name)
                 and s.value.args[1].id in loop_vars]
        if not calls:
            return
        items = loop.iter
        if isinstance(items, ast.Name):
            items = self.values.get(items.id, items)
        if isinstance(items, (ast.List, ast.Tuple)):
            self.register_calls += [(e, loop.lineno) for e in items.elts]

    def _def_deprecation(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                         ) -> Deprecation | None:
        for dec in node.decorator_list:
            func = dec.func if isinstance(dec, ast.Call) else dec
            name = self.qualify(func)
            if name in DEPRECATION_DECORATORS and isinstance(dec, ast.Call):
                text = const_text(dec.args[0]) if dec.args else None
                text = text or const_text(next((k.value for k in dec.keywords
                                                if k.arg in ("reason", "message")), None)) or ""
                return Deprecation(text, replacement_in(text), f"@{name}")
            if name == XLA_MARK_DEPRECATED and isinstance(dec, ast.Call) and dec.args:
                return Deprecation("", self.qualify(dec.args[0]), f"@{name}")
        body = node.body
        if isinstance(node, ast.ClassDef):
            init = next((s for s in body if isinstance(s, ast.FunctionDef)
                         and s.name == "__init__"), None)
            body = init.body if init else []
        for stmt in body:  # unconditional warnings only: not the ones about an argument
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                text = self._warning_text(stmt.value)
                if text is not None:
                    return Deprecation(text, replacement_in(text), "warning on call")
        return None

    def _warning_text(self, call: ast.Call) -> str | None:
        """The text of ``warnings.warn``/``logging.warning``/``logger.warning`` if it says
        'deprecat', else None."""
        name = self.qualify(call.func) or ""
        is_warning = name in WARNING_CALLS or (
            isinstance(call.func, ast.Attribute) and call.func.attr in ("warning", "warn")
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in ("logger", "log", "_logger", "LOGGER"))
        if not is_warning or not call.args:
            return None
        text = const_text(call.args[0])
        if text and "deprecat" in text.lower():
            return " ".join(text.split())
        return None


def _target_names(node: ast.AST | None) -> Iterator[str]:
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for elt in node.elts:
            yield from _target_names(elt)
    elif isinstance(node, ast.Starred):
        yield from _target_names(node.value)


# ------------------------------------------------------------------------ one release
@dataclass
class Resolved:
    """What a name is, after following imports and aliases inside the release."""

    kind: str  # function, class, value, module, external, unknown
    qualname: str  # where it is defined (the public dotted path of the object)
    deprecation: Deprecation | None = None


class ReleaseModel:
    """Every module of one release, and the questions the data file asks of them."""

    def __init__(self, sources: Mapping[str, tuple[str, bool]], top: str) -> None:
        self.top = top
        self.modules: dict[str, ModuleModel] = {}
        self.errors: list[str] = []
        for name, (source, is_package) in sorted(sources.items()):
            try:
                self.modules[name] = ModuleModel(name, source, is_package)
            except SyntaxError as exc:
                self.errors.append(f"{name}: {exc}")
        self._namespace_memo: dict[str, dict[str, Binding]] = {}
        for module in self.modules.values():
            for expr, _line in module.register_calls:
                res = self.resolve(module.qualify(expr) or "")
                short = res.qualname.rsplit(".", 1)[-1]
                new = res.qualname if res.kind != "unknown" else module.qualify(expr)
                message = (f"{module.name}.{short} is deprecated. Use {new} instead.")
                module.bindings.setdefault(short, Binding("alias", module.qualify(expr),
                                                          Deprecation(message, new,
                                                                      XLA_REGISTER_DEPRECATED)))

    def namespace(self, module: str, _seen: frozenset[str] = frozenset()) -> dict[str, Binding]:
        """The names ``getattr(module, name)`` finds: own bindings plus star imports."""
        if module in self._namespace_memo:
            return self._namespace_memo[module]
        model = self.modules.get(module)
        if model is None or module in _seen:
            return {}
        out: dict[str, Binding] = {}
        for name, binding in model.bindings.items():
            if binding.kind != "star":
                out[name] = binding
                continue
            src = binding.target or ""
            if src not in self.modules:
                continue  # a star import from outside: names we cannot see
            src_ns = self.namespace(src, _seen | {module})
            src_all = self.modules[src].all_names
            names = src_all if src_all is not None else [n for n in src_ns if not n.startswith("_")]
            for star_name in names:
                if star_name in src_ns and star_name not in out:
                    out[star_name] = Binding(
                        "from", f"{src}.{star_name}",
                        conditional=binding.conditional or src_ns[star_name].conditional)
        self._namespace_memo[module] = out
        return out

    def opaque(self, module: str) -> bool:
        """True when the module star-imports a module we cannot read (names may be missing)."""
        model = self.modules.get(module)
        return bool(model and (model.dynamic or any(
            s not in self.modules for s in model.star_sources)))

    def resolve(self, qualname: str, _depth: int = 0) -> Resolved:
        """Follow ``qualname`` through imports and aliases to what it is."""
        if _depth > 30 or not qualname:
            return Resolved("unknown", qualname)
        if qualname in self.modules:
            model = self.modules[qualname]
            return Resolved("module", qualname, model.deprecation)
        module, _, name = qualname.rpartition(".")
        if not qualname.startswith(self.top) or not module:
            return Resolved("external", qualname)
        if module not in self.modules:
            parent = self.resolve(module, _depth + 1)
            if parent.kind == "module" and parent.qualname != module:
                return self.resolve(f"{parent.qualname}.{name}", _depth + 1)
            if parent.kind == "class":
                return Resolved("value", qualname)
            return Resolved("unknown" if module.startswith(self.top) else "external", qualname)
        binding = self.namespace(module).get(name)
        if binding is None:
            return Resolved("unknown", qualname)
        if binding.kind in ("def", "class"):
            kind = "function" if binding.kind == "def" else "class"
            return Resolved(kind, qualname, binding.deprecation)
        if binding.kind in ("from", "alias", "module") and binding.target:
            # ``from pkg import sub`` finds pkg's attribute first, else the submodule:
            # resolve() looks at the module table first, which is the same for our
            # packages (none binds a name that shadows its own submodule).
            res = self.resolve(binding.target, _depth + 1)
            if binding.deprecation is not None:
                return Resolved(res.kind if res.kind != "unknown" else "function", res.qualname,
                                binding.deprecation)
            return res
        return Resolved(binding.kind if binding.kind == "value" else "other", qualname,
                        binding.deprecation)

    def public_api(self, module: str) -> dict[str, Resolved]:
        """The public names of ``module`` that are torch_xla API (not imported helpers).

        A name counts when it does not start with ``_`` and is a function, class or
        value defined in the package (also through re-exports), or when the module
        lists it in ``__all__``; modules bound as names are modules, not names.
        """
        out: dict[str, Resolved] = {}
        model = self.modules[module]
        listed = set(model.all_names or ())
        for name, binding in self.namespace(module).items():
            if name.startswith("_") or binding.kind in ("other", "module") or binding.conditional:
                continue
            res = self.resolve(f"{module}.{name}")
            if res.kind == "module":
                continue
            if res.kind in ("function", "class", "value") or name in listed:
                out[name] = res
        return out


# ----------------------------------------------------------------------- torch_xla facts
def in_xla_scope(module: str) -> bool:
    """True for the public torch_xla modules the data file covers."""
    if any(part.startswith("_") or part in ("test", "tests") for part in module.split(".")):
        return False
    if any(module == p or module.startswith(p + ".") for p in XLA_SCOPE_EXCLUDED):
        return False
    return module in XLA_SCOPE_EXACT or any(module == p or module.startswith(p + ".")
                                            for p in XLA_SCOPE_TREES)


def minor(version: str) -> str:
    """``'2.8.1'`` -> ``'2.8'``."""
    return ".".join(version.split(".")[:2])


def _deprecation_json(dep: Deprecation, release: str) -> dict[str, object]:
    return {"release": release, "replacement": dep.replacement, "message": dep.message,
            "how": dep.how}


def xla_facts(releases: Mapping[str, ReleaseModel]) -> dict[str, object]:
    """The ``names`` table of xla_api.json from one model per release (``'2.1'`` -> model).

    Returns ``{qualified name: entry}``; each entry has ``kind`` (function, class,
    value, module; as in the newest release that has it), ``releases`` (the minor
    releases that have it, oldest first), and where they apply ``deprecated``
    (``release``, ``replacement``, ``message``, ``how``: the first release whose
    sources mark it deprecated) and ``removed`` (the first release after the last
    one that has it). ``opaque`` lists releases in which the module star-imports
    something the wheel's Python sources do not show, so absence is not proof.
    """
    order = sorted(releases, key=lambda r: tuple(int(p) for p in r.split(".")))
    present: dict[str, dict[str, Resolved]] = {}  # name -> release -> what it is there
    opaque: dict[str, list[str]] = {}
    for release in order:
        model = releases[release]
        for module in sorted(model.modules):
            if not in_xla_scope(module):
                continue
            present.setdefault(module, {})[release] = model.resolve(module)
            if model.opaque(module):
                opaque.setdefault(module, []).append(release)
            for name, res in model.public_api(module).items():
                present.setdefault(f"{module}.{name}", {})[release] = res
    # "has it" is getattr, not API-ness: a name that stays bound (now as a plain import)
    # is still there.
    for qualname, seen in present.items():
        module, _, name = qualname.rpartition(".")
        if seen and next(iter(seen.values())).kind == "module":
            continue
        for release in order:
            if release in seen:
                continue
            model = releases[release]
            if module in model.modules and name in model.namespace(module):
                seen[release] = model.resolve(qualname)
    conditional: dict[str, list[str]] = {}
    for qualname, seen in present.items():
        module, _, name = qualname.rpartition(".")
        for release in seen:
            binding = releases[release].namespace(module).get(name) \
                if module in releases[release].modules else None
            if binding is not None and binding.conditional:
                conditional.setdefault(qualname, []).append(release)
    names: dict[str, object] = {}
    for qualname in sorted(present):
        seen = present[qualname]
        have = [r for r in order if r in seen]
        entry: dict[str, object] = {"kind": _kind(seen[have[-1]].kind), "releases": have}
        first_dep = next((r for r in have if seen[r].deprecation is not None), None)
        if first_dep is not None:
            last_dep = [r for r in have if seen[r].deprecation is not None][-1]
            dep = seen[last_dep].deprecation
            assert dep is not None
            entry["deprecated"] = _deprecation_json(dep, first_dep)
        if have[-1] != order[-1]:
            later = order[order.index(have[-1]) + 1]
            entry["removed"] = later
            if qualname in SILENT_REMOVAL_REPLACEMENTS and "deprecated" not in entry:
                repl, why = SILENT_REMOVAL_REPLACEMENTS[qualname]
                entry["replacement"] = {"name": repl, "evidence": why}
        if conditional.get(qualname):
            entry["conditional_in"] = sorted(conditional[qualname], key=have.index)
        module = qualname.rpartition(".")[0]
        if opaque.get(module):
            entry["opaque_in"] = opaque[module]
        names[qualname] = entry
    return names


def _kind(kind: str) -> str:
    return kind if kind in ("function", "class", "module") else "value"


# ------------------------------------------------------------------------ torch-tpu facts
class _Evaluator:
    """Evaluates the string expressions of ``public_api.py`` (constants, f-strings, the
    one-line helper functions such as ``_tpu_attr``) without running the module."""

    def __init__(self, tree: ast.Module) -> None:
        self.consts: dict[str, str] = {}
        self.funcs: dict[str, ast.FunctionDef] = {}
        for stmt in tree.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
                if isinstance(target, ast.Name) and stmt.value is not None:
                    value = self.eval(stmt.value, {})
                    if isinstance(value, str):
                        self.consts[target.id] = value
            elif isinstance(stmt, ast.FunctionDef):
                self.funcs[stmt.name] = stmt

    def eval(self, node: ast.AST, env: dict[str, str]) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env.get(node.id, self.consts.get(node.id))
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                value = self.eval(v.value if isinstance(v, ast.FormattedValue) else v, env)
                if not isinstance(value, str):
                    return None
                parts.append(value)
            return "".join(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.eval(node.left, env), self.eval(node.right, env)
            return left + right if isinstance(left, str) and isinstance(right, str) else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "Property" and node.args:
                target = self.eval(node.args[0], env)
                return {"property": target} if isinstance(target, str) else None
            func = self.funcs.get(node.func.id)
            if func and len(func.body) == 1 and isinstance(func.body[0], ast.Return):
                args = [self.eval(a, env) for a in node.args]
                params = [a.arg for a in func.args.args]
                if len(args) == len(params) and all(isinstance(a, str) for a in args):
                    return self.eval(func.body[0].value, dict(zip(params, args)))  # type: ignore[arg-type]
        return None


def _call_name(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else node
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _version_tuple(node: ast.AST | None) -> list[int] | None:
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Constant) and isinstance(e.value, int)
                                           for e in node.elts):
        return [e.value for e in node.elts]  # type: ignore[union-attr]
    return None


class TpuSources:
    """The Python sources of the torch-tpu wheel, parsed on demand."""

    def __init__(self, sources: Mapping[str, tuple[str, bool]]) -> None:
        self.sources = sources
        self._trees: dict[str, ast.Module] = {}

    def path(self, module: str) -> str:
        """The file of ``module`` inside the wheel (``torch_tpu/_internal/x.py``)."""
        is_package = self.sources[module][1]
        return module.replace(".", "/") + ("/__init__.py" if is_package else ".py")

    def tree(self, module: str) -> ast.Module:
        """The ast of ``module``. Raises KeyError when the wheel lacks it."""
        if module not in self._trees:
            self._trees[module] = ast.parse(self.sources[module][0])
        return self._trees[module]

    def find(self, target: str) -> tuple[str, ast.AST] | None:
        """``'pkg.mod:Cls.attr'`` -> (module, the def/class/assignment that defines it)."""
        module, _, qual = target.partition(":")
        if module not in self.sources:
            return None
        return self._find_in(module, qual.split("."), 0)

    def _find_in(self, module: str, parts: list[str], depth: int) -> tuple[str, ast.AST] | None:
        if depth > 10:
            return None
        tree = self.tree(module)
        imports = _module_imports(tree, module, self.sources)
        scope: list[ast.stmt] = tree.body
        classes = {s.name: s for s in scope if isinstance(s, ast.ClassDef)}
        node: ast.AST | None = None
        for i, part in enumerate(parts):
            node = _lookup(scope, part)
            if node is None:
                return None
            if isinstance(node, ast.ClassDef):
                scope = node.body
                continue
            if isinstance(node, ast.Assign) and i == len(parts) - 1:
                value = node.value
                if isinstance(value, ast.Call) and isinstance(value.args[0] if value.args else None,
                                                              (ast.Name, ast.Attribute)):
                    value = value.args[0]  # Precision = experimental(...)(impl.Precision)
                if isinstance(value, ast.Name) and value.id in classes:
                    return module, classes[value.id]
                dotted = _call_name(value) if isinstance(value, (ast.Name, ast.Attribute)) else ""
                head = dotted.split(".", 1)[0]
                if head in imports:
                    full = imports[head] + dotted[len(head):]
                    mod, _, name = full.rpartition(".")
                    while mod and mod not in self.sources:
                        mod, _, extra = mod.rpartition(".")
                        name = f"{extra}.{name}"
                    if mod:
                        return self._find_in(mod, name.split("."), depth + 1)
            return module, node
        return (module, node) if node is not None else None


def _lookup(scope: list[ast.stmt], name: str) -> ast.AST | None:
    for stmt in scope:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                stmt.name == name:
            return stmt
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                for t in stmt.targets):
            return stmt
    return None


def _module_imports(tree: ast.Module, module: str, sources: Mapping[str, tuple[str, bool]]
                    ) -> dict[str, str]:
    out: dict[str, str] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                out[a.asname or a.name.split(".", 1)[0]] = a.name if a.asname else \
                    a.name.split(".", 1)[0]
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for a in stmt.names:
                out[a.asname or a.name] = f"{stmt.module}.{a.name}"
    return out


def _member(tpu: TpuSources, target: str) -> tuple[str, ast.AST] | None:
    """Like :meth:`TpuSources.find`, also looking through same-module base classes."""
    found = tpu.find(target)
    if found is not None:
        return found
    module, _, qual = target.partition(":")
    parts = qual.split(".")
    if module not in tpu.sources or len(parts) != 2:
        return None
    tree = tpu.tree(module)
    classes = {s.name: s for s in tree.body if isinstance(s, ast.ClassDef)}
    todo = [parts[0]]
    while todo:
        cls = classes.get(todo.pop(0))
        if cls is None:
            continue
        node = _lookup(cls.body, parts[1])
        if node is not None:
            if isinstance(node, ast.Assign):
                return tpu.find(f"{module}:{cls.name}.{parts[1]}") or (module, node)
            return module, node
        todo += [_call_name(b) for b in cls.bases]
    return None


def _stage(tpu: TpuSources, module: str, node: ast.AST, torch_range: tuple[list[int], list[int]]
           ) -> dict[str, object]:
    """The lifecycle facts of one definition, from its decorators and body."""
    out: dict[str, object] = {"file": tpu.path(module), "line": getattr(node, "lineno", 0)}
    decorators = getattr(node, "decorator_list", [])
    for dec in decorators:
        name = _call_name(dec)
        last = name.rsplit(".", 1)[-1]
        if last == "internal_or_experimental" and isinstance(dec, ast.Call):
            cond = _kw(dec, "internal_when")
            since = None
            if isinstance(cond, ast.Compare) and len(cond.ops) == 1 and \
                    isinstance(cond.ops[0], ast.GtE):
                since = _version_tuple(cond.comparators[0])
            prefer = const_text(_kw(dec, "prefer"))
            strict = _kw(dec, "strict")
            out["stage"] = "internal_or_experimental"
            out["internal_from_torch"] = since
            out["internal_for_all_supported_torch"] = bool(since is not None
                                                           and torch_range[0] >= since)
            out["prefer"] = prefer
            if isinstance(strict, ast.Constant):
                out["strict"] = strict.value
            elif isinstance(strict, ast.Name):  # a module-level flag: record what sets it
                for stmt in tpu.tree(module).body:
                    tgt = stmt.target if isinstance(stmt, ast.AnnAssign) else (
                        stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
                    if isinstance(tgt, ast.Name) and tgt.id == strict.id and stmt.value:
                        out["strict"] = ast.unparse(stmt.value)
                        env = next((const_text(n) for n in ast.walk(stmt.value)
                                    if isinstance(n, ast.Constant) and isinstance(n.value, str)),
                                   None)
                        if env:
                            out["strict_env"] = env
        elif last == "experimental":
            out.setdefault("stage", "experimental")
        elif last == "deprecated" and isinstance(dec, ast.Call):
            out["stage"] = "deprecated"
            out["deprecated_in"] = const_text(_kw(dec, "version"))
            out["reason"] = const_text(_kw(dec, "reason"))
            repl = replacement_in(out["reason"] or "")  # type: ignore[arg-type]
            if repl:
                out["replacement"] = repl
        elif last == "forbid_in_torch_compile" and isinstance(dec, ast.Call):
            out["forbidden_in_compile"] = const_text(dec.args[0]) if dec.args else None
    for sub in ast.walk(node) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else ():
        if isinstance(sub, ast.Call) and _call_name(sub).endswith("_dynamo.graph_break"):
            out["graph_break"] = " ".join((const_text(_kw(sub, "msg")) or "").split())
            out["graph_break_line"] = sub.lineno
    out.setdefault("stage", "stable")
    return out


def _stages_map_entry(tpu: TpuSources, target: str, name: str) -> dict[str, object]:
    """The stage of a name served from a module's ``__tt_api_stages__`` dict."""
    module = target.partition(":")[0]
    if module not in tpu.sources:
        return {}
    for stmt in tpu.tree(module).body:
        tgt = stmt.target if isinstance(stmt, ast.AnnAssign) else (
            stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
        if isinstance(tgt, ast.Name) and tgt.id == "__tt_api_stages__" and \
                isinstance(stmt.value, ast.Dict):
            for key, value in zip(stmt.value.keys, stmt.value.values):
                if const_text(key) == name and isinstance(value, ast.Call):
                    stage = _kw(value, "stage")
                    label = stage.attr.lower() if isinstance(stage, ast.Attribute) else "stable"
                    return {"file": tpu.path(module), "line": value.lineno, "stage": label,
                            "reason": const_text(_kw(value, "reason"))}
    return {}


def _public_table(tpu: TpuSources) -> tuple[str, dict[str, dict[str, object]]]:
    module = "torch_tpu._internal.public_api"
    tree = tpu.tree(module)
    ev = _Evaluator(tree)
    table = None
    for stmt in tree.body:
        target = stmt.target if isinstance(stmt, ast.AnnAssign) else (
            stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
        if isinstance(target, ast.Name) and target.id == "_PUBLIC_MODULES":
            table = stmt.value
    if not isinstance(table, ast.Dict):
        raise FactsError("torch_tpu/_internal/public_api.py: no _PUBLIC_MODULES dict")
    out: dict[str, dict[str, object]] = {}
    for key, spec in zip(table.keys, table.values):
        mod = ev.eval(key, {}) if key is not None else None
        if not isinstance(mod, str) or not isinstance(spec, ast.Call):
            continue
        exports = _kw(spec, "exports")
        entries: dict[str, object] = {}
        if isinstance(exports, ast.Dict):
            for k, v in zip(exports.keys, exports.values):
                name = ev.eval(k, {}) if k is not None else None
                value = ev.eval(v, {})
                if isinstance(name, str) and value is not None:
                    entries[name] = value
        main = ev.eval(_kw(spec, "main"), {}) if _kw(spec, "main") is not None else None
        out[mod] = {"exports": entries, "main": main}
    return tpu.path(module), out


def _find_string(tpu: TpuSources, module: str, needle: str) -> tuple[int, str] | None:
    """(line, text) of the first string constant of ``module`` containing ``needle``."""
    for node in ast.walk(tpu.tree(module)):
        text = const_text(node) if isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp)) \
            else None
        if text and needle in text:
            return node.lineno, " ".join(text.split())  # type: ignore[attr-defined]
    return None


def _def_line(tpu: TpuSources, module: str, name: str) -> int | None:
    for node in ast.walk(tpu.tree(module)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node.lineno
    return None


def _requires_torch(metadata: str) -> tuple[str, list[int], list[int]]:
    m = re.search(r"^Requires-Dist:\s*torch\s*(\S.*)$", metadata, re.MULTILINE)
    spec = m.group(1).strip() if m else ""
    low = re.search(r">=\s*([\d.]+)", spec)
    high = re.search(r"<=?\s*([\d.]+)", spec)

    def nums(v: re.Match[str] | None) -> list[int]:
        return [int(p) for p in v.group(1).split(".")[:2]] if v else []
    return spec, nums(low), nums(high)


def tpu_facts(wheel_path: Path) -> dict[str, object]:
    """The body of torchtpu_api.json from the torch-tpu wheel (ast only)."""
    sources = wheel_sources(wheel_path, "torch_tpu")
    tpu = TpuSources(sources)
    with zipfile.ZipFile(wheel_path) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = zf.read(meta_name).decode("utf-8", errors="replace")
        ep_name = meta_name.replace("METADATA", "entry_points.txt")
        entry_points = zf.read(ep_name).decode("utf-8", errors="replace") \
            if ep_name in zf.namelist() else ""
    spec, low, high = _requires_torch(metadata)
    table_file, table = _public_table(tpu)
    public: dict[str, object] = {}
    for mod, spec_info in sorted(table.items()):
        exports = spec_info["exports"]
        assert isinstance(exports, dict)
        for name, target in sorted(exports.items()):
            entry: dict[str, object] = {"module": mod, "table": table_file}
            if isinstance(target, dict):
                entry["target"] = target.get("property")
                entry["property"] = True
                target_str = str(target.get("property") or "")
            else:
                entry["target"] = target
                target_str = str(target)
            found = _member(tpu, target_str)
            if found is not None:
                entry.update(_stage(tpu, found[0], found[1], (low, high)))
            else:
                entry.update(_stages_map_entry(tpu, target_str, name))
            public[f"{mod}.{name}"] = entry
    traps: dict[str, object] = {}
    m = re.search(r"^\[torch\.backends\]\s*\n\s*(\S+)\s*=\s*(\S+)", entry_points, re.MULTILINE)
    if m:  # torch's device-backend autoload: `import torch` imports it
        traps["autoload"] = {"file": ep_name, "group": "torch.backends", "name": m.group(1),
                             "entry": m.group(2)}
    loader = "torch_tpu._loader"
    backend = "torch_tpu._internal.compile._backend"
    device = "torch_tpu._internal.device._device_module"
    hit = _find_string(tpu, backend, "does not support torch.compile(..., dynamic=True")
    if hit:
        traps["compile_dynamic_true"] = {
            "file": tpu.path(backend), "line": hit[0], "raises": "NotImplementedError",
            "message": hit[1],
            "when": "the TPU backend compiles a graph while torch._dynamo.config."
                    "assume_static_by_default is False (what dynamic=True sets)"}
    hit = _find_string(tpu, loader, "backend='inductor') on TPU")
    line = _def_line(tpu, loader, "_tpu_inductor_wrapper_call")
    if hit and line:
        traps["compile_inductor_tpu_inputs"] = {
            "file": tpu.path(loader), "line": line, "raises": "RuntimeError",
            "message": hit[1],
            "when": "torch.compile(..., backend='inductor') is called with a tensor on the "
                    "TPU, unless options={'tpu_backend': 'pallas'}"}
    line = _def_line(tpu, loader, "_default_tpu_compile")
    if line:
        traps["compile_defaults"] = {
            "file": tpu.path(loader), "line": line,
            "what": "torch.compile is patched: backend defaults to the TPU selector and "
                    "dynamic to False for TPU backends"}
    hit = _find_string(tpu, device, "cannot access or re-initialize TPU in a forked subprocess")
    if hit:
        traps["forked_child"] = {"file": tpu.path(device), "line": hit[0],
                                 "raises": "RuntimeError", "message": hit[1]}
    hit = _find_string(tpu, loader, "register_backend")
    for node in ast.walk(tpu.tree(loader)):
        if isinstance(node, ast.Call) and _call_name(node).endswith("Backend.register_backend"):
            name = const_text(node.args[0]) if node.args else None
            if name:
                traps.setdefault("process_group_backends", {"file": tpu.path(loader),
                                                            "line": node.lineno, "names": []})
                traps["process_group_backends"]["names"].append(name)  # type: ignore[index]
    for node in ast.walk(tpu.tree(loader)):
        if isinstance(node, ast.Call) and _call_name(node).endswith(
                "rename_privateuse1_backend"):
            traps["device_name"] = {"file": tpu.path(loader), "line": node.lineno,
                                    "device": const_text(node.args[0]) if node.args and
                                    const_text(node.args[0]) else "tpu"}
    for mod, spec_info in sorted(table.items()):
        main = spec_info.get("main")
        if isinstance(main, str) and main in sources:
            line = _def_line(tpu, main, "_print_launch_env")
            printed = []
            for node in ast.walk(tpu.tree(main)):
                if isinstance(node, ast.FunctionDef) and node.name == "_print_launch_env":
                    for sub in ast.walk(node):
                        if isinstance(sub, ast.Call) and _call_name(sub) == "print" and sub.args:
                            text = const_text(sub.args[0]) or ""
                            if "=" in text and "{" not in text.split("=", 1)[0]:
                                printed.append(text.split("=", 1)[0])
            traps["launch_env_cli"] = {"file": tpu.path(main), "line": line,
                                       "command": f"python -m {mod}", "prints": printed}
    for key, suffix in (("device_methods", "generate_methods_for_privateuse1_backend"),
                        ("profiler_backend", "profiler.register_kineto_backend"),
                        ("compile_patch", "torch.compile")):
        for node in ast.walk(tpu.tree(loader)):
            if key == "compile_patch":  # the assignment that patches torch.compile
                hit = isinstance(node, ast.Assign) and any(
                    _call_name(t) == "torch.compile" for t in node.targets)
            else:
                hit = isinstance(node, ast.Call) and _call_name(node).endswith(suffix)
            if hit:
                traps[key] = {"file": tpu.path(loader), "line": node.lineno,  # type: ignore[attr-defined]
                              "code": ast.unparse(node)}
                break
    ann = "torch_tpu._internal.utils.annotations"
    hit = _find_string(tpu, ann, "can only be called by the")
    if hit:
        traps["internal_api_error"] = {"file": tpu.path(ann), "line": hit[0],
                                       "raises": "RuntimeError", "message": hit[1],
                                       "not_checked_under_compile": True}
    dev_cls = tpu.tree(device)
    for node in ast.walk(dev_cls):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                node.target.id == "_autocast_dtype":
            traps["autocast_default_dtype"] = {"file": tpu.path(device), "line": node.lineno,
                                               "dtype": ast.unparse(node.value)
                                               if node.value else None}
    return {"torch_requirement": spec, "torch_min": low, "torch_max": high,
            "public": public, "traps": traps}


# ---------------------------------------------------------------------------- writing
def dumps(data: Mapping[str, object]) -> str:
    """The data file's text: sorted keys, one ``names``/``public`` entry per line.

    The header keys come first (sorted), the large table (``names`` or ``public``) last.
    """
    lines = ["{"]
    keys = sorted(data, key=lambda k: (k in ("names", "public"), k))
    for i, key in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        value = data[key]
        if key in ("names", "public") and isinstance(value, dict):
            lines.append(f" {json.dumps(key)}: {{")
            items = sorted(value.items())
            for j, (name, entry) in enumerate(items):
                sep = "," if j + 1 < len(items) else ""
                lines.append(f"  {json.dumps(name)}: "
                             f"{json.dumps(entry, sort_keys=True, ensure_ascii=False)}{sep}")
            lines.append(f" }}{comma}")
        else:
            text = json.dumps(value, sort_keys=True, indent=1, ensure_ascii=False)
            text = text.replace("\n", "\n ")
            lines.append(f" {json.dumps(key)}: {text}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def build_xla(wheels: list[Wheel]) -> str:
    """The text of xla_api.json from the torch_xla wheels (oldest first)."""
    models = {minor(w.version): ReleaseModel(wheel_sources(w.path, "torch_xla"), "torch_xla")
              for w in wheels}
    for release, model in models.items():
        for err in model.errors:
            print(f"warning: torch_xla {release}: cannot parse {err}", file=sys.stderr)
    header = {
        "schema": SCHEMA,
        "generator": GENERATOR,
        "package": XLA_PACKAGE,
        "platform": f"cp{XLA_PYTHON.replace('.', '')}-{XLA_PLATFORM}",
        "releases": [minor(w.version) for w in wheels],
        "wheels": {minor(w.version): {"file": w.path.name, "version": w.version,
                                      "sha256": w.sha256} for w in wheels},
        "scope": {"modules": list(XLA_SCOPE_EXACT), "trees": list(XLA_SCOPE_TREES),
                  "excluded": list(XLA_SCOPE_EXCLUDED)},
        "about": ("Facts read with ast from the torch_xla wheels named here (never imported). "
                  "'releases': the minor releases in which `import module; getattr(module, "
                  "name)` finds the name; 'deprecated': the first release whose sources mark "
                  "it deprecated and the replacement the notice names; 'removed': the first "
                  "release after the last one that has it. Regenerate with "
                  "`python scripts/api_facts.py`."),
    }
    return dumps({**header, "names": xla_facts(models)})


def build_tpu(wheel: Wheel) -> str:
    """The text of torchtpu_api.json from the torch-tpu wheel."""
    body = tpu_facts(wheel.path)
    header = {
        "schema": SCHEMA,
        "generator": GENERATOR,
        "package": TPU_PACKAGE,
        "version": wheel.version,
        "wheel": {"file": wheel.path.name, "sha256": wheel.sha256},
        "about": ("Facts read with ast from the torch-tpu wheel named here (never imported): "
                  "'public' is the torch.tpu table of torch_tpu/_internal/public_api.py with "
                  "the stage each target's decorators give it; 'traps' are errors and "
                  "behaviours its sources show, each with its file and line. Regenerate with "
                  "`python scripts/api_facts.py`."),
    }
    return dumps({**header, **body})


def main(argv: list[str] | None = None) -> int:
    """Command line; returns the exit status (0 written/reproduced, 1 differs, 2 error)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                   help="folder for the downloaded wheels (default: build/api-wheels)")
    p.add_argument("--out-dir", type=Path, default=DATA_DIR,
                   help="where the data files go (default: flake8_xla/data)")
    p.add_argument("--xla-versions", default=None,
                   help="comma-separated torch_xla versions (default: the newest patch of "
                        "every minor release from 2.1 on the package index)")
    p.add_argument("--offline", action="store_true",
                   help="use only wheels already in --cache (with --xla-versions)")
    p.add_argument("--check", action="store_true",
                   help="regenerate in memory and compare with the files in --out-dir")
    p.add_argument("--only", choices=("xla", "tpu"), default=None,
                   help="generate only xla_api.json or only torchtpu_api.json")
    args = p.parse_args(argv)
    outputs: dict[str, str] = {}
    try:
        if args.only != "tpu":
            outputs["xla_api.json"] = build_xla(_xla_wheels(args))
        if args.only != "xla":
            outputs["torchtpu_api.json"] = build_tpu(download(
                TPU_PACKAGE, TPU_VERSION, args.cache, TPU_PYTHON, TPU_PLATFORM, args.offline))
    except FactsError as exc:
        print(f"api_facts: error: {exc}", file=sys.stderr)
        return 2
    status = 0
    for name, text in outputs.items():
        path = args.out_dir / name
        if args.check:
            old = path.read_text(encoding="utf-8") if path.is_file() else None
            same = old == text
            print(f"{path}: {'reproduced' if same else 'DIFFERS'}")
            status = status or (0 if same else 1)
        else:
            args.out_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path} ({len(text.encode())} bytes)")
    return status


def _xla_wheels(args: argparse.Namespace) -> list[Wheel]:
    """The torch_xla wheels to read: ``--xla-versions``, or the cache (``--offline``), or
    the newest patch of every minor release on the package index."""
    if args.xla_versions:
        versions = [v.strip() for v in args.xla_versions.split(",") if v.strip()]
    elif args.offline:
        versions = newest_patch_per_minor(
            m.group(1) for m in (re.match(r"torch_xla-([^-]+)-", w.name)
                                 for w in args.cache.glob("torch_xla-*.whl")) if m)
    else:
        versions = newest_patch_per_minor(index_versions(XLA_PACKAGE, XLA_PYTHON, XLA_PLATFORM))
    if not versions:
        raise FactsError("no torch_xla version to read")
    return [download(XLA_PACKAGE, v, args.cache, XLA_PYTHON, XLA_PLATFORM, args.offline)
            for v in versions]


if __name__ == "__main__":
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", line_buffering=True) \
        if hasattr(sys.stdout, "buffer") else sys.stdout
    raise SystemExit(main())
