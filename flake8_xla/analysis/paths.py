"""Paths: which code the XLA path runs, and how often.

- :func:`xla_truth` decides whether a condition holds when the script runs on an XLA
  device: ``use_tpu`` and ``device.type == 'xla'`` hold, ``torch.cuda.is_available()``,
  ``not use_tpu`` and ``device.type == 'cuda'`` do not, and neither does a flag that the
  script itself forbids on XLA (``if args.tpu and args.fp16: raise ...``).
- :func:`off_xla_path` is True for code in a branch the XLA path never takes.
- :func:`switched_off` is True for a construct whose ``enabled`` switch (keyword or positional) is false on XLA.
- :func:`runs_once` is True for code in a step loop's branch that ends the loop
  (``return``, ``raise``, ``sys.exit`` or a ``break`` of that loop): it runs once per run,
  not once per step.

Source: PyTorch/XLA "PyTorch on XLA Devices" (scripts select the XLA device with
``torch_xla.device()`` and fall back to CUDA or the CPU elsewhere).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from astroid import nodes

from flake8_xla.analysis import values as V
from flake8_xla.analysis.names import (
    CUDA_WORDS,
    JUMPS,
    XLA_WORDS,
    callee_name,
    const_str,
    is_main_test,
    is_none,
    keyword,
    source_key,
    words_of,
    words_of_text,
)
from flake8_xla.analysis.treewalk import nodes_of, syntax_cache
from flake8_xla.analysis.values import Kind, device_of_text

if TYPE_CHECKING:
    from flake8_xla.analysis.flows import Evaluator

NEGATION_WORDS = frozenset({"no", "not", "disable", "disabled", "without", "skip", "non"})
XLA_TRUE_CALLS = frozenset({
    "transformers.utils.is_torch_xla_available", "transformers.is_torch_xla_available",
    "transformers.utils.is_torch_tpu_available", "transformers.is_torch_tpu_available",
    "accelerate.utils.is_torch_xla_available", "accelerate.utils.is_tpu_available",
    "lightning.fabric.accelerators.xla._XLA_AVAILABLE",
})
XLA_FALSE_CALLS = frozenset({"torch.cuda.is_available", "torch.backends.mps.is_available",
                             "torch.backends.cudnn.is_available"})
DEVICE_SUBJECT_WORDS = frozenset({"device", "accelerator", "backend", "platform", "type",
                                  "distributed", "hardware", "hw", "devices"})
EXIT_QUALNAMES = frozenset({"sys.exit", "exit", "quit", "os._exit"})


def _word_truth(node: nodes.NodeNG) -> bool | None:
    """A flag by its words: ``use_tpu`` holds on XLA, ``use_cuda``/``no_tpu`` do not."""
    return _words_truth(words_of(node))


#: transformers' attention implementations that run only on CUDA (``flash-attn``
#: kernels: ``modeling_flash_attention_utils.py``); an XLA run uses ``eager`` or ``sdpa``.
CUDA_KERNELS = frozenset({"flash_attention_2", "flash_attention_3"})
#: Words of an option about a device rather than the device switch itself
#: (``args.tpu_metrics_debug``, ``xla_profile``): on the XLA path it may be off.
OPTION_WORDS = frozenset({"debug", "metrics", "metric", "profile", "profiler", "profiling",
                          "verbose", "trace", "tracing", "dump", "report", "log", "logging"})


def _words_truth(words: set[str]) -> bool | None:
    """:func:`_word_truth` of a set of words."""
    if any(w.startswith("xla_hw_") for w in words):
        return None  # 'TPU'/'GPU' from xm.xla_device_hw(): both are XLA devices
    if words & OPTION_WORDS:
        return None
    xla = any(w in words for w in XLA_WORDS)
    cuda = any(w in words for w in CUDA_WORDS)
    if xla == cuda:
        return None
    negated = bool(words & NEGATION_WORDS)
    return xla != negated


def _compare_truth(test: nodes.Compare, ev: Evaluator | None) -> bool | None:
    if len(test.ops) != 1:
        return None
    op, right = test.ops[0]
    return _comparison_truth(test.left, op, right, ev)


def _comparison_truth(left: nodes.NodeNG, op: str, right: nodes.NodeNG,
                      ev: Evaluator | None) -> bool | None:
    """The truth on the XLA path of ``left <op> right`` (None: not known)."""
    if op not in ("==", "!=", "in", "not in", "is", "is not"):
        return None
    if op in ("is", "is not", "==", "!=") and isinstance(right, nodes.Const) and \
            right.value is None:
        # ``args.tpu_cores is not None``: the truth of the flag itself.
        if _passed_non_none(left, ev):
            # ``def evaluate(model, loader, device=None)`` that every caller hands a device:
            # ``if device is None:`` never runs
            return op in ("is not", "!=")
        inner = _word_truth(left)
        if inner is None and _none_on_xla_path(left, ev):
            inner = False  # ``scaler is not None`` where only a CUDA branch sets it
        if inner is None and ev is not None and _imported_xla_module(left, ev):
            inner = True  # ``xm is not None``: torch_xla imported, so on the XLA path
        if inner is None:
            return None
        return inner if op in ("is not", "!=") else not inner
    for subject, const in ((left, right), (right, left)):
        if op in ("is", "is not", "==", "!=") and isinstance(const, nodes.Const) and \
                isinstance(const.value, bool):
            # ``use_tpu == False``, ``args.xla is True``: the flag's own truth, or its negation
            inner = _base_truth(subject, ev, 1)
            if inner is None:
                return None
            same = inner == const.value
            return same if op in ("is", "==") else not same
    sides = [(left, right), (right, left)]
    for subject, const in sides:
        consts: list[str] = []
        if const_str(const) is not None:
            consts = [const_str(const)]  # type: ignore[list-item]
        elif isinstance(const, (nodes.Tuple, nodes.List, nodes.Set)) and op in ("in", "not in"):
            consts = [c for c in (const_str(e) for e in const.elts) if c is not None]
        elif isinstance(const, nodes.Attribute) and const.attrname.upper() == const.attrname:
            consts = [const.attrname.lower()]  # DistributedType.XLA / .TPU / .MULTI_GPU
        if not consts:
            continue
        if op in ("==", "!=", "in", "not in") and consts and all(
                c in CUDA_KERNELS for c in consts):
            # ``config._attn_implementation == "flash_attention_2"``: a CUDA-only kernel
            # (the flash-attn package), never the implementation on an XLA device
            return op in ("!=", "not in")
        if not isinstance(const, nodes.Attribute):
            texts = _parameter_texts(subject, ev)
            if texts is not None:
                # ``def assign(..., mode="gpu")`` always called without ``mode``: the test
                # ``mode == "cpu"`` is False on every path, the XLA one included
                hits = {t in consts for t in texts}
                if len(hits) == 1:
                    same = hits.pop()
                    return same if op in ("==", "in", "is") else not same
        if any(c.isupper() and c in ("TPU", "GPU", "CUDA", "CPU", "NEURON") for c in consts) \
                and _may_name_device_hw(subject, ev):
            return None  # xm.xla_device_hw(): TPU, CUDA and NEURON are all XLA devices
        kinds = {_device_word(c) for c in consts}
        if None in kinds or len(kinds) != 1 and op not in ("in", "not in"):
            continue  # (``device not in ("cpu", "tpu")``: any of several device kinds)
        # (``getattr(cfg, "device", "cuda")``: the setting, whatever its fallback says)
        flag = _getattr_flag(subject, ev) if isinstance(subject, nodes.Call) else None
        actual = None if flag is not None or _uncalled_parameter(subject, ev) else \
            _subject_device(subject, ev)
        if actual == "unknown":
            continue
        if actual is None:
            words = words_of_text(flag) if flag is not None else words_of(subject)
            if not (words & DEVICE_SUBJECT_WORDS) and not isinstance(
                    const, nodes.Attribute) and not _selector_parameter(subject, ev):
                continue
            actual = "xla"  # a device or accelerator setting: on the XLA path it is XLA
        same = actual in kinds
        return same if op in ("==", "in", "is") else not same
    return None


def _may_name_device_hw(subject: nodes.NodeNG, ev: Evaluator | None) -> bool:
    """``subject`` may hold what ``xm.xla_device_hw()`` returns ('TPU', 'GPU', 'CUDA' and
    'NEURON' are all XLA devices there): its module names that function, or its value is
    a string the analysis cannot read (it may come from another module's call). A
    setting of the script (``hps.hw == 'GPU'`` where nothing asks torch_xla for the
    hardware) names the device the user chose."""
    from flake8_xla.analysis.flows import syntax_cache

    if ev is None:
        return True
    table = syntax_cache(ev.module)
    named = table.get("names_device_hw")
    if named is None:
        named = table["names_device_hw"] = any(
            getattr(n, "name", getattr(n, "attrname", None)) == "xla_device_hw"
            for n in ev.module_nodes((nodes.Name, nodes.Attribute)))
    if named:
        return True
    try:
        if isinstance(subject, nodes.Attribute) and (base := ev.value(subject.expr)) and all(
                v.kind is Kind.HOST and v.qual == "namespace" for v in base):
            return False  # ``args.accelerator == "GPU"``: a command-line setting
        vs = ev.value(subject)
    except Exception:  # noqa: BLE001 - unknown
        return True
    return any(v.kind is Kind.HOST and v.text is None for v in vs)


def _parameter_texts(subject: nodes.NodeNG, ev: Evaluator | None) -> set[str] | None:
    """The strings a parameter holds when its function has call sites and every one of
    them passes a string literal or nothing (the default is one too): a mode switch the
    script never turns (``get_assignments(...)`` called without ``mode="cpu"``). None
    for a device or accelerator setting (on the XLA path that is XLA, whatever the
    default says), for a function nothing calls, and when a value is not known."""
    if ev is None or not isinstance(subject, nodes.Name) or \
            words_of(subject) & DEVICE_SUBJECT_WORDS:
        return None
    func = _parameter_of(subject, ev)
    if func is None or not ev.call_sites(func) or _selector_parameter(subject, ev):
        return None
    vs = ev.value(subject)
    if not vs or not all(v.kind is Kind.HOST and v.qual == "str" and v.text is not None
                         for v in vs):
        return None
    return {v.text for v in vs if v.text is not None}


def _passed_non_none(subject: nodes.NodeNG, ev: Evaluator | None) -> bool:
    """``subject`` is a parameter (its only binding) and every value it may hold is known
    and not None: what the project's call sites pass (a default of None that no caller
    leaves in place), or a default that is not None."""
    if ev is None or not isinstance(subject, nodes.Name):
        return False
    if _parameter_of(subject, ev) is None:
        return False
    vs = ev.value(subject)
    return bool(vs) and all(v.kind is not Kind.UNKNOWN and
                            not (v.kind is Kind.HOST and v.qual == "none") for v in vs)


def _uncalled_parameter(subject: nodes.NodeNG, ev: Evaluator | None) -> bool:
    """``def fit(self, device="cuda"): if device == "tpu": ...``: a parameter of a
    function that nothing in the project calls. Its default is only what a caller who
    passes nothing gets; the caller on the XLA path passes the XLA name."""
    if ev is None or not isinstance(subject, nodes.Name):
        return False
    func = _parameter_of(subject, ev)
    return func is not None and not ev.call_sites(func)


def _parameter_of(subject: nodes.Name, ev: Evaluator) -> nodes.FunctionDef | None:
    """The function of which ``subject`` is a parameter (its only binding), else None."""
    binds = ev.bindings(subject)
    if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName) or \
            not isinstance(binds[0].parent, nodes.Arguments):
        return None
    func = binds[0].parent.parent
    return func if isinstance(func, nodes.FunctionDef) else None


def _selector_parameter(subject: nodes.NodeNG, ev: Evaluator | None) -> bool:
    """``def get_device(name): if name == "cuda": return torch.device("cuda")``: a
    parameter of a function that returns devices, so it names the device."""
    if ev is None or not isinstance(subject, nodes.Name):
        return False
    func = subject.frame()
    if not isinstance(func, nodes.FunctionDef) or subject.name not in func.argnames():
        return False
    rets = [r.value for r in ev.own_nodes(func, nodes.Return) if r.value is not None]
    return bool(rets) and any(
        any(v.kind is Kind.DEVICE for v in ev.value(r)) for r in rets)


def _non_xla_entry(table: nodes.Dict, child: nodes.NodeNG) -> bool:
    """``child`` is the value of a table entry keyed by a non-XLA accelerator's name, in a
    table that also has an entry for the XLA device (``{"tpu": _tpu, "gpu": lambda:
    torch.device("cuda")}``): the XLA run picks the XLA entry."""
    words = []
    own = None
    for key, value in table.items:
        word = _device_word(key.value) if isinstance(key, nodes.Const) and \
            isinstance(key.value, str) else None
        words.append(word)
        if value is child:
            own = word
    return own == "cuda" and "xla" in words


def _class_device_word(klass: nodes.ClassDef) -> str | None:
    """The accelerator a class is written for, by a word of its name (``CudaBackend``,
    ``TPUStrategy``) or by a string it binds in its body (``name = "gpu"``)."""
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z]|\b|_|\d)|[A-Z]?[a-z]+|[A-Z]+", klass.name)
    found = {w for w in map(_device_word, words) if w is not None}
    if not found:
        for stmt in klass.body:
            if isinstance(stmt, nodes.Assign) and isinstance(stmt.value, nodes.Const) and \
                    isinstance(stmt.value.value, str):
                word = _device_word(stmt.value.value)
                if word is not None:
                    found.add(word)
    return found.pop() if len(found) == 1 else None


def _non_xla_class(klass: nodes.ClassDef) -> bool:
    """A class written for CUDA (``class CudaBackend(Backend)``) beside a class of the same
    base, in the same module, written for the XLA device (``class XlaBackend(Backend)``):
    the XLA run picks the XLA class, as it picks the XLA entry of a device table."""
    if not klass.bases or _class_device_word(klass) != "cuda":
        return False
    bases = {b.as_string() for b in klass.bases}
    parent = klass.parent
    return any(isinstance(other, nodes.ClassDef) and other is not klass and
               bases & {b.as_string() for b in other.bases} and
               _class_device_word(other) == "xla"
               for other in getattr(parent, "body", ()))


def _device_word(text: str) -> str | None:
    t = text.lower()
    if t.startswith("xla_hw_"):
        return None
    dev = device_of_text(t)
    if dev is not None:
        return dev
    if t in ("gpu", "multi_gpu", "cuda", "nccl", "mps"):
        return "cuda"
    if t in ("tpu", "xla", "neuron", "trainium") or t.startswith(("xla-", "xla_")):
        return "xla"  # (ignite's distributed backend "xla-tpu")
    return None


def _subject_device(node: nodes.NodeNG, ev: Evaluator | None) -> str | None:
    """What device a compared subject is, from its value: a name, ``x.type``, ``x.device``."""
    if ev is None:
        return None
    target = node
    if isinstance(node, nodes.Attribute) and node.attrname == "type":
        target = node.expr
    try:
        vs = ev.value(target)
    except Exception:  # noqa: BLE001 - unknown
        return None
    devs = {v.device for v in vs if v.kind in (Kind.DEVICE, Kind.TENSOR, Kind.MODULE)}
    texts = {device_of_text(v.text) for v in vs if v.kind is Kind.HOST and v.text}
    found = {d for d in devs | texts if d is not None}
    if len(found) == 1 and not (None in devs and len(devs) > 1):
        return found.pop()
    if len(found) > 1:
        # A device selected at run time (``xm.xla_device()`` or ``torch.device("cpu")``):
        # on the XLA path it is the XLA device.
        return "xla" if "xla" in found else "unknown"
    return None


def _base_truth(test: nodes.NodeNG, ev: Evaluator | None, depth: int = 0) -> bool | None:
    if depth > 8:
        return None
    if isinstance(test, nodes.Const) and isinstance(test.value, bool):
        return test.value
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = _base_truth(test.operand, ev, depth + 1)
        return None if inner is None else not inner
    if isinstance(test, nodes.BoolOp):
        parts = [_base_truth(v, ev, depth + 1) for v in test.values]
        if test.op == "and":
            # ``hasattr(args, "tpu") and args.tpu``: the attribute exists wherever the flag
            # it guards is read, so the guard holds where the flag does
            parts = [True if p is None and _guards_sibling(v, test.values) else p
                     for p, v in zip(parts, test.values)]
            if False in parts:
                return False
            return True if all(p is True for p in parts) else None
        if True in parts:
            return True
        return False if all(p is False for p in parts) else None
    if isinstance(test, nodes.Compare):
        return _compare_truth(test, ev)
    if isinstance(test, nodes.Call):
        prefix = _startswith_device(test)
        if prefix is not None:
            # ``args.device.startswith("xla")``: the test ``args.device == "xla"`` makes
            # (``"xla:0"`` starts so too)
            return _comparison_truth(test.func.expr, "==", prefix, ev)
        q = ev.qualname(test.func) if ev is not None else None
        if q == "bool" and len(test.args) == 1 and not test.keywords:
            # ``bool(args.amp and device.type == "cuda")``: the truth of what it converts
            return _base_truth(test.args[0], ev, depth + 1)
        if q in XLA_FALSE_CALLS:
            return False
        flag = _getattr_flag(test, ev)
        if flag is not None:
            # ``getattr(args, "use_tpu", False)``: the flag by its name, as ``args.use_tpu``
            return _words_truth(words_of_text(flag))
        if q in XLA_TRUE_CALLS or (q or "").rsplit(".", 1)[-1] in (
                "is_torch_xla_available", "is_torch_tpu_available", "is_tpu_available"):
            return True
        if ev is not None and (test.args or test.keywords):
            # ``is_xla(device)`` of the project: the test its one return statement makes
            # (``return device.type == "xla"``), read in its own module
            truth = _predicate_truth(test, ev, depth)
            if truth is not None:
                return truth
        # is_xla(), use_tpu(), on_gpu(): a predicate of the script's own, by its name
        if (q is None or not q.startswith(("torch.", "torch_xla.", "transformers."))) and \
                isinstance(test.func, (nodes.Name, nodes.Attribute)) and not test.args:
            if q is not None and isinstance(test.func, nodes.Attribute):
                # a module's function: its own name, not the module's
                # (``deepspeed_utils.is_main_process()`` holds on every device)
                return _words_truth(words_of_text(test.func.attrname))
            return _word_truth(test.func)
        return None
    if isinstance(test, nodes.IfExp):
        # ``cfg.checks if not use_tpu else False``: the branch the XLA path takes
        cond = _base_truth(test.test, ev, depth + 1)
        if cond is None:
            return None
        return _base_truth(test.body if cond else test.orelse, ev, depth + 1)
    if isinstance(test, nodes.Subscript) and isinstance(test.slice, nodes.Const) and \
            isinstance(test.slice.value, str):
        # ``cfg["is_xla"]``, ``flags["use_gpu"]``: a flag of a settings table, by its key
        return _words_truth(words_of_text(test.slice.value))
    if isinstance(test, (nodes.Name, nodes.Attribute)):
        # what the flag was computed from first (``cuda = device.type != "cpu"`` holds
        # on XLA whatever its name says), then its name (``USE_TPU = False  # set for
        # TPU runs`` is a switch its user flips: the name says what the XLA run sets)
        bound = _bound_value(test, ev) if ev is not None else None
        truth = _base_truth(bound, ev, depth + 1) if bound is not None and \
            not isinstance(bound, nodes.Const) else None
        if truth is None:
            truth = _word_truth(test)
        if truth is None and isinstance(bound, nodes.Const):
            truth = bound.value
        if truth is None and ev is not None and isinstance(test, nodes.Name) and \
                not _COLLECTING_FORBIDDEN:
            # ``self.checks = checks`` of ``__init__(self, checks=True)``, built as
            # ``Loss(checks=False)``: the one bool constant its callers pass (a constant
            # of the program, not a switch of the XLA path: no flag it guards is taken
            # for one that the script forbids on XLA)
            truth = _passed_bool(test, ev)
        if truth is None and ev is not None and _imported_xla_module(test, ev):
            truth = True
        if truth is None and ev is not None and isinstance(test, nodes.Attribute) and \
                isinstance(test.expr, nodes.Name) and test.expr.name not in ("self", "cls"):
            # ``args.distributed`` that every caller set to False before the call
            stored = _set_by_callers(test, ev)
            truth = stored.value if stored is not None else None
        if truth is None and _none_on_xla_path(test, ev):
            truth = False
        return truth
    return None


def _passed_bool(param: nodes.Name, ev: Evaluator) -> bool | None:
    """The bool constant a constructor's parameter holds in every construction of its
    class, when all of them are known: ``param`` is a parameter of a class's ``__init__``
    that it never rebinds and stores on ``self`` (no other method or code of the module
    stores that attribute again), the class is only ever called where it is named (here
    and in the modules that name it: no registry, alias, ``partial`` or ``cls(...)``), it
    is built at least once, and each construction passes the same ``True``/``False`` (or
    leaves that default) with no ``*args``/``**kwargs``. A subclass of the project counts
    as one construction, its ``__init__``'s one ``super().__init__(...)`` (or
    ``Base.__init__(self, ...)``): ``class Fast(Loss): def __init__(self): super().__init__(
    validate=False)``; a subclass without an ``__init__`` of its own, or calling it other
    than once, leaves the flag unknown. None otherwise. A method's callers are not all known (a
    subclass in another module calls ``self.decode(..., append_eos_token=True)``); a
    class's direct constructions are."""
    from flake8_xla.analysis.flows import enclosing_class, is_super_call

    binds = ev.bindings(param)
    if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName) or \
            not isinstance(binds[0].parent, nodes.Arguments):
        return None
    func = binds[0].parent.parent
    klass = enclosing_class(func) if isinstance(func, nodes.FunctionDef) and \
        func.name == "__init__" else None
    if klass is None or not isinstance(klass.parent, nodes.Module):
        return None
    subs = ev.link.subclasses(ev, klass) if ev.link is not None else ev.subclasses(klass)
    if subs is None:
        return None
    stored = {t.attrname for a in nodes_of(func, nodes.Assign)
              if isinstance(a.value, nodes.Name) and a.value.name == param.name
              for t in a.targets if isinstance(t, nodes.AssignAttr)}
    # (the names of the classes the instances may also be: bases of the class and of its
    # subclasses, mixins among them)
    related = {b.name if isinstance(b, nodes.Name) else b.attrname
               for c in [klass, *subs] for b in c.bases
               if isinstance(b, (nodes.Name, nodes.Attribute))}

    def restores(t: nodes.AssignAttr) -> bool:
        # (``criterion.checks = True`` or a setter method: not the constructor's; an
        # unrelated class's own ``self.checks = ...`` is its instances' attribute, a
        # mixin's is not)
        if t.attrname not in stored or t.frame() is func:
            return False
        owner_class = enclosing_class(t.frame()) if isinstance(t.expr, nodes.Name) and \
            t.expr.name == "self" else None
        return owner_class is None or owner_class is klass or owner_class in subs or \
            owner_class.name in related

    if not stored or any(restores(t) for t in ev.module_nodes(nodes.AssignAttr)):
        return None
    # A subclass runs the constructor through its own ``__init__``'s one
    # ``super().__init__(..., validate=False)`` (or ``Base.__init__(self, ...)``): a
    # construction site of its own, in the subclass's module.
    sites: list[tuple[Evaluator, nodes.Call]] = []
    base_sites: list[tuple[Evaluator, nodes.Call]] = []
    for sub in subs:
        owner = ev if sub.root() is ev.module else (
            ev.link.evaluator_of(sub) if ev.link is not None else None)
        init = next((m for m in sub.body if isinstance(m, nodes.FunctionDef)
                     and m.name == "__init__"), None)
        if owner is None or init is None:
            return None  # (a subclass built with the base's own parameters: not followed)
        runs = [c for c in nodes_of(init, nodes.Call)
                if isinstance(c.func, nodes.Attribute) and c.func.attrname == "__init__" and (
                    is_super_call(c) or isinstance(c.func.expr, nodes.Name) and
                    c.func.expr.name == klass.name)]
        if len(runs) != 1 or (owner is not ev and any(
                restores(t) for t in owner.module_nodes(nodes.AssignAttr))):
            return None
        for base in sub.bases:
            # (a mixin of the subclass, in any module: its own ``self.<flag> = ...``)
            for v in owner.value(base):
                if v.kind is Kind.CLASS and isinstance(v.node, nodes.ClassDef) and \
                        v.node is not klass and any(
                            t.attrname in stored and isinstance(t.expr, nodes.Name) and
                            t.expr.name == "self"
                            for t in nodes_of(v.node, nodes.AssignAttr)):
                    return None
        (base_sites if isinstance(runs[0].func.expr, nodes.Name) else sites).append(
            (owner, runs[0]))
    analysed = [ev]
    if ev.link is not None:
        remote = ev.link.constructions(ev, klass)
        if remote is None:
            return None
        # (a construction in a module that is not XLA code, the GPU script beside the
        # TPU one, never runs on the XLA path)
        sites += [(e, c) for e, c in remote if ev.link.home_is_xla_code(c)]
        analysed += list({id(e): e for e, _ in remote}.values())
    for owner in analysed:
        for name in owner.module_nodes(nodes.Name):
            if name.name != klass.name:
                continue
            call = name.parent
            if isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and \
                    call.func.name in ("super", "isinstance", "issubclass") and \
                    name in call.args:
                continue  # (``super(Loss, self).__init__()``, a type test: no instance)
            if isinstance(call, nodes.ClassDef) and call in subs or any(
                    name is c.func.expr for _, c in base_sites):
                continue  # (a subclass's base, its ``Base.__init__(self, ...)``: above)
            if not (isinstance(call, nodes.Call) and call.func is name):
                return None  # named other than to build it: built where it is not seen
            if owner is ev:
                sites.append((ev, call))
    if not sites and not base_sites:
        return None  # never built in the project (by a config system, say): not known
    found: set[bool] = set()
    for owner, call, bound in [*((o, c, True) for o, c in sites),
                               *((o, c, False) for o, c in base_sites)]:
        if any(isinstance(a, nodes.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords or ()):
            return None
        arg = owner.site_argument(func, call, param.name, bound_self=bound)
        if arg is None:
            default = func.args.default_value(param.name) if param.name in \
                [a.name for a in func.args.arguments] else None
            if not (isinstance(default, nodes.Const) and isinstance(default.value, bool)):
                return None
            found.add(default.value)
        else:
            truth = V.known_bool(owner.value(arg))
            if truth is None:
                return None
            found.add(truth)
    return found.pop() if len(found) == 1 else None


def _startswith_device(test: nodes.Call) -> nodes.Const | None:
    """The constant of ``x.startswith("xla")`` / ``("cuda")``: a device kind's name."""
    f = test.func
    if not (isinstance(f, nodes.Attribute) and f.attrname == "startswith" and
            len(test.args) == 1 and not test.keywords):
        return None
    text = const_str(test.args[0])
    if text is None or _device_word(text) not in ("xla", "cuda"):
        return None
    return test.args[0]


def _predicate_truth(call: nodes.Call, ev: Evaluator, depth: int) -> bool | None:
    """The truth on the XLA path of a project function's result, when the call runs one
    function whose body is a single ``return <test>`` (a docstring aside): that test's
    truth in the function's own module (``def is_xla(device): return device.type ==
    "xla"``). None otherwise."""
    try:
        funcs = {id(f): f for f, _ in ev.functions_called(call, None)}
    except Exception:  # noqa: BLE001 - unknown stays unknown
        return None
    if len(funcs) != 1:
        return None
    func = next(iter(funcs.values()))
    if not isinstance(func, nodes.FunctionDef):
        return None
    body = [s for s in func.body if not (isinstance(s, nodes.Expr) and
                                         isinstance(s.value, nodes.Const))]
    if len(body) != 1 or not isinstance(body[0], nodes.Return) or body[0].value is None:
        return None
    owner = ev.home_of(func)
    if owner is None:
        return None
    return _base_truth(body[0].value, owner, depth + 1)


def _builtin_call(call: nodes.NodeNG, name: str, ev: Evaluator | None) -> bool:
    """``call`` calls the builtin ``name`` (a plain name no module binds otherwise)."""
    if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and
            call.func.name == name):
        return False
    return ev is None or ev.qualname(call.func) in (None, name, f"builtins.{name}")


