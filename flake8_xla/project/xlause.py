"""Does a module show XLA use? (syntax only: flake8's ast tree and the import table)

Two tests, both cheap and both necessary conditions written in the module itself:

- :func:`file_rule` is the per-file rule of ``--xla-target=file`` (and of every release
  before project analysis): an import of ``torch_xla`` (or the legacy ``torch_xla_py``),
  or the string ``'xla'`` / ``'xla:N'`` in the code.
- :func:`shows_xla_use` is what ``--xla-target=auto`` takes for XLA use in the module
  itself: the file rule, or a framework's own XLA switch. Code that branches on
  accelerate's ``DistributedType.XLA`` (or ``.TPU``), calls transformers' or
  accelerate's ``is_torch_xla_available()`` / ``is_torch_tpu_available()``, builds
  Lightning's ``XLAAccelerator`` / ``XLAStrategy`` / ``XLAFSDPStrategy`` or passes
  ``accelerator="tpu"`` (or Lightning 1.x's ``Trainer(tpu_cores=...)``, or names ignite's
  ``"xla-tpu"`` distributed backend, or sets transformers' ``TrainingArguments(
  tpu_num_cores=...)``) runs on an
  XLA device when the job does: such a script has an XLA path (accelerate ``utils/dataclasses.py`` ``DistributedType``; transformers
  ``utils/import_utils.py``; Lightning ``fabric/accelerators/xla.py``). So does a
  script that builds accelerate's ``Accelerator()``: ``accelerate launch`` with a TPU
  config (``accelerate config``, ``distributed_type: XLA``) runs it unchanged on the
  XLA device, and accelerate's own docs (``docs/source/concept_guides/training_tpu.md``)
  describe exactly these scripts on TPU.

:func:`is_program` says whether a module that shows XLA use runs on XLA as a whole: a
script (an ``if __name__ == "__main__":`` block) or a module that imports ``torch_xla``
unconditionally at its top level. Only such modules make the project modules they import
XLA code (see :mod:`flake8_xla.project.index`): a library whose XLA support is optional
(every ``torch_xla`` import behind an ``if``/``try`` or inside a function, as in
transformers' ``trainer.py``) is checked itself but does not pull its imports in.
"""

from __future__ import annotations

import ast
import re
import string

from flake8_xla.astwalk import walk
from flake8_xla.imports import ImportTable

#: Cheap text test: a module that shows XLA use spells ``xla``, ``Accelerator`` or ``xm.``, or
#: starts a word with ``tpu`` (``use_tpu``, ``TPUAccelerator``; not ``outputs``).
XLA_TEXT = re.compile(r"xla|XLA|Accelerator|xm\.|(?<![A-Za-z])(?:tpu|TPU|Tpu)")
#: Frameworks whose XLA switches count as XLA use (names with an ``xla``/``tpu`` word).
FRAMEWORKS = ("accelerate", "transformers", "lightning", "pytorch_lightning",
              "lightning_fabric", "optimum")
_WORDS = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SWITCH_WORDS = frozenset({"xla", "tpu"})


def _has_switch_word(name: str) -> bool:
    """``is_torch_xla_available``, ``XLAStrategy``, ``TPU``: an ``xla``/``tpu`` word."""
    return any(w.lower() in _SWITCH_WORDS for w in _WORDS.split(name) if w)


#: Framework objects whose construction puts the script on whatever device the launcher
#: chose, the XLA device included (see the module docstring).
LAUNCHER_OBJECTS = frozenset({"accelerate.Accelerator", "accelerate.accelerator.Accelerator"})


#: Lightning 1.x's TPU switch, ``pl.Trainer(tpu_cores=8)`` (or ``tpu_cores=args.tpu_cores``):
#: the Trainer runs the fit on that many XLA devices when it is given
#: (``pytorch_lightning/trainer/trainer.py`` of Lightning 1.x; deprecated in 1.7 for
#: ``accelerator="tpu", devices=N``).
LIGHTNING_TPU_CORES = "tpu_cores"

#: ignite's name of its XLA distributed backend (``ignite/distributed/comp_models/xla.py``,
#: ``XLA_TPU``): ``idist.Parallel(backend="xla-tpu")`` runs the script's training on the
#: XLA devices, and a script that names it (``--backend xla-tpu``, ``if backend ==
#: "xla-tpu":``) has an XLA path.
IGNITE_XLA_BACKEND = "xla-tpu"

_ASCII_LETTERS = frozenset(string.ascii_letters)
_ASCII_LETTER_BYTES = frozenset(string.ascii_letters.encode())


