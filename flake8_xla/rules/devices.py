"""XLA5xx: devices."""

from __future__ import annotations

import re
from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import (
    XLA_WORDS,
    Analyzer,
    Kind,
    const_str,
    keyword,
    mentions,
    source_key,
    xla_truth,
)
from flake8_xla.analysis import values as V
from flake8_xla.analysis.flows import enclosing_function
from flake8_xla.analysis.names import callee_name
from flake8_xla.analysis.paths import names_xla
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.context import Finding
from flake8_xla.filefacts import FileFacts
from flake8_xla.rules.base import Rule

#: torch.cuda calls that raise without a CUDA device ("Torch not compiled with CUDA
#: enabled" / "No CUDA GPUs are available"); empty_cache and manual_seed_all are no-ops.
CUDA_ONLY_CALLS = frozenset({
    "torch.cuda.synchronize", "torch.cuda.set_device", "torch.cuda.current_device",
    "torch.cuda.get_device_name", "torch.cuda.get_device_properties",
    "torch.cuda.max_memory_allocated", "torch.cuda.memory_allocated",
    "torch.cuda.max_memory_reserved", "torch.cuda.reset_peak_memory_stats",
    "torch.cuda.Stream", "torch.cuda.Event"})
#: The legacy typed constructors, which allocate on the GPU (``torch.cuda.BoolTensor(n, n)``).
CUDA_CONSTRUCTORS = frozenset(
    f"torch.cuda.{t}Tensor" for t in ("Float", "Double", "Half", "BFloat16", "Long", "Int",
                                      "Short", "Char", "Byte", "Bool"))


def _is_cuda(value: str | None) -> bool:
    return value is not None and (value == "cuda" or value.startswith("cuda:"))


def _selects_xla(func: nodes.NodeNG, param: str) -> bool:
    """``func`` compares its parameter ``param`` with an XLA device name (``if device ==
    "tpu": device = xm.xla_device()``): the parameter selects the mode, its ``'cuda'``
    default picks the GPU one, and XLA callers pass the XLA name."""
    if not isinstance(func, (nodes.FunctionDef, nodes.Lambda)):
        return False
    def is_param(node: nodes.NodeNG) -> bool:
        # ``device``, ``device.lower()``, ``str(device)``, ``device.type``
        while isinstance(node, (nodes.Call, nodes.Attribute)):
            if isinstance(node, nodes.Call):
                if isinstance(node.func, nodes.Name) and node.func.name == "str" and \
                        len(node.args) == 1:
                    node = node.args[0]
                    continue
                node = node.func
            node = node.expr if isinstance(node, nodes.Attribute) else node
        return isinstance(node, nodes.Name) and node.name == param

    def names_xla(node: nodes.NodeNG) -> bool:
        names = [const_str(e) for e in node.elts] if isinstance(
            node, (nodes.Tuple, nodes.List, nodes.Set)) else [const_str(node)]
        return any(n is not None and n.split(":", 1)[0].lower() in XLA_DEVICE_NAMES
                   for n in names)

    for cmp in nodes_of(func, nodes.Compare):
        operands = [cmp.left, *(o for _, o in cmp.ops)]
        if any(is_param(o) for o in operands) and any(names_xla(o) for o in operands):
            return True
    for call in nodes_of(func, nodes.Call):
        # ``device.startswith("xla")``
        if isinstance(call.func, nodes.Attribute) and call.func.attrname in (
                "startswith", "endswith") and is_param(call.func.expr) and call.args and \
                names_xla(call.args[0]):
            return True
    for match in nodes_of(func, nodes.Match):
        if is_param(match.subject) and any(
                isinstance(case.pattern, nodes.MatchValue) and names_xla(case.pattern.value)
                for case in match.cases):
            return True
    return False


#: Device names that select an XLA device in a mode switch.
XLA_DEVICE_NAMES = frozenset({"xla", "tpu", "neuron", "trainium", "inferentia"})


def _names_class(an: Analyzer, expr: nodes.NodeNG, klass: nodes.ClassDef) -> bool:
    """``expr`` is ``klass`` by its name, or a name bound only to ``klass(...)``."""
    if not isinstance(expr, nodes.Name):
        return False
    if expr.name == klass.name:
        return True
    binds = an.ev.bindings(expr)
    return bool(binds) and all(
        isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
        isinstance(b.parent.value, nodes.Call) and isinstance(b.parent.value.func, nodes.Name)
        and b.parent.value.func.name == klass.name for b in binds)


def _assign_targets(node: nodes.Assign | nodes.AnnAssign) -> list[nodes.NodeNG]:
    """The targets of an assignment, annotated (``device: str = "cuda"``) or not."""
    return list(node.targets) if isinstance(node, nodes.Assign) else [node.target]


def _device_name(name: str) -> bool:
    """A variable named for a device: ``device``, ``DEVICE``, ``train_device``, ``dev``;
    not ``device_type``, the kind string that ``torch.autocast(device_type=...)`` and
    ``pin_memory`` tests take (nanoGPT's ``"cuda" if "cuda" in device else "cpu"``), which
    places no tensor."""
    low = name.lower()
    if low.endswith("device_type"):
        return False
    return "device" in low or low == "dev" or low.endswith("_dev")