def _getattr_flag(call: nodes.Call, ev: Evaluator | None) -> str | None:
    """The attribute name of ``getattr(obj, "name")`` / ``getattr(obj, "name", default)``."""
    if not _builtin_call(call, "getattr", ev) or len(call.args) not in (2, 3) or call.keywords:
        return None
    return const_str(call.args[1])


def _guards_sibling(term: nodes.NodeNG, terms: list[nodes.NodeNG]) -> bool:
    """``term`` is ``hasattr(obj, "name")`` and another term of the same ``and`` reads
    ``obj.name`` (or ``getattr(obj, "name")``); or ``isinstance(x, str)`` and another term
    is ``x.startswith(...)`` (a device name tested by its prefix: wherever the prefix test
    holds, ``x`` is a string)."""
    if _builtin_call(term, "isinstance", None) and len(term.args) == 2 and \
            isinstance(term.args[1], nodes.Name) and term.args[1].name == "str":
        subject = term.args[0].as_string()
        return any(other is not term and isinstance(other, nodes.Call) and
                   _startswith_device(other) is not None and
                   other.func.expr.as_string() == subject for other in terms)
    if not (_builtin_call(term, "hasattr", None) and len(term.args) == 2):
        return False
    attr = const_str(term.args[1])
    if attr is None:
        return False
    subject = term.args[0].as_string()
    for other in terms:
        if other is term:
            continue
        for n in [other, *nodes_of(other, (nodes.Attribute, nodes.Call))]:
            if isinstance(n, nodes.Attribute) and n.attrname == attr and \
                    n.expr.as_string() == subject:
                return True
            if isinstance(n, nodes.Call) and _getattr_flag(n, None) == attr and \
                    n.args[0].as_string() == subject:
                return True
    return False