def mentions_xla(source: str | bytes) -> bool:
    """The text could show XLA use (necessary for :func:`shows_xla_use`): what
    :data:`XLA_TEXT` matches (``xla``, ``XLA``, ``Accelerator``, ``xm.``, or ``tpu``/``TPU``/
    ``Tpu`` not preceded by a letter, as in ``use_tpu`` but not ``output``), found with
    substring searches (the regular expression's look-behind is slow on long files full of
    ``output``). Takes the text or its raw bytes."""
    if isinstance(source, bytes):
        if b"xla" in source or b"XLA" in source or b"Accelerator" in source or \
                b"xm." in source:
            return True
        letters: frozenset = _ASCII_LETTER_BYTES
        variants: tuple = (b"tpu", b"TPU", b"Tpu")
    else:
        if "xla" in source or "XLA" in source or "Accelerator" in source or "xm." in source:
            return True
        letters = _ASCII_LETTERS
        variants = ("tpu", "TPU", "Tpu")
    for word in variants:
        at = source.find(word)
        while at != -1:
            if at == 0 or source[at - 1] not in letters:
                return True
            at = source.find(word, at + 1)
    return False


def file_rule(tree: ast.AST, source: str, imports: ImportTable) -> bool:
    """The per-file rule: an import of torch_xla/torch_xla_py, or an ``'xla'`` device string
    (or a conventional torch_xla alias used without an import, which a notebook made:
    :attr:`ImportTable.implicit`)."""
    if imports.implicit:
        return True
    if "xla" not in source:
        return False
    if imports.imports_prefix("torch_xla") or imports.imports_prefix("torch_xla_py"):
        return True
    for node in walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                node.value == "xla" or node.value.startswith("xla:")):
            return True
    return False


def name_chain(node: ast.AST) -> list[str] | None:
    """``["a", "b", "c"]`` for ``a.b.c``; None when the chain does not start at a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def _dotted(node: ast.AST) -> str | None:
    chain = name_chain(node)
    return ".".join(chain) if chain is not None else None


def _resolved(node: ast.AST, imports: ImportTable) -> str | None:
    """The qualified name a ``Name``/``Attribute`` chain spells through the module's
    imports (``pl.Trainer`` -> ``pytorch_lightning.Trainer``), else None."""
    dotted = _dotted(node)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    resolved = imports.resolve(head)
    if resolved is None:
        return None
    return f"{resolved}.{rest}" if rest else resolved


def _switch(qualname: str) -> bool:
    """A framework name of the XLA path (``accelerate.DistributedType.XLA``...)."""
    head, _, rest = qualname.partition(".")
    if head not in FRAMEWORKS or not rest:
        return False
    return any(_has_switch_word(part) for part in rest.split("."))


def shows_xla_use(tree: ast.AST, source: str, imports: ImportTable) -> bool:
    """XLA use written in the module (see the module docstring); syntax only, no astroid."""
    if not mentions_xla(source):
        return False
    if file_rule(tree, source, imports):
        return True
    launcher = "Accelerator" in source and imports.imports_prefix("accelerate")
    constants: dict[str, object] | None = None
    ignite = IGNITE_XLA_BACKEND in source and imports.imports_prefix("ignite")
    for node in walk(tree):
        if launcher and isinstance(node, ast.Call) and \
                _resolved(node.func, imports) in LAUNCHER_OBJECTS:
            return True
        if isinstance(node, (ast.Attribute, ast.Name)):
            if isinstance(node, ast.Name) and not _has_switch_word(node.id):
                continue
            if isinstance(node, ast.Attribute) and not _has_switch_word(node.attr):
                continue
            dotted = _dotted(node)
            if dotted is None:
                continue
            head, _, rest = dotted.partition(".")
            resolved = imports.resolve(head)
            if resolved is not None and _switch(f"{resolved}.{rest}" if rest else resolved):
                return True
        if isinstance(node, ast.Call) and (_tpu_trainer(node, imports) or
                                           _tpu_training_arguments(node, imports)):
            return True
        if isinstance(node, ast.keyword) and node.arg == "accelerator":
            if constants is None and isinstance(node.value, ast.Name):
                constants = module_constants(tree)
            if _tpu_accelerator(node, constants):
                return True
        if ignite and isinstance(node, ast.Constant) and node.value == IGNITE_XLA_BACKEND:
            return True
    return False


def tpu_trainer_keyword(arg: str | None, value: object) -> bool:
    """A framework Trainer's TPU switch, by a keyword's name and constant value (None when
    it is no constant): Lightning 1.x's ``tpu_cores=...`` (any value), or
    ``accelerator="tpu"`` (or ``"xla"``), Lightning's XLA accelerator by name."""
    return arg == LIGHTNING_TPU_CORES or arg == "accelerator" and isinstance(value, str) and \
        value.lower() in ("tpu", "xla")