def _only_shown(name: nodes.NodeNG) -> bool:
    """``name`` is only shown to the user, or compared with a string: an argument of
    ``print``, of a logger's method, of a ``.write()`` or of a function named for showing
    (``print_config(...)``, ``log_settings(...)``), directly or through ``str()``,
    ``+``/``%``, ``.format()`` or an f-string; or ``device == 'cuda'``."""
    node, parent = name, name.parent
    for _ in range(6):
        if isinstance(parent, nodes.Compare) and all(
                isinstance(right, nodes.Const) and isinstance(right.value, str)
                for _, right in parent.ops):
            return True
        if isinstance(parent, nodes.FormattedValue) and isinstance(parent.parent,
                                                                   nodes.JoinedStr):
            node, parent = parent.parent, parent.parent.parent
        elif isinstance(parent, nodes.BinOp) and parent.op in ("+", "%"):
            node, parent = parent, parent.parent
        elif isinstance(parent, (nodes.Tuple, nodes.List)) and \
                isinstance(parent.parent, nodes.BinOp) and parent.parent.op == "%":
            node, parent = parent.parent, parent.parent.parent
        elif isinstance(parent, nodes.Call) and any(a is node for a in parent.args) and (
                (isinstance(parent.func, nodes.Name) and parent.func.name == "str") or
                (isinstance(parent.func, nodes.Attribute) and
                 parent.func.attrname == "format")):
            node, parent = parent, parent.parent
        else:
            break
    if isinstance(parent, nodes.Call) and any(a is node for a in parent.args):
        func = parent.func
        ident = func.name if isinstance(func, nodes.Name) else (
            func.attrname if isinstance(func, nodes.Attribute) else "")
        return ident == "print" or (isinstance(func, nodes.Attribute) and
                                    ident in SHOWN_BY) or \
            ident.split("_", 1)[0].lower() in SHOWING_WORDS and "_" in ident
    return False


#: First words of a project's own function that shows its arguments
#: (``print_current_config(cuda, n_gpu, device)``, ``log_settings(...)``).
SHOWING_WORDS = frozenset({"print", "log", "show", "display"})


#: Methods that log or print their arguments (a logger's, ``xm.master_print``, a stream's
#: or tqdm's ``write``).
SHOWN_BY = frozenset({"debug", "info", "warning", "warn", "error", "master_print",
                      "print", "log", "write"})