def _imported_xla_module(subject: nodes.NodeNG, ev: Evaluator) -> bool:
    """``if xm:`` where ``xm`` is torch_xla's module imported under ``try:`` (``xm = None``
    when the import fails): a module, truthy wherever torch_xla imports, so on the XLA
    path. Only a Name bound by imports from torch_xla (or to None besides); an imported
    constant (an upper-case name) may be falsy and is not known."""
    if not isinstance(subject, nodes.Name) or subject.name.isupper():
        return False
    binds = ev.bindings(subject)
    if len(binds) == 1 and isinstance(binds[0], nodes.AssignName) and isinstance(
            binds[0].parent, nodes.Assign) and isinstance(binds[0].parent.value, nodes.Call) \
            and not binds[0].parent.value.args:
        # ``xm = get_xla_model()``: a helper whose every return is torch_xla's module
        # (the names it returns are read, never the values the module computes)
        return _returns_xla_module(binds[0].parent.value, ev)
    imports = [b for b in binds if isinstance(b, (nodes.Import, nodes.ImportFrom))]
    if not imports or not all(
            isinstance(b, (nodes.Import, nodes.ImportFrom)) or (
                isinstance(b, nodes.AssignName) and isinstance(
                b.parent, nodes.Assign) and isinstance(b.parent.value, nodes.Const) and
                b.parent.value.value is None) for b in binds):
        return False
    q = ev.qualname(subject) or ""
    if not q:
        # (a function's own ``import torch_xla.core.xla_model as xm``: the import table is
        # the module's, so read the name the import binds)
        q = next((name if isinstance(b, nodes.Import) else f"{b.modname}.{name}"
                  for b in imports for name, alias in b.names
                  if (alias or name.split(".", 1)[0]) == subject.name), "")
    if q.split(".", 1)[0] == "torch_xla":
        return True
    if ev.link is None:
        return False
    # ``from utils import xm`` where utils.py binds it under ``try:`` (None when the import
    # fails): the value the project link follows there
    vs = ev.value(subject)
    return any(v.kind is Kind.REF and (v.qual or "").startswith("torch_xla") for v in vs) and \
        all(v.kind is Kind.REF and (v.qual or "").startswith("torch_xla") or
            v.kind is Kind.HOST and v.qual == "none" for v in vs)


def _returns_xla_module(call: nodes.Call, ev: Evaluator) -> bool:
    """``call`` runs a function (of the module, or of another module of the project) whose
    every ``return`` gives a name that imports from torch_xla bind."""
    def returns_module(v: V.Value) -> bool:
        func = v.node if v.kind is Kind.FUNCTION else None
        if not isinstance(func, nodes.FunctionDef):
            return False
        rets = [r for r in nodes_of(func, nodes.Return, skip_klass=(
            nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)) if r.frame() is func]
        owner = ev.link.evaluator_of(func) if ev.link is not None and \
            func.root() is not ev.module else ev
        return owner is not None and bool(rets) and all(
            isinstance(r.value, nodes.Name) and _imported_xla_module(r.value, owner)
            for r in rets)

    called = ev.value(call.func)
    return bool(called) and all(returns_module(v) for v in called)


def _none_on_xla_path(subject: nodes.NodeNG, ev: Evaluator | None) -> bool:
    """``subject`` is a local name that every assignment reaching the XLA path binds to
    ``None``: the others lie in branches the XLA path never takes (``scaler = None``, then
    ``scaler = GradScaler()`` under ``if device.type == "cuda":``). A name some nested
    function rebinds (``global``/``nonlocal``), or any other kind of binding (a parameter,
    a loop target), is not known."""
    if ev is None or not isinstance(subject, nodes.Name):
        return False
    binds = ev.bindings(subject)
    if not binds or not all(isinstance(b, nodes.AssignName) for b in binds):
        return False
    declared = getattr(ev, "_declared_names", None)
    if declared is None:
        declared = {n for node in ev.module_nodes((nodes.Global, nodes.Nonlocal))
                    for n in node.names}
        ev._declared_names = declared  # type: ignore[attr-defined]
    if subject.name in declared:
        return False
    on_path = [b for b in binds if not off_xla_path(b, ev)]
    return bool(on_path) and len(on_path) < len(binds) and all(
        isinstance(b.parent, nodes.Assign) and len(b.parent.targets) == 1 and
        is_none(b.parent.value) for b in on_path)