def _tpu_accelerator(kw: ast.keyword, constants: dict[str, object] | None = None) -> bool:
    """``accelerator="tpu"`` (or ``"xla"``): Lightning's XLA accelerator, by name (also
    through a module constant, ``ACCELERATOR = "tpu"``)."""
    return kw.arg == "accelerator" and tpu_trainer_keyword(kw.arg,
                                                           _constant(kw.value, constants))


def _constant(node: ast.expr, constants: dict[str, object] | None = None) -> object:
    """The value of a constant expression, or of a name that ``constants`` (the module's
    constants, :func:`module_constants`) holds; else None."""
    if isinstance(node, ast.Constant):
        return node.value
    if constants and isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def module_constants(tree: ast.AST) -> dict[str, object]:
    """The module's constants: names that one top-level statement binds to a constant
    (``ACCELERATOR = "tpu"``, ``DEVICES: int = 8``) and that nothing else in the module
    binds at its top level or declares ``global``."""
    if not isinstance(tree, ast.Module):
        return {}
    found: dict[str, object] = {}
    counts: dict[str, int] = {}
    for stmt in tree.body:
        for node in ast.walk(stmt) if not isinstance(
                stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else [stmt]:
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                counts[node.id] = counts.get(node.id, 0) + 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                counts[node.name] = counts.get(node.name, 0) + 1
        target = value = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            target, value = stmt.target, stmt.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant):
            found[target.id] = value.value
    declared = {name for node in ast.walk(tree) if isinstance(node, ast.Global)
                for name in node.names}
    return {k: v for k, v in found.items() if counts.get(k) == 1 and k not in declared}


def _framework_trainer(call: ast.Call, imports: ImportTable) -> bool:
    """``call`` builds a framework's ``Trainer`` (``pl.Trainer(...)``; not a project's own
    function of that name)."""
    full = _resolved(call.func, imports) or ""
    return full.split(".", 1)[0] in FRAMEWORKS and full.endswith(".Trainer")


def _tpu_training_arguments(call: ast.Call, imports: ImportTable) -> bool:
    """transformers' ``TrainingArguments(..., tpu_num_cores=8)`` (or
    ``Seq2SeqTrainingArguments``): the number of TPU cores the HF Trainer runs on, set
    by a script that ``xla_spawn.py`` launches on TPU (transformers
    ``training_args.py``); not ``tpu_num_cores=None``."""
    full = _resolved(call.func, imports) or ""
    return full.split(".", 1)[0] in FRAMEWORKS and full.endswith("TrainingArguments") and \
        any(k.arg == "tpu_num_cores" and not (isinstance(k.value, ast.Constant) and
                                              k.value.value is None)
            for k in call.keywords)


def _tpu_trainer(call: ast.Call, imports: ImportTable) -> bool:
    """A framework's ``Trainer(tpu_cores=...)`` (Lightning 1.x's TPU switch)."""
    return any(k.arg == LIGHTNING_TPU_CORES for k in call.keywords) and \
        _framework_trainer(call, imports)


def launches_framework_trainer(tree: ast.AST, imports: ImportTable) -> bool:
    """The module builds a framework Trainer on the XLA device: Lightning's
    ``Trainer(tpu_cores=...)`` or ``Trainer(accelerator="tpu", ...)``. Its ``fit`` runs the
    modules, data modules and callbacks handed to it on that device, so the module is a
    program of the XLA path (Lightning ``trainer/trainer.py``, ``accelerators/xla.py``),
    as a script is, whether or not it has a main block of its own (a ``finetune()``
    that a command-line entry point reaches)."""
    constants = module_constants(tree)
    return any(isinstance(node, ast.Call) and any(
        tpu_trainer_keyword(k.arg, _constant(k.value, constants)) for k in node.keywords) and
        _framework_trainer(node, imports) for node in walk(tree))


def is_main_test(test: ast.AST) -> bool:
    """``__name__ == "__main__"`` (either way round): the test of a script's main block."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or \
            not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return bool(names and consts)


def is_script(tree: ast.Module) -> bool:
    """The module runs as a script: ``if __name__ == "__main__":`` at its top level."""
    return any(isinstance(stmt, ast.If) and is_main_test(stmt.test) for stmt in tree.body)


def is_program(tree: ast.Module) -> bool:
    """A script (``if __name__ == "__main__":``) or a module that imports torch_xla
    unconditionally at its top level."""
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and is_main_test(stmt.test):
            return True
        if isinstance(stmt, ast.Import) and any(
                a.name.split(".", 1)[0] in ("torch_xla", "torch_xla_py") for a in stmt.names):
            return True
        if isinstance(stmt, ast.ImportFrom) and not stmt.level and \
                (stmt.module or "").split(".", 1)[0] in ("torch_xla", "torch_xla_py"):
            return True
    return False