def _cuda_choices(value: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The CUDA device strings ``value`` gives: itself, or an arm of ``value`` when it is a
    conditional (``"cuda" if torch.cuda.is_available() else "cpu"``), each a literal or a
    ``cuda:`` string built at run time (``f"cuda:{rank}"``, ``"cuda:%d" % local_rank``;
    see :func:`_cuda_literal`)."""
    arms = [value.body, value.orelse] if isinstance(value, nodes.IfExp) else [value]
    return [a for a in arms if not isinstance(a, nodes.IfExp) and _cuda_literal(a) is not None]


def _project_method(an: Analyzer, call: nodes.Call) -> bool:
    """``call`` runs a method the project defines under the same name (an
    ``EdgeConnect.cuda(self, *args)`` that moves the items to the configured device), not
    torch's ``Tensor.cuda``/``Module.cuda``; a model wrapped by torch
    (``nn.DataParallel(Net()).cuda()``) runs the wrapper's, torch's."""
    try:
        if any(v.has("wrapped") for v in an.ev.value(call.func.expr)):
            return False
        return any(isinstance(f, nodes.FunctionDef) and f.name == call.func.attrname
                   for f, _ in an.ev.functions_called(call, None))
    except Exception:  # noqa: BLE001 - unknown: torch's method, as before
        return False


def _cuda_literal(node: nodes.NodeNG | None) -> nodes.NodeNG | None:
    """The ``'cuda'``/``'cuda:0'``/``f'cuda:{rank}'`` literal in ``node`` (or a ternary of it),
    or a ``cuda:`` string built from one (``'cuda:{}'.format(rank)``, ``'cuda:' + str(i)``,
    ``'cuda:%d' % i``)."""
    if node is None:
        return None
    if _is_cuda(const_str(node)):
        return node
    if isinstance(node, nodes.JoinedStr) and node.values and _is_cuda(
            (const_str(node.values[0]) or "").split("{")[0] or None):
        return node
    if isinstance(node, nodes.IfExp):
        return _cuda_literal(node.body) or _cuda_literal(node.orelse)
    # a device string built at run time: ``"cuda:{}".format(rank)``, ``"cuda:" +
    # str(rank)``, ``"cuda:%d" % rank``
    head: str | None = None
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
            node.func.attrname == "format":
        head = (const_str(node.func.expr) or "").split("{")[0]
    elif isinstance(node, nodes.BinOp) and node.op == "+":
        head = const_str(node.left)
    elif isinstance(node, nodes.BinOp) and node.op == "%":
        head = (const_str(node.left) or "").split("%")[0]
    if head and head.startswith("cuda:"):
        return node
    return None


#: ``PJRT_DEVICE=CUDA`` (or GPU) as a launch command or a store of the setting writes it.
_XLA_GPU = re.compile(r"""PJRT_DEVICE['"]?\]?\s*(?:=|,|:)\s*['"]?(?:CUDA|GPU)\b"""
                      r"""(?!['"]?\s*if\b)""")


class HardcodedCudaDevice(Rule):
    """XLA501: a CUDA device hard-coded in XLA code.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (get the device with
    ``torch_xla.device()``; ``xm.xla_device()`` before 2.7).
    """

    code = "XLA501"
    fix = "safe"
    name = "hardcoded-cuda-device"
    CUDA_CALL = ("CUDA-only call: {what} needs a CUDA device and raises on an XLA host (\"No "
                 "CUDA GPUs are available\"); remove it or guard it with "
                 "torch.cuda.is_available() (on XLA, torch_xla.sync() or xm.wait_device_ops() "
                 "wait for the device)")
    message = ("hard-coded CUDA device: {what} sends tensors to a GPU that an XLA host does not "
               "have (a crash, or silent CPU work); use {device}")
    explanation = """\
A ported script that still says `torch.device('cuda')`, `.cuda()`, `.to('cuda')` or
`device='cuda'` (or sets `torch.set_default_device('cuda')`, a CUDA default tensor type)
fails on a TPU or Trainium host ("Found no NVIDIA driver"), or,
behind a `torch.cuda.is_available()` fallback, runs on the host CPU (also one that a
function named for a device returns: `def get_device(): return "cuda" if
torch.cuda.is_available() else "cpu"`). Default arguments count too: a helper's `device='cuda'` default, even where today's callers
pass a device (a later call that relies on it allocates on CUDA), and a config field's
default (not one that the class's `__post_init__`/`__init__` sets to the XLA device on
the XLA path, nor a notebook's `CFG.device` that a later top-level statement sets to it
before anything reads it). CUDA-only calls (`torch.cuda.synchronize()`, the memory counters) are not
reported in a module that says it runs PyTorch/XLA on GPUs (`PJRT_DEVICE=CUDA`), nor is a
device choice read only as the `map_location=` of a checkpoint load (on an XLA host it
loads onto the CPU, and `load_state_dict` copies the tensors to the model's device).

Measured (checks/XLA501, PJRT_DEVICE=CPU): the flagged script fails with a CUDA
error; the fixed one trains.

**Example**
```python
device = torch.device("cuda")
model = Net().cuda()
```
**Use instead**
```python
device = torch_xla.device()
model = Net().to(device)
```
Not reported: code under an `if` that tests for CUDA, and a guarded choice
(`"cuda" if torch.cuda.is_available() else ...`) whose variable is later set to the
XLA device, or is only printed or logged, or never read (unless another module imports
it, or reads it as a config class's field, `CFG.device`), or is returned by a top-level
helper that no module of the project calls or names, or is written in a method
of a Dataset class (its items are made on the host, in the loader's workers), or is
the fallback of a model's `__init__` read only as an argument of the calls that build its
layers, parameters or buffers (`if device is None: device = "cuda" if ... else "cpu"`,
then `nn.Linear(n, m, device=device)`: built on the CPU of an XLA host, then moved with the
model; kept on the module, as a plain tensor attribute, or read in a lambda it still
counts), and a
`device_type` string (the kind `torch.autocast` and `pin_memory` tests take: nanoGPT's
`"cuda" if "cuda" in str(device) else "cpu"`), which places no tensor, nor a plain
`DEVICE = "cuda"` that is read, but only where torch_xla is missing (`except
ModuleNotFoundError:` around `import torch_xla`) or off the XLA path otherwise, or only
shown or compared (`no_cuda=DEVICE != "cuda"`). A config field's
default (`device: str = "cuda"` in a dataclass) is reported like an assignment. Nor are
the methods of a class written for CUDA (`class CudaBackend(Backend)`) beside a class of
the same base written for the XLA device (`class XlaBackend(Backend)`): the XLA run
builds the XLA one. Nor is a branch that imports a package only NVIDIA GPUs have (`if
trt_file: from torch2trt import TRTModule`; TensorRT, PyCUDA, CuPy, DALI), or a project
module whose own top-level imports need one (and the branch that imports that module): it
cannot run on an XLA host.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)
    versions = "all"

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return "cuda" in facts.call_attrs or "cuda" in facts.idents or any(
            s.startswith("cuda") for s in facts.strings)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for node in an.rule_nodes((nodes.Call, nodes.Arguments, nodes.Assign,
                                   nodes.AnnAssign, nodes.Return)):
            for target, what in self._kinds(node):
                # A ``"cuda" if torch.cuda.is_available() else "cpu"`` choice still counts:
                # on an XLA host it silently trains on the CPU.
                # (a default counts where its function runs: off the path with its body)
                place = node.parent.body[0] if isinstance(node, nodes.Arguments) and \
                    isinstance(node.parent, nodes.FunctionDef) and node.parent.body else target
                if an.off_xla_path(place, kinds=(nodes.If, nodes.While)) or \
                        self._xla_choice(target) or self._overwritten_guard(target) or \
                        self._unread_guard(target) or self._other_arm_on_xla(target) or \
                        self._read_only_off_path(target) or self._field_set_to_xla(target) or \
                        self._only_loads_onto(target) or self._guard_in_dataset(target) or \
                        self._only_builds_module(target) or \
                        self._guard_in_unused_helper(target) or \
                        self._guard_in_cuda_entry(target):
                    continue
                if what.startswith("torch.cuda."):
                    if self._xla_on_gpu():
                        continue  # (PJRT_DEVICE=CUDA: the XLA host has the GPUs)
                    yield Finding(target.lineno, target.col_offset, self.code,
                                  f"{self.code} " + self.CUDA_CALL.format(what=what))
                    continue
                yield self.finding(target, what=what)

    def _xla_on_gpu(self) -> bool:
        """The module says it runs PyTorch/XLA on GPUs (``PJRT_DEVICE=CUDA`` in a launch
        command it documents, ``os.environ["PJRT_DEVICE"] = "CUDA"``): its XLA host has
        the CUDA devices that ``torch.cuda.synchronize()`` and the memory counters ask
        for (torch_xla's GPU runtime, ``PJRT_DEVICE=CUDA``)."""
        return bool(_XLA_GPU.search(self.ctx.source))

    def _kinds(self, node: nodes.NodeNG) -> Iterator[tuple[nodes.NodeNG, str]]:
        an = self.ctx.analyzer
        if isinstance(node, nodes.Call):
            func = node.func
            q = an.qualname(func) or ""
            if q in CUDA_ONLY_CALLS:
                yield node, f"{q}()"
                return
            if q in CUDA_CONSTRUCTORS:
                yield node, f"the legacy constructor {q}()"
                return
            if q == "torch.set_default_device" and node.args and \
                    _cuda_literal(node.args[0]) is not None:
                # every factory call after it places its tensor on the GPU
                yield node, f"torch.set_default_device({node.args[0].as_string()})"
                return
            if q == "torch.set_default_tensor_type" and node.args and (
                    (an.qualname(node.args[0]) or const_str(node.args[0]) or "").startswith(
                        "torch.cuda.")):
                yield node, f"torch.set_default_tensor_type({node.args[0].as_string()})"
                return
            if q == "torch.device" and node.args and _cuda_literal(node.args[0]) is not None:
                yield _cuda_literal(node.args[0]), f"torch.device({node.args[0].as_string()})"
                return
            if isinstance(func, nodes.Attribute) and func.attrname == "cuda" and \
                    not (an.qualname(func.expr) or "").startswith("torch") and \
                    not _project_method(an, node):
                yield node, ".cuda()"
                return
            if isinstance(func, nodes.Attribute) and func.attrname == "to" and node.args and \
                    _cuda_literal(node.args[0]) is not None and not isinstance(
                        node.args[0], nodes.IfExp):
                yield node, f".to({node.args[0].as_string()})"
                return
            for name in ("device", "map_location"):
                dev = keyword(node, name)
                if dev is not None and not isinstance(dev, nodes.IfExp) and \
                        _cuda_literal(dev) is not None:
                    yield dev, f"{name}={dev.as_string()}"
        elif isinstance(node, nodes.Arguments):
            params = node.args + node.kwonlyargs
            defaults = [None] * (len(node.args) - len(node.defaults)) + list(node.defaults) + \
                list(node.kw_defaults)
            for param, default in zip(params, defaults):
                if default is not None and ("device" in param.name or
                                            param.name == "map_location") and \
                        param.name != "device_type" and _is_cuda(const_str(default)) and \
                        not _selects_xla(node.parent, param.name):
                    yield default, f"the default {param.name}={default.as_string()}"
        elif isinstance(node, nodes.Return) and isinstance(node.value, nodes.IfExp):
            # ``def get_device(): return "cuda" if torch.cuda.is_available() else "cpu"``:
            # a device helper's guarded choice, as if bound to a device-named variable
            func = node.frame()
            if isinstance(func, nodes.FunctionDef) and _device_name(func.name):
                for value in _cuda_choices(node.value):
                    yield value, f"return {value.as_string()}"
        elif isinstance(node, (nodes.Assign, nodes.AnnAssign)) and node.value is not None:
            q = an.qualname(node.value) if isinstance(node.value, nodes.Attribute) else None
            if q in CUDA_CONSTRUCTORS:
                # ``Tensor = torch.cuda.FloatTensor``, then ``Tensor(n, 1)`` and
                # ``imgs.type(Tensor)``: every use allocates on the GPU
                yield node.value, f"the legacy type {q}"
                return
            # (``device: str = "cuda"``, a dataclass field's default, too)
            targets = _assign_targets(node)
            if not any((isinstance(t, nodes.AssignName) and _device_name(t.name)) or
                       (isinstance(t, nodes.AssignAttr) and _device_name(t.attrname))
                       for t in targets):
                return
            for value in _cuda_choices(node.value):
                yield value, f"{targets[0].as_string()} = {value.as_string()}"

    def _field_set_to_xla(self, node: nodes.NodeNG) -> bool:
        """A class field's CUDA default (``device: str = "cuda"`` of a dataclass) that the
        class's ``__post_init__`` or ``__init__`` replaces by the XLA device on the XLA path
        (``if _HAS_XLA: self.device = "xla"``): no instance keeps it there."""
        assign = node.parent
        klass = assign.parent if isinstance(assign, (nodes.Assign, nodes.AnnAssign)) else None
        if not isinstance(klass, nodes.ClassDef) or assign.value is not node:
            return False
        target = assign.target if isinstance(assign, nodes.AnnAssign) else (
            assign.targets[0] if len(assign.targets) == 1 else None)
        if not isinstance(target, nodes.AssignName):
            return False
        ev = self.an.ev
        if isinstance(klass.parent, nodes.Module) and self._reset_after(klass, target.name):
            return True
        for method in klass.body:
            if not (isinstance(method, nodes.FunctionDef) and
                    method.name in ("__post_init__", "__init__")):
                continue
            for stmt in nodes_of(method, nodes.Assign):
                if not any(isinstance(t, nodes.AssignAttr) and t.attrname == target.name and
                           isinstance(t.expr, nodes.Name) and t.expr.name == "self"
                           for t in stmt.targets):
                    continue
                if not self._names_xla(stmt.value):
                    continue
                child, cur = stmt, stmt.parent
                taken = True
                while cur is not None and cur is not method:
                    if isinstance(cur, nodes.If) and child is not cur.test:
                        truth = xla_truth(cur.test, ev)
                        taken = taken and truth is (child in cur.body)
                    child, cur = cur, cur.parent
                if taken:
                    return True
        return False

    def _names_xla(self, value: nodes.NodeNG) -> bool:
        """``value`` is the XLA device: a string starting ``xla``, or a device the analysis
        knows to be the XLA device (``torch_xla.device()``)."""
        text = const_str(value)
        return text is not None and text.startswith("xla") or self._xla_device(value)

    def _reset_after(self, klass: nodes.ClassDef, field: str) -> bool:
        """A statement of the module after ``klass`` (at its top level) sets
        ``<klass>.<field>`` to the XLA device (a Kaggle notebook's ``CFG.device =
        torch_xla.device()`` in its TPU cells), no top-level statement between them uses
        the class, and the class is no dataclass (whose instances keep the default)."""
        module = klass.parent
        if klass.decorators is not None and any(
                "dataclass" in d.as_string() for d in klass.decorators.nodes):
            return False  # (a dataclass's __init__ keeps the field's default per instance)
        started = False
        for stmt in module.body:
            if stmt is klass:
                started = True
                continue
            if not started:
                continue
            if isinstance(stmt, nodes.Assign) and any(
                    isinstance(t, nodes.AssignAttr) and t.attrname == field and
                    isinstance(t.expr, nodes.Name) and t.expr.name == klass.name
                    for t in stmt.targets):
                return self._names_xla(stmt.value)
            if any(n.name == klass.name for n in nodes_of(stmt, nodes.Name)):
                return False  # (used before: ``model = get_model(CFG)``)
        return False

    def _other_arm_on_xla(self, node: nodes.NodeNG) -> bool:
        """``"xla" if CFG.device == "TPU" else "cuda"``: an arm of a conditional whose test
        the XLA path decides the other way (a switch between the TPU and GPU runs, not a
        CUDA availability probe, which on an XLA host silently picks the CPU and is still
        reported)."""
        choice = node.parent
        if not isinstance(choice, nodes.IfExp) or node is choice.test or \
                mentions(choice.test, "cuda"):
            return False
        truth = xla_truth(choice.test, self.ctx.analyzer.ev)
        return truth is (node is choice.orelse)

    def _unread_guard(self, node: nodes.NodeNG) -> bool:
        """A ``'cuda' if torch.cuda.is_available() else 'cpu'`` (or ``torch.device()`` of
        one) stored in a name that its module never reads, or only shows (``print('using
        device:', device)``, a log line, a ``device == 'cuda'`` test): on an XLA host it is
        ``'cpu'`` and places nothing, and where it is used (another module, a
        ``map_location``) is not known here. A read of a name that another binding holds
        (a function's own ``device = xm.xla_device()``) is not a read of this one. A shown
        choice at module level that another module of the project may import is still
        reported, as is an unread one at module level or in a module-level class (a
        ``CFG.device`` field) that another module of the project reads by that name."""
        cur = _cuda_probe_arm(node)
        if cur is None:
            return False
        assign = cur.parent
        if isinstance(assign, nodes.Call) and \
                self.ctx.analyzer.qualname(assign.func) == "torch.device":
            assign = assign.parent
        if not isinstance(assign, (nodes.Assign, nodes.AnnAssign)):
            return False
        return self._placed_by_no_read(assign, off_path=False) is not None

    def _guard_in_dataset(self, node: nodes.NodeNG) -> bool:
        """A guarded choice (``'cuda' if torch.cuda.is_available() else 'cpu'``, or
        ``torch.device()`` of one) written in a method of a Dataset class: the dataset
        makes its items on the host, in the loader's workers, so on an XLA host its
        transforms run on the CPU as they should, and the batches reach the device
        through the loader (``ProcessedDataset.__init__``'s ``self.device`` for its
        audio transforms)."""
        cur = _cuda_probe_arm(node)
        if cur is None:
            return False
        func = enclosing_function(cur)
        klass = func.parent if func is not None else None
        return isinstance(klass, nodes.ClassDef) and \
            self.ctx.analyzer.ev.class_kind(klass) is Kind.DATASET

    def _guard_in_unused_helper(self, node: nodes.NodeNG) -> bool:
        """A guarded choice (``'cuda' if torch.cuda.is_available() else 'cpu'``) in a
        top-level function of a helper module (one that shows no XLA use of its own) that
        nothing in the project calls or names: neither its own module nor, by the project
        index, any other module (``def get_device(device='auto')`` left over from a GPU
        script). It places nothing on any run of the project; with no project
        (``--xla-target=file``), where other modules cannot be seen, it is still
        reported."""
        cur = _cuda_probe_arm(node)
        if cur is None:
            return False
        an = self.ctx.analyzer
        func = enclosing_function(cur)
        link = an.link
        if link is None or not isinstance(func, nodes.FunctionDef) or \
                not isinstance(func.parent, nodes.Module) or an.ev.name_uses(func.name):
            return False
        rel = link.module_rel(an.module)
        summary = link.index.summary(rel) if rel is not None else None
        if summary is None or summary.xla:
            return False  # (a module that shows XLA use is a script: its helpers may run)
        return link.calls_elsewhere(an.ev, func) == []

    def _guard_in_cuda_entry(self, node: nodes.NodeNG) -> bool:
        """A guarded choice (``'cuda' if torch.cuda.is_available() else 'cpu'``) in a
        top-level function that names nothing of torch_xla, in a module that picks the XLA
        device in another function, where only the module's top level or functions that
        name nothing of torch_xla call it (no other module does), handing it host values
        only (the parsed options, paths; not a model, which may be the one trained on the
        XLA device), that returns nothing and calls no function naming torch_xla: an entry
        point the script keeps off the XLA device on purpose (``--mode demo``: one image
        through the models on the host), as its XLA run's own device choice shows. A
        helper that an XLA function calls is still reported, as is any choice in a script
        that never picks the XLA device itself."""
        cur = _cuda_probe_arm(node)
        if cur is None:
            return False
        an = self.an
        func = enclosing_function(cur)
        if not isinstance(func, nodes.FunctionDef) or not isinstance(func.parent, nodes.Module) \
                or names_xla(func, an.ev) or any(
                    r.value is not None and not (isinstance(r.value, nodes.Const) and
                                                 r.value.value is None)
                    for r in an.ev.own_nodes(func, nodes.Return)):
            return False  # (a function that returns a value may hand the device out)
        uses = an.ev.name_uses(func.name)
        if not uses:
            return False  # (never called here: see _guard_in_unused_helper)
        for use in uses:
            if not (isinstance(use.parent, nodes.Call) and use.parent.func is use):
                return False  # handed over as a value (a launcher may run it anywhere)
            call = use.parent
            if not all(not isinstance(a, nodes.Starred) and V.on_host(an.value(a))
                       for a in (*call.args, *(k.value for k in call.keywords or ()))):
                return False  # (``demo(model)``: the trained model, on the XLA device)
            caller = enclosing_function(use)
            while caller is not None and not isinstance(caller.parent, nodes.Module):
                caller = enclosing_function(caller)
            if caller is not None and (caller is func or names_xla(caller, an.ev)):
                return False
        if an.link is not None and an.link.calls_elsewhere(an.ev, func) != []:
            return False
        if any(isinstance(callee, nodes.FunctionDef) and names_xla(callee, an.ev)
               for call in an.ev.own_nodes(func, nodes.Call)
               for callee, _ in an.ev.functions_called(call, None)):
            return False  # (``train_on(args, device)``, a loop with XLA barriers: the CPU)
        return any(enclosing_function(call) is not None and not func.parent_of(call) and
                   callee_name(call.func) in ("device", "xla_device") and
                   self._xla_device(call) for call in an.module_nodes(nodes.Call))

    def _only_loads_onto(self, node: nodes.NodeNG) -> bool:
        """``node`` chooses a device (``torch.device('cpu') if not torch.cuda.is_available()
        else torch.device('cuda')``) bound to a local name whose every read is the
        ``map_location=`` of a load: a checkpoint read onto the CPU on an XLA host, whose
        tensors the model copies to wherever it lives (``load_state_dict``)."""
        cur = node
        while isinstance(cur.parent, (nodes.IfExp, nodes.Call)):
            cur = cur.parent
        assign = cur.parent
        if not isinstance(assign, nodes.Assign) or assign.value is not cur or \
                len(assign.targets) != 1 or not isinstance(assign.targets[0], nodes.AssignName):
            return False
        target = assign.targets[0]
        scope = assign.scope()
        if not isinstance(scope, nodes.FunctionDef):
            return False
        reads = [n for n in nodes_of(scope, nodes.Name) if n.name == target.name]
        return bool(reads) and all(
            isinstance(n.parent, nodes.Keyword) and n.parent.arg == "map_location" and
            callee_name(n.parent.parent.func) == "load" for n in reads)

    def _only_builds_module(self, node: nodes.NodeNG) -> bool:
        """``node`` is one arm of a guarded choice (``"cuda" if torch.cuda.is_available()
        else "cpu"``) bound to a local name in the ``__init__`` of an ``nn.Module`` class,
        whose every read there is an argument of a call (``KAT_Group(mode, device=device)``,
        ``nn.Linear(n, m, device=device)``): where the module's layers are first built,
        on the CPU of an XLA host, and then moved with the model (``model.to(device)``).
        (``if device is None:`` tests of the parameter it replaces count as no read.)
        Kept on the module (``self.device = device``) or read in any other way, it may
        place the tensors of its forward pass, and is reported."""
        if not isinstance(node.parent, nodes.IfExp):
            return False
        assign = node.parent.parent
        if not isinstance(assign, nodes.Assign) or assign.value is not node.parent or \
                len(assign.targets) != 1 or not isinstance(assign.targets[0], nodes.AssignName):
            return False
        func = assign.scope()
        klass = func.parent if isinstance(func, nodes.FunctionDef) else None
        if func.name != "__init__" or not isinstance(klass, nodes.ClassDef) or \
                self.an.ev.class_kind(klass) is not Kind.MODULE:
            return False
        name = assign.targets[0].name
        reads = [n for n in nodes_of(func, nodes.Name) if n.name == name]
        return bool(reads) and all(_is_none_test(n) or self._builds_layer(n, func)
                                   for n in reads)

    def _builds_layer(self, read: nodes.Name, func: nodes.FunctionDef) -> bool:
        """``read`` (a device name in a module's ``__init__``) is an argument of a call run
        there (not in a nested function or lambda, which may run at forward time; not a
        method of the module itself or of its base class, which may keep it) that
        builds a layer: not a tensor, device or host value (``torch.ones(d,
        device=device)`` kept as a plain attribute is not moved by ``model.to()``;
        ``torch.device(device)`` and ``str(device)`` pass the device on), except a tensor
        made into a parameter or a buffer (``nn.Parameter(...)``, ``register_buffer``)."""
        if read.scope() is not func:
            return False
        call = read.parent.parent if isinstance(read.parent, nodes.Keyword) else read.parent
        if not isinstance(call, nodes.Call) or read is call.func:
            return False
        f = call.func
        if isinstance(f, nodes.Attribute) and (
                isinstance(f.expr, nodes.Name) and f.expr.name == "self" or
                isinstance(f.expr, nodes.Call) and isinstance(f.expr.func, nodes.Name) and
                f.expr.func.name == "super"):
            return False  # (``super().__init__(device)``, ``self.setup(device)``: may keep it)
        holder = call.parent.parent if isinstance(call.parent, nodes.Keyword) else call.parent
        if isinstance(holder, nodes.Call) and (
                callee_name(holder.func) in ("Parameter", "register_buffer")):
            return True
        return not any(v.kind in (Kind.TENSOR, Kind.DEVICE, Kind.HOST, Kind.DICT, Kind.LIST,
                                  Kind.TUPLE) for v in self.an.value(call))

    def _read_only_off_path(self, node: nodes.NodeNG) -> bool:
        """A plain ``DEVICE = 'cuda'`` whose every read is off the XLA path (``except
        ModuleNotFoundError: model.to(DEVICE)`` after ``import torch_xla``) or only shown
        or compared (``no_cuda=DEVICE != 'cuda'``), and that is read at least once: on the
        XLA path it places nothing. An unread one is still reported (see
        :meth:`_placed_by_no_read` for the names other modules import)."""
        assign = node.parent
        if not isinstance(assign, (nodes.Assign, nodes.AnnAssign)) or assign.value is not node:
            return False
        return bool(self._placed_by_no_read(assign, off_path=True))

    def _placed_by_no_read(self, assign: nodes.Assign | nodes.AnnAssign, off_path: bool
                           ) -> bool | None:
        """Every read of the names ``assign`` binds (plain names only) is only shown, or
        with ``off_path`` also off the XLA path: True when one is read so, False when none
        is read; None when one read may place a tensor, when a target is no plain name,
        or when another module of the project may import the name (a module-level
        assignment that is read at all, or a module-level class's field read by name
        elsewhere)."""
        every = _assign_targets(assign)
        targets = [t for t in every if isinstance(t, nodes.AssignName)]
        if not targets or len(targets) != len(every):
            return None
        names = {t.name for t in targets}
        an = self.ctx.analyzer
        shown = False
        for name in an.module_nodes(nodes.Name):
            if name.name not in names:
                continue
            binds = an.ev.bindings(name)
            if binds and not any(b is t for b in binds for t in targets):
                continue  # another binding's value
            if not (_only_shown(name) or off_path and an.off_xla_path(name)):
                return None
            shown = True
        if isinstance(assign.scope(), nodes.ClassDef):
            # ``class Config: device = ...`` read as ``Config.device``/``cfg.device``
            klass = assign.scope()
            for attr in an.module_nodes(nodes.Attribute):
                if attr.attrname in names and _names_class(an, attr.expr, klass) and \
                        not isinstance(attr.parent, nodes.Assign):
                    if not (_only_shown(attr) or off_path and an.off_xla_path(attr)):
                        return None
                    shown = True
        scope = assign.scope()
        if an.link is not None and (isinstance(scope, nodes.Module) and shown or
                                    isinstance(scope, nodes.ClassDef) and
                                    isinstance(scope.parent, nodes.Module)):
            rel = an.link.rel_of(an)
            if rel is None or (an.link.index.callers(rel, names, every_module=True)
                               if isinstance(scope, nodes.Module) else
                               any(an.link.index.reads_attribute(rel, scope.name, name)
                                   for name in names)):
                # (``from config import device``, ``CFG.device`` elsewhere: used there)
                return None
        return shown

    def _overwritten_guard(self, node: nodes.NodeNG) -> bool:
        """A ``'cuda' if torch.cuda.is_available() else ...`` whose variable gets the XLA device."""
        an = self.ctx.analyzer
        cur = node.parent
        while cur is not None and not isinstance(cur, nodes.IfExp):
            if isinstance(cur, (nodes.Assign, nodes.FunctionDef, nodes.Module)):
                return False
            cur = cur.parent
        if cur is None or not mentions(cur.test, "cuda"):
            return False
        stmt = cur.parent
        while stmt is not None and not isinstance(stmt, nodes.Assign):
            stmt = stmt.parent
        if stmt is None:
            return False
        names = {t.name for t in stmt.targets if isinstance(t, nodes.AssignName)}
        keys = {k for k in (source_key(t) for t in stmt.targets) if k}
        # ``args.device = device``: the choice is stored in an attribute too.
        for other in nodes_of(stmt.scope(), nodes.Assign):
            if isinstance(other.value, nodes.Name) and other.value.name in names:
                keys.update(k for k in (source_key(t) for t in other.targets) if k)
        for other in an.module_nodes(nodes.Assign):
            if other is stmt:
                continue
            targets = {k for k in (source_key(t) for t in other.targets) if k}
            local = other.scope() is stmt.scope() and bool(targets & names)
            if (local or bool(targets & (keys - names))) and any(
                    v.kind is Kind.DEVICE and v.device == "xla" for v in an.value(other.value)):
                return True
        return False

    def _xla_device(self, expr: nodes.NodeNG) -> bool:
        """``expr`` is the XLA device (``torch_xla.device()``, ``xm.xla_device()``)."""
        vs = self.an.value(expr)
        return bool(vs) and all(v.kind is Kind.DEVICE and v.device == "xla" for v in vs)

    def _xla_choice(self, node: nodes.NodeNG) -> bool:
        """``'xla' if use_xla else 'cuda'``: a conditional that picks XLA on the XLA path."""
        child, cur = node, node.parent
        while isinstance(cur, (nodes.IfExp, nodes.JoinedStr, nodes.FormattedValue, nodes.Call)):
            if isinstance(cur, nodes.IfExp) and child is not cur.test:
                truth = xla_truth(cur.test, self.an.ev)
                if truth is not None and (child is cur.orelse) == truth and (
                        mentions(cur.test, *XLA_WORDS) or
                        self._xla_device(cur.body if truth else cur.orelse)):
                    # (``torch.device("cuda") if on_gpu else torch_xla.device()``: the arm
                    # taken is the XLA device; ``"cuda" if torch.cuda.is_available() else
                    # "cpu"`` still counts, the XLA host trains on the CPU)
                    return True
            child, cur = cur, cur.parent
        return False


def _cuda_probe_arm(node: nodes.NodeNG) -> nodes.IfExp | None:
    """The conditional whose arm ``node`` is, when its test asks about CUDA (``'cuda' if
    torch.cuda.is_available() else 'cpu'``): a guarded choice, which an XLA host answers
    with its other arm."""
    cur = node.parent
    return cur if isinstance(cur, nodes.IfExp) and mentions(cur.test, "cuda") else None


def _is_none_test(name: nodes.Name) -> bool:
    """``name is None`` / ``name is not None``."""
    test = name.parent
    return isinstance(test, nodes.Compare) and test.left is name and len(test.ops) == 1 and \
        test.ops[0][0] in ("is", "is not") and isinstance(test.ops[0][1], nodes.Const) and \
        test.ops[0][1].value is None