def _bound_value(flag: nodes.Name | nodes.Attribute, ev: Evaluator) -> nodes.NodeNG | None:
    """The test a flag was computed from once, whose truth on the XLA path may be known
    (``checks = bool(cfg.checks) and not use_tpu``: False there), or the bool constant a
    local name is bound to: for a local name bound once, or ``self.<flag>`` assigned once
    in its class (in ``__init__``); None otherwise."""
    if isinstance(flag, nodes.Name):
        binds = ev.bindings(flag)
        if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName):
            return None
        bind = binds[0]
    elif isinstance(flag.expr, nodes.Name) and flag.expr.name == "self":
        from flake8_xla.analysis.flows import enclosing_class, enclosing_function
        method = enclosing_function(flag)
        klass = enclosing_class(method) if method is not None else None
        sets = ev.class_attrs(klass).get(flag.attrname, []) if klass is not None else []
        if len(sets) != 1 or not isinstance(sets[0][0], nodes.AssignAttr):
            return None
        bind = sets[0][0]
    else:
        return None
    stmt = bind.parent
    if not isinstance(stmt, nodes.Assign) or len(stmt.targets) != 1 or \
            stmt.targets[0] is not bind:
        return None
    value = stmt.value
    if isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name) and \
            value.func.name == "bool" and len(value.args) == 1 and not value.keywords:
        value = value.args[0]
    if not isinstance(value, (nodes.BoolOp, nodes.UnaryOp, nodes.Compare, nodes.Name,
                              nodes.Attribute, nodes.IfExp, nodes.Const)):
        return None
    if isinstance(value, nodes.Const) and (not isinstance(value.value, bool) or
                                           not isinstance(flag, nodes.Name)):
        # ``self.use_l1 = False`` in ``__init__``: a default that the object's owner sets
        # from outside (``model.head.use_l1 = True``), not a truth of the XLA path
        return None
    return value


#: At most this many call sites are read for a flag that callers set (:func:`_set_by_callers`).
MAX_FLAG_SITES = 6


def _set_by_callers(flag: nodes.Attribute, ev: Evaluator) -> nodes.Const | None:
    """``args.distributed`` read in a function that takes ``args``, when every call of the
    function (in this module, and in the project's other XLA-code modules) passes a name
    whose attribute the calling function sets to the same bool constant, only at the top
    level of its body, first before the call (``args.distributed = False`` in the TPU port's
    ``train()``, then ``evaluate(model, ..., args)``): that constant. None otherwise (a
    store under a branch, stores of different values, the name rebound after the first
    store, or the flag stored in the function itself)."""
    from flake8_xla.analysis.flows import enclosing_function

    base = flag.expr
    binds = ev.bindings(base)
    if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName) or \
            not isinstance(binds[0].parent, nodes.Arguments):
        return None
    func = binds[0].parent.parent
    if not isinstance(func, nodes.FunctionDef) or isinstance(func.parent, nodes.ClassDef) or \
            _attr_stores(func, base.name, flag.attrname):
        return None
    calls = [call for call, _ in ev.passing_sites(func)]
    if ev.link is not None and isinstance(func.parent, nodes.Module):
        ev.param_value(binds[0], None, 0)  # (reads the other modules' call sites)
        remote = ev.link.remote_calls(func, base.name)
        if remote is None:
            return None
        calls += [c for c in remote if all(c is not k for k in calls)]
    if not calls or len(calls) > MAX_FLAG_SITES:
        return None
    found: nodes.Const | None = None
    for call in calls:
        arg = ev.site_argument(func, call, base.name, False)
        if not isinstance(arg, nodes.Name):
            return None
        holder = enclosing_function(call)
        stores = _attr_stores(holder, arg.name, flag.attrname) if holder is not None else []
        if not stores:
            return None
        first = min(stores, key=lambda st: st.fromlineno)
        if _rebinds_after(holder, arg.name, first.fromlineno):
            return None
        top = call
        while top.parent is not holder:
            top = top.parent
        for stmt in stores:
            # every store of the flag in the caller: at the top of its body, the same bool
            # (set again before a second call, ``args.verbose = False``), the first one
            # before the call
            if not isinstance(stmt, nodes.Assign) or stmt.parent is not holder or \
                    not isinstance(stmt.value, nodes.Const) or \
                    not isinstance(stmt.value.value, bool) or \
                    (found is not None and found.value != stmt.value.value):
                return None
            found = stmt.value
        if first.fromlineno >= top.fromlineno:
            return None
    return found


def _attr_stores(func: nodes.NodeNG, name: str, attr: str) -> list[nodes.NodeNG]:
    """The statements that store ``name.attr`` anywhere in ``func``, nested blocks
    included: ``name.attr = ...``, and also ``+=``, a tuple target or a loop target
    (which :func:`_set_by_callers` does not read as a constant)."""
    return list({id(s): s for aa in nodes_of(func, nodes.AssignAttr)
                 if aa.attrname == attr and isinstance(aa.expr, nodes.Name) and
                 aa.expr.name == name for s in [aa.statement()]}.values())


def _rebinds_after(func: nodes.NodeNG, name: str, line: int) -> bool:
    """``name`` is bound in ``func`` at or after ``line`` (the first store of the flag), or
    by anything but a parameter or a statement at the top of its body (``args =
    get_args()`` before the store is the object the store names and the calls pass)."""
    return any(n.name == name and not isinstance(n.parent, nodes.Arguments) and (
        n.statement().parent is not func or n.fromlineno >= line)
        for n in nodes_of(func, nodes.AssignName))


#: The memo entry of a test whose truth is being computed.
_PENDING = object()


@contextmanager
def _truth_cycles(ev: Evaluator | None) -> Iterator[list[bool]]:
    """Watch for answers that :func:`xla_truth` gives about a test still being computed
    (unknown for now): the yielded list holds, after the block, whether one was read in
    it, so that what the block derived is not memoised; the flag of an enclosing watch
    keeps it too."""
    outer = getattr(ev, "_truth_cycle", False)
    if ev is not None:
        ev._truth_cycle = False  # type: ignore[attr-defined]
    seen = [False]
    try:
        yield seen
    finally:
        seen[0] = getattr(ev, "_truth_cycle", False)
        if ev is not None:
            ev._truth_cycle = outer or seen[0]  # type: ignore[attr-defined]


def xla_truth(test: nodes.NodeNG, ev: Evaluator | None = None) -> bool | None:
    """True/False when ``test`` holds/fails on the XLA path, None when it is not known."""
    memo = getattr(ev, "_truth", None) if ev is not None else None
    if memo is not None and id(test) in memo:
        found = memo[id(test)]
        if found is _PENDING:
            # in progress: a test that its own callers' paths ask about (unknown for now;
            # what is derived from this answer must not be memoised, see _branch_off_xla)
            ev._truth_cycle = True  # type: ignore[union-attr]
            return None
        return found
    if memo is not None:
        memo[id(test)] = _PENDING
    truth = _base_truth(test, ev)
    if truth is None and ev is not None:
        truth = _forbidden_truth(test, ev)
    if memo is not None:
        memo[id(test)] = truth
    return truth


def _forbidden_truth(test: nodes.NodeNG, ev: Evaluator, depth: int = 0) -> bool | None:
    """Truth using the flags the script forbids on XLA."""
    if depth > 8:
        return None
    if isinstance(test, nodes.Attribute) and _cleared_where_parsed(test, ev):
        return False
    forbidden = forbidden_flags(ev)
    if not forbidden:
        return None
    if isinstance(test, (nodes.Name, nodes.Attribute)):
        from flake8_xla.analysis.flows import enclosing_class
        key = source_key(test)
        klass = enclosing_class(test.frame()) if key is not None and key.startswith(
            "self.") else None
        return False if key in forbidden or (
            klass is not None and f"{klass.name}:{key}" in forbidden) else None
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = _forbidden_truth(test.operand, ev, depth + 1)
        return None if inner is None else not inner
    if isinstance(test, nodes.BoolOp):
        parts = [_base_truth(v, ev) if _base_truth(v, ev) is not None
                 else _forbidden_truth(v, ev, depth + 1) for v in test.values]
        if test.op == "and":
            if False in parts:
                return False
            return True if all(p is True for p in parts) else None
        if True in parts:
            return True
        return False if all(p is False for p in parts) else None
    return None


def _cleared_where_parsed(test: nodes.Attribute, ev: Evaluator) -> bool:
    """``args.fp16`` of an argparse namespace parsed in another module of the project,
    whose code there makes the flag false on XLA (``args = parser.parse_args()`` then
    ``if args.tpu: args.fp16 = False`` in a ``config.parse_args()`` the script calls)."""
    if ev.link is None:
        return False
    found = ev.value(test.expr, None)
    if not found or not all(v.kind is Kind.HOST and v.qual == "namespace" and
                            isinstance(v.node, nodes.Call) for v in found):
        return False
    for v in found:
        assign = v.node.parent
        if v.node.root() is ev.module or not isinstance(assign, nodes.Assign) or \
                len(assign.targets) != 1 or not isinstance(assign.targets[0], nodes.AssignName):
            return False
        owner = ev.link.evaluator_of(v.node)
        if owner is None or \
                f"{assign.targets[0].name}.{test.attrname}" not in forbidden_flags(owner):
            return False
    return True


def _ends_run(stmt: nodes.NodeNG | None, ev: Evaluator | None) -> bool:
    """``raise ...`` or a process exit call (``sys.exit(1)``, ``exit()``)."""
    if isinstance(stmt, nodes.Raise):
        return True
    return isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call) and \
        ev is not None and ev.qualname(stmt.value.func) in EXIT_QUALNAMES


def _terminates(body: list[nodes.NodeNG], ev: Evaluator | None, loop: nodes.NodeNG | None = None
                ) -> bool:
    """The block ends by leaving: ``raise``, ``return``, an exit call, ``parser.error()``."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, nodes.Return) or _ends_run(last, ev):
        return True
    if isinstance(last, nodes.Break):
        return loop is None or enclosing_loop(last) is loop
    if isinstance(last, nodes.Expr) and isinstance(last.value, nodes.Call):
        call = last.value
        if isinstance(call.func, nodes.Attribute) and call.func.attrname == "error" and \
                loop is None:
            return True  # parser.error(...) exits
    if isinstance(last, nodes.If) and last.orelse:
        return _terminates(last.body, ev, loop) and _terminates(last.orelse, ev, loop)
    return False


def enclosing_loop(node: nodes.NodeNG, keep: Callable[[nodes.NodeNG], bool] | None = None
                   ) -> nodes.NodeNG | None:
    """The innermost ``for``/``while`` around ``node`` in its own function, lambda or
    module (for which ``keep`` holds, when given), else None."""
    cur = node.parent
    while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Lambda,
                                                    nodes.Module)):
        if isinstance(cur, (nodes.For, nodes.While)) and (keep is None or keep(cur)):
            return cur
        cur = cur.parent
    return None


def forbidden_flags(ev: Evaluator) -> frozenset[str]:
    """Flags (dotted spellings) that the script makes false, or refuses, on the XLA path.

    ``if args.tpu and args.fp16: raise ValueError(...)``, ``assert not (use_tpu and amp)``
    and ``if use_xla: args.amp = False`` each make the flag false on XLA.
    """
    cached = getattr(ev, "_forbidden", None)
    if cached is not None:
        return cached
    ev._forbidden = frozenset()  # type: ignore[attr-defined]  # in progress: no recursion
    result = _collect_forbidden(ev)
    ev._forbidden = result  # type: ignore[attr-defined]
    if result:
        # Truths answered while the flags were collected (the flags read truths of their
        # own) took none of them: forget what may depend on them, to be asked again now.
        truths = getattr(ev, "_truth", None)
        if truths is not None:
            for key in [k for k, v in truths.items() if v is None]:
                del truths[key]
        # (not the off-path memos: an entry may be a guard of a question still being
        # answered further up the stack)
        for name in ("_branch_off", "_xla_exits"):
            table = getattr(ev, name, None)
            if isinstance(table, dict):
                table.clear()
    return result


#: Set while :func:`_collect_forbidden` runs (see :func:`_passed_bool`'s use).
_COLLECTING_FORBIDDEN: list[bool] = []


def _collect_forbidden(ev: Evaluator) -> frozenset[str]:
    _COLLECTING_FORBIDDEN.append(True)
    try:
        return _collect_forbidden_flags(ev)
    finally:
        _COLLECTING_FORBIDDEN.pop()


def _collect_forbidden_flags(ev: Evaluator) -> frozenset[str]:
    out: set[str] = set()
    for node in ev.module_nodes((nodes.If, nodes.Assert)):
        test = node.test
        if isinstance(node, nodes.Assert):
            if isinstance(test, nodes.UnaryOp) and test.op == "not":
                test = test.operand
            else:
                continue
            if isinstance(test, (nodes.Name, nodes.Attribute)) and \
                    isinstance(node.parent, nodes.If) and _in_main_flow(node.parent, ev) and \
                    node in node.parent.body and _base_truth(node.parent.test, ev) is True:
                # ``if args.tpu: assert not args.fp16, "..."``: the XLA branch refuses it
                key = source_key(test)
                if key:
                    out.add(key)
                continue
        elif not _terminates(node.body, ev):
            offs = [stmt for stmt in _straight_line(node.body, ev)
                    if isinstance(stmt, nodes.Assign) and
                    isinstance(stmt.value, nodes.Const) and stmt.value.value is False]
            if offs and _base_truth(test, ev) is True:  # syntax first, then the truth
                for stmt in offs:
                    out.update(k for k in (source_key(t) for t in stmt.targets) if k)
                    out.update(_stored_from_locals(node, stmt, ev))
            elif offs and isinstance(test, nodes.BoolOp) and test.op == "and":
                # ``if args.tpu and args.amp: args.amp = False``: the flag is False after
                # it whether or not it was set, once the other terms hold on XLA
                for stmt in offs:
                    keys = {k for k in (source_key(t) for t in stmt.targets) if k}
                    if keys and all(source_key(v) in keys or _base_truth(v, ev) is True
                                    for v in test.values) and any(
                            source_key(v) not in keys for v in test.values):
                        out.update(keys)
            continue
        if isinstance(node, nodes.If) and isinstance(test, (nodes.Name, nodes.Attribute)) and \
                _in_main_flow(node, ev) and node.body and _refuses(node.body[-1], ev) and \
                _base_truth(test, ev) is None:
            # ``if args.fp16: raise ValueError("not supported on TPU")`` in the main flow,
            # or ``if args.profile: parser.error(...)`` in its XLA branch (``if args.device
            # == "xla":``): every run that goes on has the flag off.
            key = source_key(test)
            if key:
                out.add(key)
            continue
        if isinstance(test, nodes.BoolOp) and test.op == "and":
            truths = [_base_truth(v, ev) for v in test.values]
            if True in truths:
                for v, t in zip(test.values, truths):
                    if t is None:
                        key = source_key(v)
                        if key:
                            out.add(key)
    return frozenset(out)


def _in_main_flow(node: nodes.If, ev: Evaluator) -> bool:
    """``node`` is a statement of a function's or the module's own body, or of the body of
    ``if``s there whose tests hold on the XLA path (``if args.device == "xla":``) or that
    guard the script's main block."""
    child, parent = node, node.parent
    while isinstance(parent, nodes.If):
        if child not in parent.body or not (_base_truth(parent.test, ev) is True or
                                            _in_main_block(child)):
            return False
        child, parent = parent, parent.parent
    return isinstance(parent, (nodes.FunctionDef, nodes.Module))


def _refuses(stmt: nodes.NodeNG, ev: Evaluator) -> bool:
    """``raise ...``, a process exit, or ``parser.error(...)`` of an argparse parser (it
    exits)."""
    if _ends_run(stmt, ev):
        return True
    if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call) and
            isinstance(stmt.value.func, nodes.Attribute) and
            stmt.value.func.attrname == "error" and
            isinstance(stmt.value.func.expr, nodes.Name)):
        return False
    binds = ev.bindings(stmt.value.func.expr)
    return bool(binds) and all(
        isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
        isinstance(b.parent.value, nodes.Call) and
        (ev.qualname(b.parent.value.func) or "").endswith("ArgumentParser") for b in binds)


def _straight_line(body: list[nodes.NodeNG], ev: Evaluator) -> list[nodes.NodeNG]:
    """The statements of ``body`` that every run going on through it executes: its own,
    and those after a guard that leaves (``if not XLA_AVAILABLE: raise ...`` then the
    ``else:`` or the rest)."""
    out: list[nodes.NodeNG] = []
    for stmt in body:
        out.append(stmt)
        if isinstance(stmt, nodes.If) and _terminates(stmt.body, ev):
            out.extend(_straight_line(stmt.orelse, ev))
    return out


def _stored_from_locals(branch: nodes.If, stmt: nodes.Assign, ev: Evaluator) -> set[str]:
    """``self.<attr>`` keys that a forced-off local reaches: ``if device == "tpu": fp16 =
    False`` then ``self._init(fp16=fp16)``, whose ``self.fp16 = fp16`` stores it. The
    local is passed after the branch, in the branch's function, to a module function
    that stores the parameter unchanged on ``self``."""
    names = {t.name for t in stmt.targets if isinstance(t, nodes.AssignName)}
    frame = branch.frame()
    if not names or not isinstance(frame, nodes.FunctionDef):
        return set()
    from flake8_xla.analysis.flows import enclosing_class
    out: set[str] = set()
    for call in ev.own_nodes(frame, nodes.Call):
        if call.lineno <= branch.tolineno:
            continue
        passed = [a for a in [*call.args, *(k.value for k in call.keywords or ())]
                  if isinstance(a, nodes.Name) and a.name in names]
        if not passed:
            continue
        for func, _ in ev.functions_called(call, None):
            if not isinstance(func, nodes.FunctionDef):
                continue
            bound = (isinstance(call.func, nodes.Attribute) or func.name == "__init__") and \
                bool(func.args.args) and func.args.args[0].name in ("self", "cls")
            params = {p.name for p in func.args.args + func.args.kwonlyargs}
            given = {p for p in params
                     if any(ev.site_argument(func, call, p, bound) is a for a in passed)}
            klass = enclosing_class(func)
            if klass is None:
                continue
            for assign in ev.own_nodes(func, nodes.Assign):
                if isinstance(assign.value, nodes.Name) and assign.value.name in given:
                    # keyed by the class: another class's ``self.fp16`` is its own
                    out.update(f"{klass.name}:{k}" for k in (
                        source_key(t) for t in assign.targets
                        if isinstance(t, nodes.AssignAttr)) if k)
    return out


BRANCHES = (nodes.If, nodes.IfExp, nodes.While)


def off_xla_path(node: nodes.NodeNG, ev: Evaluator | None = None,
                 kinds: tuple[type, ...] = BRANCHES) -> bool:
    """True when the XLA path never reaches ``node`` (a CUDA-only or non-XLA branch).

    ``kinds`` are the branching nodes whose tests count (statements and conditional
    expressions by default). A function whose every call site in the module is off the
    XLA path is off it too (``else: self._save_checkpoint_cuda()``). Memoised per node.
    """
    if ev is not None and ev.link is not None and node.root() is not ev.module:
        # a node of another module of the project (a scaler built by the script that
        # calls this helper): its own module's evaluator knows its paths and call sites
        owner = ev.link.evaluator_of(node)
        if owner is not None and owner is not ev:
            return off_xla_path(node, owner, kinds)
    memo = getattr(ev, "_off_path", None) if ev is not None else None
    key = (id(node), kinds)
    if memo is not None and key in memo:
        return memo[key]
    if memo is not None:
        memo[key] = False  # in progress: recursion through call sites
    with _truth_cycles(ev) as cycle:
        result = _off_xla_path(node, ev, kinds)
    if memo is not None:
        if cycle[0] and not result:
            del memo[key]  # (an answer that read a truth still in progress: asked again)
        else:
            memo[key] = result
    return result


def _off_xla_path(node: nodes.NodeNG, ev: Evaluator | None, kinds: tuple[type, ...]) -> bool:
    if _module_needs_cuda(node.root()):
        return True  # (a module that needs a CUDA-only package to import: see there)
    if _branch_off_xla(node, ev, kinds):
        return True
    if ev is not None and ev.link is not None and _in_main_block(node) and \
            ev.link.imported_program(ev):
        return True  # the program of a module that XLA code only imports (see there)
    if ev is None:
        return False
    from flake8_xla.analysis.flows import enclosing_function
    func = enclosing_function(node)
    if func is None:
        return False
    memo = ev._func_off
    key = (id(func), kinds)
    if key not in memo:
        memo[key] = False  # in progress: recursion through call sites
        memo[key] = _function_off_xla(func, ev, kinds)
    return memo[key]


def _overridden_everywhere(func: nodes.NodeNG, ev: Evaluator) -> bool:
    """``func`` is a method of a base class that the project never builds itself, and
    every subclass of it overrides ``func`` with a body of its own (a GPU trainer's
    ``device`` property returning ``torch.device("cuda", rank)``, which its only
    subclass, the XLA trainer, replaces): no instance ever runs it."""
    from flake8_xla.analysis.flows import own_hook

    klass = func.parent
    if ev.link is None or not isinstance(func, nodes.FunctionDef) or \
            not isinstance(klass, nodes.ClassDef) or not isinstance(klass.parent, nodes.Module) \
            or func.name.startswith("__"):
        return False
    if _built_by_name(klass, ev):
        return False  # built here
    if ev.link.constructions(ev, klass) != []:
        return False  # built in another module, or not known
    subs = ev.link.subclasses(ev, klass)
    if not subs:
        return False
    for sub in subs:
        override = own_hook(sub, func.name)
        if override is None or any(
                a.attrname == func.name and (
                    isinstance(a.expr, nodes.Call) and isinstance(a.expr.func, nodes.Name)
                    and a.expr.func.name == "super" or
                    isinstance(a.expr, nodes.Name) and a.expr.name == klass.name)
                for a in nodes_of(override, nodes.Attribute)):
            return False  # inherited, or run by the override (``super().device``)
    # (a hierarchy the project builds through its subclasses: a class that nothing
    # builds here may be a library's, built by its users)
    return any(_built_in_project(sub, ev) for sub in subs)


def _built_by_name(klass: nodes.ClassDef, ev: Evaluator) -> bool:
    """``ev``'s module calls ``klass`` by its bare name (``Trainer(...)``)."""
    return any(isinstance(c.func, nodes.Name) and c.func.name == klass.name
               for c in ev.calls_named(klass.name))


def _built_in_project(klass: nodes.ClassDef, ev: Evaluator) -> bool:
    """Some module of the project calls ``klass`` by name to build an instance."""
    home = ev.home_of(klass)
    if home is None:
        return False
    if _built_by_name(klass, home):
        return True
    return bool(ev.link.constructions(home, klass)) if ev.link is not None and \
        isinstance(klass.parent, nodes.Module) else False


def _function_off_xla(func: nodes.NodeNG, ev: Evaluator, kinds: tuple[type, ...]) -> bool:
    """Every call site of ``func`` in the module is off the XLA path (and nothing else
    is handed ``func`` to call it)."""
    from flake8_xla.analysis.hooks import callback_sites

    if _class_built_off_xla(func, ev) or id(func) in ev.dead_nested():
        return True  # (a nested function that nothing refers to never runs)
    if _overridden_everywhere(func, ev):
        return True
    sites = ev.call_sites(func)
    every_handing = callback_sites(ev).get(id(func), [])
    handed = [h for h in every_handing if not _runs_only_off_xla(h, ev, kinds)]
    if handed and not all(off_xla_path(call, ev, kinds) for _, call, _ in handed):
        return False  # handed on the XLA path to something that may call it
    if handed and not sites:
        # handed over only off the XLA path (``run_with_tracking(lambda: pipeline(cfg))``
        # in the GPU program's ``main``)
        return _not_run_by_xla_code(func, ev)
    if not sites and every_handing:
        # handed only to functions that call it off the XLA path (``spawn_main(main,
        # args)`` whose ``else:`` runs ``main(0, args)``)
        return _not_run_by_xla_code(func, ev)
    if not sites:
        # No call in its own module: off the path when only modules that are not XLA
        # code call it (a GPU builder beside the TPU one in a shared helper module),
        # nothing in its module names it, and it shows no XLA use of its own.
        # The same when every call that modules which are XLA code make sits off the
        # XLA path there (``else: utils.init_distributed_mode(args)``, the GPU path).
        # And when no module of the project names it at all, in a module that shows no
        # XLA use of its own (a helper the project never runs).
        link = ev.link
        if link is None or _named_in_module(func, ev):
            return False
        return (link.only_off_xla(ev, func) and not names_xla(func, ev)) or \
            link.called_only_off_path(ev, func) or link.never_called(ev, func)
    if not all(off_xla_path(call, ev, kinds) for call, _ in sites):
        return False
    # every call of its own module is off the path: so is the function, unless a module
    # that is XLA code calls it too, on its XLA path
    return _not_run_by_xla_code(func, ev)


def _runs_only_off_xla(handed: tuple[str, nodes.Call, int], ev: Evaluator,
                       kinds: tuple[type, ...]) -> bool:
    """A function handed to a function of the module (``spawn_main(main, args)``) whose
    parameter it lands in is only called, there, off the XLA path (``if args.use_tpu:
    xmp.spawn(_main_xla, ...) else: main(0, args)``) and used for nothing else."""
    kw, call, pos = handed
    if not isinstance(call.func, nodes.Name):
        return False
    callees = [b for b in ev.bindings(call.func) if isinstance(b, nodes.FunctionDef)]
    if len(callees) != 1:
        return False
    callee = callees[0]
    params = [a.name for a in callee.args.args or []]
    name = kw if kw else (params[pos] if 0 <= pos < len(params) else None)
    if not name or name not in params:
        return False
    uses = [n for n in nodes_of(callee, nodes.Name) if n.name == name]
    return bool(uses) and all(
        isinstance(n.parent, nodes.Call) and n.parent.func is n and
        off_xla_path(n.parent, ev, kinds) for n in uses)


def _class_built_off_xla(func: nodes.NodeNG, ev: Evaluator) -> bool:
    """``func`` is a method of a top-level class that its module builds only off the XLA
    path, names nowhere else, and no module that is XLA code names (``profiler =
    StepProfiler(device) if args.profile else NullProfiler()`` where the XLA branch of
    the parser refuses ``--profile``), or that only other modules name, each building it
    in a branch the XLA path never takes: no instance exists on the XLA path, so none of its
    methods runs there. For ``--xla-target=auto`` (the project tells which modules use
    the class). A construction counts off the path also in the other arm of a
    conditional expression, whatever branches the caller asks about. Memoised per
    class."""
    from flake8_xla.analysis.flows import is_classmethod, is_staticmethod

    klass = func.parent
    link = ev.link
    if not isinstance(klass, nodes.ClassDef) or klass.parent is not ev.module \
            or link is None or is_staticmethod(func) or is_classmethod(func):
        return False
    memo = ev._func_off
    key = (id(klass), "built_off")
    if key in memo:
        return memo[key]
    memo[key] = False  # in progress
    uses = ev.name_uses(klass.name)
    built = [n.parent for n in uses
             if isinstance(n.parent, nodes.Call) and n.parent.func is n]
    if not uses:
        # built only by other modules (``elif flags.device == "cuda": trainer =
        # CUDATrainer(...)`` in a factory), each of them off the XLA path there
        result = link.called_only_off_path(ev, klass, branch_only=True)
    else:
        result = bool(built) and len(built) == len(uses) and \
            link.used_only_here(ev, klass) and \
            all(off_xla_path(call, ev) for call in built)
    memo[key] = result
    return result


def _not_run_by_xla_code(func: nodes.NodeNG, ev: Evaluator) -> bool:
    """No module that is XLA code names ``func`` (nor, for a method, its class and the
    method's name), or every call those modules make of it sits off the XLA path there
    (the GPU program's ``evaluate(...)`` in a module that XLA code imports for other
    helpers)."""
    link = ev.link
    return link is None or not (link.called_from_xla_code(ev, func) or
                                link.method_called_from_xla_code(ev, func)) or \
        link.called_only_off_path(ev, func)


def _in_main_block(node: nodes.NodeNG) -> bool:
    """``node`` sits in the body of a top-level ``if __name__ == "__main__":``."""
    child, stmt = None, node
    while stmt.parent is not None and not isinstance(stmt.parent, nodes.Module):
        child, stmt = stmt, stmt.parent
    return isinstance(stmt, nodes.If) and any(s is child for s in stmt.body) and \
        is_main_test(stmt.test)


def _named_in_module(func: nodes.NodeNG, ev: Evaluator) -> bool:
    """Some name of ``func``'s module spells ``func``'s name (a reference, a re-export)."""
    name = getattr(func, "name", None)
    return name is not None and bool(ev.name_uses(name))


def names_xla(func: nodes.NodeNG, ev: Evaluator) -> bool:
    """``func``'s code (nested functions included) names a torch_xla API or an XLA device
    string."""
    for n in nodes_of(func, (nodes.Name, nodes.Attribute, nodes.Const)):
        if isinstance(n, nodes.Const):
            if isinstance(n.value, str) and V.device_of_text(n.value) == "xla":
                return True
        elif (ev.qualname(n) or "").startswith(("torch_xla", "torch_xla_py")):
            return True
    return False


def _after_exit(stmt: nodes.NodeNG) -> bool:
    """``stmt`` follows a ``return``, ``raise``, ``continue`` or ``break`` of its own block
    (code left after an early ``return tensor``): it never runs. The first exit of each
    block is found once per tree (kept in its :func:`syntax_cache`)."""
    parent = stmt.parent
    table = syntax_cache(stmt.root()).setdefault("block_exits", {})
    for field in parent._astroid_fields:
        block = getattr(parent, field, None)
        if not isinstance(block, list):
            continue
        end = table.get(id(block), 0)
        if end == 0:
            end = table[id(block)] = next(
                (s.tolineno for s in block if isinstance(s, JUMPS)), None)
        if end is not None and stmt.fromlineno > end and any(s is stmt for s in block):
            return True
    return False


def _branch_off_xla(node: nodes.NodeNG, ev: Evaluator | None, kinds: tuple[type, ...]) -> bool:
    """A branch between ``node`` and the module that the XLA path does not take.

    Computed bottom-up once per node: a node is off the path when the branch of its
    parent that holds it is, or when its parent is (memoised on ``ev``).
    """
    memo = getattr(ev, "_branch_off", None) if ev is not None else None
    chain: list[nodes.NodeNG] = []
    cur: nodes.NodeNG | None = node
    result = False
    with _truth_cycles(ev) as cycle:
        while cur is not None and not isinstance(cur, nodes.Module):
            key = (id(cur), kinds)
            if memo is not None and key in memo:
                result = memo[key]
                break
            chain.append(cur)
            if _own_branch_off(cur, ev, kinds):
                result = True
                break
            cur = cur.parent
    if memo is not None and not cycle[0]:
        # every node on the walked chain below a node that is off the path is off it too
        for n in chain:
            memo[(id(n), kinds)] = result
    return result


def _own_branch_off(child: nodes.NodeNG, ev: Evaluator | None, kinds: tuple[type, ...]
                    ) -> bool:
    """The parent of ``child`` puts ``child`` in a branch the XLA path does not take."""
    cur = child.parent
    if cur is None:
        return False
    if child.is_statement and _after_exit(child):
        return True
    if isinstance(cur, kinds) and child is not cur.test:
        truth = xla_truth(cur.test, ev)
        in_else = (child is cur.orelse) if isinstance(cur, nodes.IfExp) else \
            (child in cur.orelse)
        if truth is not None and in_else == truth:
            return True
        if truth is None and in_else and isinstance(cur, nodes.If) and _else_unreachable(cur, ev):
            return True
    if isinstance(cur, nodes.If) and child is not cur.test and _imports_cuda_only(
            cur.body if child in cur.body else cur.orelse, ev):
        return True
    if isinstance(cur, nodes.Dict) and _non_xla_entry(cur, child):
        return True
    if isinstance(cur, nodes.ClassDef) and _non_xla_class(cur):
        return True
    if isinstance(cur, nodes.ExceptHandler) and (
            _catches_import_error(cur) and _imports_xla(cur.parent) or
            _acquires_xla(cur.parent, ev) and _fallback_handler(cur, ev)):
        return True
    if nodes.If in kinds and child.is_statement and _after_xla_exit(cur, child, ev):
        return True
    if isinstance(cur, nodes.BoolOp) and cur.op == "and" and child is not cur.values[0]:
        idx = next(i for i, v in enumerate(cur.values) if v is child)
        if any(xla_truth(v, ev) is False for v in cur.values[:idx]):
            return True
    return False


#: Packages that exist only for NVIDIA GPUs (each needs CUDA to install or to import):
#: TensorRT and its torch bridge, PyCUDA, CuPy and NVIDIA DALI. (Not apex: its AMP is
#: what an ``--fp16`` flag of a ported GPU script still reaches on a TPU, see XLA401.)
CUDA_ONLY_PACKAGES = ("torch2trt", "tensorrt", "torch_tensorrt", "pycuda", "cupy",
                      "nvidia.dali")


def _imports_cuda_only(block: list[nodes.NodeNG], ev: Evaluator | None = None) -> bool:
    """A statement of ``block`` imports a CUDA-only package (``if trt_file is not None:
    from torch2trt import TRTModule``), or (with ``ev``'s project link) a project module
    whose own top-level statements do (``from dali_loader import make_loader``): the
    branch, or a module whose body does so, cannot run on an XLA host, so it is not the
    XLA path."""
    for stmt in block:
        if isinstance(stmt, nodes.ImportFrom):
            names = [stmt.modname] if not stmt.level else []
        elif isinstance(stmt, nodes.Import):
            names = [name for name, _ in stmt.names]
        else:
            continue
        if any(_cuda_only_name(n) for n in names):
            return True
        if ev is not None and ev.link is not None and _project_module_needs_cuda(stmt, ev):
            return True
    return False


def _module_needs_cuda(module: nodes.Module) -> bool:
    """The module's own top-level statements import a CUDA-only package (memoised with
    its tree)."""
    from flake8_xla.analysis.flows import syntax_cache

    table = syntax_cache(module)
    found = table.get("needs_cuda")
    if found is None:
        found = table["needs_cuda"] = _imports_cuda_only(module.body)
    return found


def _cuda_only_name(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in CUDA_ONLY_PACKAGES)


def _project_module_needs_cuda(stmt: nodes.NodeNG, ev: Evaluator) -> bool:
    """``stmt`` imports a project module whose top-level statements import a CUDA-only
    package (the index's syntax summary of that module: its unconditional top-level
    imports)."""
    link = ev.link
    owner = link.module_rel(ev.module)
    if owner is None:
        return False
    if isinstance(stmt, nodes.ImportFrom):
        targets = [link.index.resolve(owner, stmt.modname, stmt.level or 0)]
    else:
        targets = [link.index.resolve(owner, name, 0) for name, _ in stmt.names]
    for rel in targets:
        summary = link.index.summary(rel) if rel is not None and rel.endswith(".py") else None
        if summary is not None and any(not level and _cuda_only_name(module)
                                       for module, level, _ in summary.top):
            return True
    return False


def _literal(test: nodes.NodeNG, ev: Evaluator | None, depth: int = 0
             ) -> tuple[str, bool] | None:
    """``test`` on the XLA path as one unknown condition and its polarity: ``args.tpu
    and not hasattr(args, "spawned")`` is ``(hasattr(args, "spawned"), False)`` when
    ``args.tpu`` holds there; None when it is not one condition."""
    if depth > 6 or xla_truth(test, ev) is not None:
        return None
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = _literal(test.operand, ev, depth + 1)
        return (inner[0], not inner[1]) if inner is not None else None
    if isinstance(test, nodes.BoolOp):
        # the terms whose truth does not already decide nothing: ``and`` drops the true
        # ones, ``or`` the false ones
        neutral = test.op == "and"
        rest = [v for v in test.values if xla_truth(v, ev) is not neutral]
        return _literal(rest[0], ev, depth + 1) if len(rest) == 1 else None
    return test.as_string(), True


def _else_unreachable(branch: nodes.If, ev: Evaluator | None) -> bool:
    """The ``else`` of an ``if``/``elif`` chain needs every test false, and on the XLA path
    two of them are one condition and its negation (``if tpu and not spawned: ...
    elif spawned: ... else: <the GPU path>``)."""
    literals: list[tuple[str, bool]] = []
    cur: nodes.NodeNG = branch
    while isinstance(cur, nodes.If):
        lit = _literal(cur.test, ev)
        if lit is not None:
            if (lit[0], not lit[1]) in literals:
                return True
            literals.append(lit)
        parent = cur.parent
        if not (isinstance(parent, nodes.If) and len(parent.orelse) == 1 and
                parent.orelse[0] is cur):
            break
        cur = parent
    return False


def _after_xla_exit(parent: nodes.NodeNG, child: nodes.NodeNG, ev: Evaluator | None) -> bool:
    """``child`` follows, in the same block, an ``if`` whose branch taken on the XLA path
    leaves the block (``if kind == "tpu": return torch_xla.device()``), or an ``assert``
    that fails there (``assert not use_tpu``): the statements after it are that ``if``'s
    implicit ``else``, or never run on XLA."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if not isinstance(block, list) or not any(s is child for s in block):
            continue
        memo = getattr(ev, "_xla_exits", None) if ev is not None else None
        key = (id(parent), field)
        first = memo.get(key) if memo is not None else None
        if first is None:
            first = len(block)
            for i, stmt in enumerate(block):
                if isinstance(stmt, nodes.If):
                    truth = xla_truth(stmt.test, ev)
                    if truth is not None and _terminates(
                            stmt.body if truth else stmt.orelse, ev):
                        first = i
                        break
                if isinstance(stmt, nodes.Assert) and _setting_test(stmt.test) and \
                        xla_truth(stmt.test, ev) is False:
                    # ``assert not use_tpu, "use xm.save"``: the XLA run stops there (a
                    # test of a tensor's device states where it is, whatever we inferred)
                    first = i
                    break
            if memo is not None:
                memo[key] = first
        return any(s is child for s in block[first + 1:])
    return False


def _setting_test(test: nodes.NodeNG) -> bool:
    """``test`` reads a run setting (``not use_tpu``, ``args.device == "cuda"``), not the
    device of a value (``x.device.type == "cpu"``)."""
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        test = test.operand
    if isinstance(test, nodes.Compare):
        test = test.left
    return isinstance(test, nodes.Name) or isinstance(test, nodes.Attribute) and \
        isinstance(test.expr, nodes.Name) and test.attrname not in ("device", "type")


def caught_types(handler: nodes.ExceptHandler) -> list[nodes.NodeNG]:
    """The exception expressions an ``except`` clause names (``except (A, b.C):`` gives
    both; a bare ``except:`` none)."""
    t = handler.type
    return list(t.elts) if isinstance(t, nodes.Tuple) else [t] if t is not None else []


def _catches_import_error(handler: nodes.ExceptHandler) -> bool:
    return any(isinstance(n, nodes.Name) and n.name in ("ImportError", "ModuleNotFoundError")
               for n in caught_types(handler))


def _imports_xla(try_node: nodes.NodeNG) -> bool:
    if not isinstance(try_node, nodes.Try):
        return False
    for stmt in try_node.body:
        for imp in nodes_of(stmt, (nodes.Import, nodes.ImportFrom)):
            names = [imp.modname] if isinstance(imp, nodes.ImportFrom) else \
                [n for n, _ in imp.names]
            if any((n or "").startswith(("torch_xla", "torch_xla_py")) for n in names):
                return True
    return False


def _acquires_xla(try_node: nodes.NodeNG, ev: Evaluator | None) -> bool:
    """A ``try`` whose short body (at most three simple statements) gets the XLA device
    (``try: device = xm.xla_device()`` ``except Exception: device = torch.device("cpu")``),
    or whose body of simple statements launches the XLA replicas (``try: xmp.spawn(_mp_fn,
    ...)`` ``except Exception: run_cpu_gpu(args)``, also after a few settings, or in a
    ``try`` of its own that retries the launch another way): on the XLA path that call
    succeeds, so its handlers are the path without a device."""
    if not isinstance(try_node, nodes.Try) or ev is None or not try_node.body:
        return False
    return _gets_device(try_node.body, ev) or _launches(try_node.body, ev, 0)


_SIMPLE = (nodes.Assign, nodes.AugAssign, nodes.Expr, nodes.Import, nodes.ImportFrom)


def _entries_of(stmt: nodes.NodeNG, ev: Evaluator) -> Iterator[Any]:
    for call in nodes_of(stmt, nodes.Call):
        q = ev.qualname(call.func)
        entry = ev.api.call(q) if q else None
        if entry is not None:
            yield entry


def _gets_device(body: list[nodes.NodeNG], ev: Evaluator) -> bool:
    if len(body) > 3 or not all(isinstance(s, _SIMPLE) for s in body):
        return False
    return any(e.returns == "device:xla" for stmt in body for e in _entries_of(stmt, ev))


def _launches(body: list[nodes.NodeNG], ev: Evaluator, depth: int) -> bool:
    if len(body) > 8 or depth > 2:
        return False
    found = False
    for stmt in body:
        if isinstance(stmt, nodes.Try):
            if not _launches(stmt.body, ev, depth + 1):
                return False
            found = True
        elif not isinstance(stmt, _SIMPLE):
            return False
        elif any(e.does("launch") for e in _entries_of(stmt, ev)):
            found = True
    return found


#: Exceptions that say nothing about a missing device: their handler runs on the TPU too.
_NOT_FALLBACK = frozenset({"KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration"})


def _fallback_handler(handler: nodes.ExceptHandler, ev: Evaluator | None) -> bool:
    """``handler`` is the path without an XLA device: it catches a failure (not only a
    ``KeyboardInterrupt`` or the like) and does not itself get the XLA device or launch
    the replicas (a retry on one TPU core is still the XLA path)."""
    names = caught_types(handler)
    if names and all(isinstance(n, nodes.Name) and n.name in _NOT_FALLBACK for n in names):
        return False
    if ev is None:
        return True
    return not any(e.returns == "device:xla" or e.does("launch")
                   for stmt in handler.body for e in _entries_of(stmt, ev))


#: Where the AMP constructs take ``enabled`` positionally (torch's signatures:
#: ``torch.cuda.amp.autocast(enabled, dtype, cache_enabled)``, ``torch.autocast(
#: device_type, dtype, enabled, cache_enabled)``, ``torch.cuda.amp.GradScaler(init_scale,
#: growth_factor, backoff_factor, growth_interval, enabled)``, ``torch.amp.GradScaler(
#: device, init_scale, ..., enabled)``).
ENABLED_POSITION = {
    "torch.cuda.amp.autocast": 0,
    "torch.cpu.amp.autocast": 0,
    "torch.autocast": 2,
    "torch.amp.autocast": 2,
    "torch.amp.autocast_mode.autocast": 2,
    "torch.cuda.amp.GradScaler": 4,
    "torch.amp.GradScaler": 5,
}


def enabled_flag(call: nodes.Call, ev: Evaluator | None = None) -> nodes.NodeNG | None:
    """The expression a construct gets for ``enabled``: its keyword, or (``ev`` given) the
    positional argument where the callee's signature takes it (:data:`ENABLED_POSITION`:
    ``torch.cuda.amp.autocast(args.amp)``); None when not passed."""
    flag = keyword(call, "enabled")
    if flag is not None or ev is None:
        return flag
    at = ENABLED_POSITION.get(ev.qualname(call.func) or "")
    if at is None or len(call.args) <= at or any(
            isinstance(a, nodes.Starred) for a in call.args[:at + 1]):
        return None
    return call.args[at]


def switched_off(call: nodes.Call, ev: Evaluator | None = None) -> bool:
    """``enabled=False`` (or a switch that is false on XLA) turns the construct off."""
    flag = enabled_flag(call, ev)
    if flag is None:
        return False
    if isinstance(flag, nodes.Const):
        return flag.value is False
    if xla_truth(flag, ev) is False:
        return True
    if ev is not None and isinstance(flag, (nodes.Name, nodes.Attribute, nodes.Compare,
                                            nodes.BoolOp, nodes.UnaryOp)):
        # ``USE_FP16 = False`` ... ``enabled=USE_FP16``: every value it can have is False;
        # so is ``enabled=(dtype == "float16")`` with ``dtype = "bfloat16"`` (nanoGPT)
        return V.known_bool(ev.value(flag)) is False
    return False


def _counter_equals_constant(test: nodes.NodeNG, loop: nodes.NodeNG, ev: Evaluator | None
                             ) -> bool:
    """``batch_idx == 1`` (or ``and``-ed with it): the loop's own counter at one value; or
    ``it % (len(loader) // 2) == 0``: the counter modulo a fraction of the epoch's
    length (``len(...)``, optionally divided by a constant), true a fixed number of times
    per epoch whatever the dataset's size."""
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return any(_counter_equals_constant(v, loop, ev) for v in test.values)
    if isinstance(test, nodes.BoolOp) and test.op == "or":
        # ``step == last or step == warmup``: once for each term
        return all(_counter_equals_constant(v, loop, ev) for v in test.values)
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] == "=="):
        return False
    if not isinstance(loop, nodes.For):
        return False
    counters = {t.name for t in nodes_of(loop.target, nodes.AssignName)}
    # (``global_step += 1`` among the loop body's own statements: one count per iteration,
    # unless the loop also sets it otherwise: ``micro = 0`` after an accumulation)
    bumps = [stmt.target for stmt in loop.body
             if isinstance(stmt, nodes.AugAssign) and stmt.op == "+=" and
             isinstance(stmt.target, nodes.AssignName) and
             isinstance(stmt.value, nodes.Const) and stmt.value.value == 1]
    counters |= {t.name for t in bumps if not any(
        n.name == t.name and n is not t for n in nodes_of(loop, nodes.AssignName))}

    def counter(a: nodes.NodeNG) -> bool:
        return isinstance(a, nodes.Name) and a.name in counters and ev is not None and \
            V.is_host_only(ev.value(a))

    sides = [test.left, test.ops[0][1]]
    if any(isinstance(b, nodes.Const) and isinstance(b.value, int) for b in sides):
        if any(counter(a) for a in sides):
            return True
        return any(isinstance(a, nodes.BinOp) and a.op == "%" and (
            counter(a.left) or _shifted_counter(a.left, counter)) and
            _epoch_fraction(a.right, ev) for a in sides)
    # ``step == len(loader) - 1``, ``i == last``, ``(i + 1) == num_batches``: the counter
    # (or the counter shifted by a constant) meets a value the loop never changes once
    # (the last step of the epoch)

    def counted(a: nodes.NodeNG) -> bool:
        return counter(a) or _shifted_counter(a, counter)

    if not any(counted(a) for a in sides):
        return False
    # (the names the loop assigns, which the counter (one of them) may not meet)
    assigned = {n.name for n in nodes_of(loop, nodes.AssignName)}
    attrs = {n.attrname for n in nodes_of(loop, nodes.AssignAttr)}
    return any(counted(a) and _loop_invariant(b, assigned, attrs)
               for a, b in (sides, sides[::-1]))


def _loop_invariant(node: nodes.NodeNG, assigned: set[str], attrs: set[str],
                    depth: int = 0) -> bool:
    """Syntax only: ``node`` has one value through a loop that assigns the names
    ``assigned`` (its counters among them) and the attributes ``attrs``: constants,
    ``len(...)``, arithmetic, and names or attributes the loop never assigns."""
    if depth > 6:
        return False
    if isinstance(node, nodes.Const):
        return isinstance(node.value, int)
    if isinstance(node, nodes.BinOp):
        return _loop_invariant(node.left, assigned, attrs, depth + 1) and \
            _loop_invariant(node.right, assigned, attrs, depth + 1)
    if isinstance(node, nodes.Call):
        return isinstance(node.func, nodes.Name) and node.func.name == "len" and \
            len(node.args) == 1 and not node.keywords and \
            _loop_invariant(node.args[0], assigned, attrs, depth + 1)
    base = node
    while isinstance(base, nodes.Attribute):
        base = base.expr
    return isinstance(base, nodes.Name) and base.name not in assigned and not (
        isinstance(node, nodes.Attribute) and node.attrname in attrs)


def _shifted_counter(node: nodes.NodeNG, counter: Callable[[nodes.NodeNG], bool]) -> bool:
    """``i + 1`` (or ``i - 1``): the loop's counter shifted by a small constant."""
    return isinstance(node, nodes.BinOp) and node.op in ("+", "-") and \
        counter(node.left) and isinstance(node.right, nodes.Const) and \
        type(node.right.value) is int and 0 <= node.right.value <= 10


def _epoch_fraction(node: nodes.NodeNG, ev: Evaluator | None = None, depth: int = 0,
                    divided: bool = False) -> bool:
    """``len(x)`` or ``len(x) // k`` (``k`` a constant up to 10): a large fraction of an
    epoch's length, so the guarded block runs at most ``k`` times per epoch; also the
    whole batches of a loader of the module (``len(ds) // bs``, ``math.ceil(len(ds) /
    bs)``, see :func:`_whole_batches`), and a name (or a ``self.`` attribute of the class)
    bound only to one (``steps_per_epoch = len(loader)``, ``log_every = steps_per_epoch //
    5``: two names deep at most, one ``// k`` in all)."""
    if isinstance(node, nodes.Name) and ev is not None and depth <= 1:
        binds = ev.bindings(node)
        return bool(binds) and all(
            isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
            b.parent.value is not None and
            _epoch_fraction(b.parent.value, ev, depth + 1, divided)
            for b in binds)
    if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and \
            node.expr.name == "self" and ev is not None and depth <= 1:
        # ``self.steps_per_epoch`` of ``self.steps_per_epoch = len(loader)`` in the class
        from flake8_xla.analysis.flows import enclosing_class, enclosing_function
        method = enclosing_function(node)
        klass = enclosing_class(method) if method is not None else None
        stores = ev.class_attrs(klass).get(node.attrname, []) if klass is not None else []
        return bool(stores) and all(
            isinstance(stmt, nodes.Assign) and
            _epoch_fraction(stmt.value, ev, depth + 1, divided)
            for _, stmt in stores)
    if isinstance(node, nodes.BinOp) and node.op == "//" and \
            isinstance(node.right, nodes.Const) and type(node.right.value) is int and \
            1 <= node.right.value <= 10 and not divided:
        return _epoch_fraction(node.left, ev, depth, True)
    if isinstance(node, nodes.BinOp) and node.op == "//":
        return _whole_batches(node.left, node.right)
    if isinstance(node, nodes.Call) and callee_name(node.func) == "ceil" and \
            len(node.args) == 1 and not node.keywords and \
            isinstance(node.args[0], nodes.BinOp) and node.args[0].op == "/":
        # ``math.ceil(len(ds) / bs)``: the batches of a loader without drop_last
        return _whole_batches(node.args[0].left, node.args[0].right)
    return isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and \
        node.func.name == "len" and len(node.args) == 1


def _whole_batches(length: nodes.NodeNG, size_node: nodes.NodeNG) -> bool:
    """``len(train_ds)`` and ``args.batch_size`` of ``len(train_ds) // args.batch_size``:
    the number of whole batches of a DataLoader that the same module builds over
    ``train_ds`` with ``batch_size=args.batch_size`` (both spelled the same): an epoch's
    length in steps (syntax only)."""
    if not (isinstance(length, nodes.Call) and isinstance(length.func, nodes.Name) and
            length.func.name == "len" and len(length.args) == 1 and not length.keywords) or \
            not isinstance(size_node, (nodes.Name, nodes.Attribute)):
        return False
    data, size = length.args[0].as_string(), size_node.as_string()
    from flake8_xla.analysis.flows import syntax_cache
    root = length.root()
    built = syntax_cache(root).get("loader_batches")
    if built is None:
        built = syntax_cache(root)["loader_batches"] = _loader_batches(root)
    return (data, size) in built


def _loader_batches(root: nodes.NodeNG) -> frozenset[tuple[str, str]]:
    """The (dataset, batch size) spellings of the DataLoader calls of a module."""
    found = set()
    for call in nodes_of(root, nodes.Call):
        if callee_name(call.func) != "DataLoader":
            continue
        given = call.args[0] if call.args else next(
            (k.value for k in call.keywords or () if k.arg == "dataset"), None)
        batch = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords or () if k.arg == "batch_size"), None)
        if given is not None and batch is not None:
            found.add((given.as_string(), batch.as_string()))
    return frozenset(found)


def runs_once(node: nodes.NodeNG, loop: nodes.NodeNG, ev: Evaluator | None = None) -> bool:
    """``node`` runs once per execution of ``loop``, not once per iteration.

    It sits in a block that ends by leaving the loop, or under a test of the loop's own
    counter against one value (``if batch_idx == 0:``).
    """
    child, cur = node, node.parent
    while cur is not None and cur is not loop:
        if isinstance(cur, nodes.If) and child is not cur.test and any(
                s is child for s in cur.body) and _counter_equals_constant(cur.test, loop, ev):
            return True
        for block in _blocks_of(cur):
            if any(s is child for s in block) and _terminates(block, ev, loop) and \
                    _block_exits_loop(block, loop):
                return True
        child, cur = cur, cur.parent
    return False


def in_failing_branch(node: nodes.NodeNG, holder: nodes.NodeNG, ev: Evaluator | None = None
                      ) -> bool:
    """``node`` sits in a branch of an ``if`` within ``holder`` that ends by raising or
    exiting the process (``if loss.isnan(): print(...); exit(1)``): it runs at most once
    per run, as the run's last act, not once per step."""
    child, cur = node, node.parent
    while cur is not None and cur is not holder:
        if isinstance(cur, nodes.If) and child is not cur.test:
            block = cur.body if any(s is child for s in cur.body) else cur.orelse
            if block and _ends_run(block[-1], ev):
                return True
        child, cur = cur, cur.parent
    return False


#: Tests of floating-point values that are true for NaN or infinity, and the one that is
#: true for finite values (``torch.isnan(loss)``, ``math.isinf(v)``, ``x.isfinite()``).
NONFINITE_TESTS = frozenset({"isnan", "isinf", "isneginf", "isposinf"})
FINITE_TESTS = frozenset({"isfinite"})
#: Reductions and conversions a finiteness test is read through without changing its sense.
_TEST_WRAPPERS = frozenset({"any", "all", "item", "bool"})


def _nonfinite_sense(test: nodes.NodeNG) -> bool | None:
    """True when ``test`` holds for NaN or infinite values (``torch.isnan(loss).any()``,
    ``not torch.isfinite(loss)``), False when it holds for finite ones
    (``torch.isfinite(loss).all()``), None when it is no finiteness test."""
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        inner = _nonfinite_sense(test.operand)
        return None if inner is None else not inner
    if isinstance(test, nodes.BoolOp):
        senses = {_nonfinite_sense(v) for v in test.values}
        want = test.op == "or"  # ``isnan(x) or isinf(x)``; ``isfinite(a) and isfinite(b)``
        return want if senses == {want} else None
    if not isinstance(test, nodes.Call):
        return None
    func = test.func
    name = func.attrname if isinstance(func, nodes.Attribute) else \
        func.name if isinstance(func, nodes.Name) else None
    if name in _TEST_WRAPPERS:
        # ``.any()``/``.item()`` of a test, or ``bool(test)``/``any(test)``
        inner = func.expr if isinstance(func, nodes.Attribute) else \
            test.args[0] if len(test.args) == 1 else None
        return _nonfinite_sense(inner) if inner is not None else None
    if name in NONFINITE_TESTS:
        return True
    if name in FINITE_TESTS:
        return False
    return None


def in_nonfinite_branch(node: nodes.NodeNG, holder: nodes.NodeNG) -> bool:
    """``node`` sits in the arm of an ``if`` within ``holder`` that runs only when a value
    is NaN or infinite (``if not torch.isfinite(loss): log(loss.item()); continue``): it
    runs on the steps whose numbers went wrong, not once per step. (The test itself is
    read every step; it stays in the step region.)"""
    child, cur = node, node.parent
    while cur is not None and cur is not holder:
        if isinstance(cur, nodes.If) and child is not cur.test:
            sense = _nonfinite_sense(cur.test)
            if sense is not None and any(s is child for s in (
                    cur.body if sense else cur.orelse)):
                return True
        child, cur = cur, cur.parent
    return False


def _block_exits_loop(block: list[nodes.NodeNG], loop: nodes.NodeNG) -> bool:
    last = block[-1]
    if isinstance(last, nodes.Break):
        return enclosing_loop(last) is loop
    return True


def _blocks_of(node: nodes.NodeNG) -> list[list[nodes.NodeNG]]:
    if isinstance(node, nodes.If):
        return [node.body, node.orelse]
    if isinstance(node, (nodes.With, nodes.ExceptHandler)):
        return [node.body]
    if isinstance(node, nodes.Try):
        return [node.body, node.orelse, node.finalbody]
    return []
