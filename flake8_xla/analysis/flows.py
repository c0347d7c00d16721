"""Value flow: the abstract value of every expression the rules ask about.

:class:`Evaluator` answers ``value(node, ctx)`` on demand, memoised, for an astroid
module. Values flow through assignments and unpacking (tuple positions, constant dict
keys), ``+=``, ``self.attr`` across a class's methods, attributes set on an object,
container mutations (``.append``, ``d[k] = v``), returns (a summary per function and per
abstract argument values), default and keyword arguments, closures, lambdas,
comprehensions, ``iter()``/``next()``, ``with`` targets and every branch. Library calls
take their values from the API model (:mod:`flake8_xla.analysis.apimodel`).

A :class:`Ctx` is one followed call: the function and the abstract values bound to its
parameters (the caller's context chain is its ``parent``). With no context, a
parameter's value is the join of what its call sites in the module pass, its default
and its annotation; with none of those it is unknown, refined by how the function uses
it (``p.parameters()`` makes it a module, ``p.backward()`` a tensor).

Unknown stays unknown: a name that cannot be resolved, a recursion cycle, a depth
limit or a spent per-file budget gives :data:`~flake8_xla.analysis.values.UNKNOWN_SET`,
never a guess.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any, NamedTuple

from astroid import nodes

from flake8_xla.analysis import values as V
from flake8_xla.analysis.apimodel import ApiModel, Entry
from flake8_xla.analysis.names import (
    JUMPS,
    QualNames,
    callee_name,
    chain_root,
    const_str,
    is_none,
    keyword,
    lookup,
    runs_before,
    source_key,
)
from flake8_xla.analysis.treewalk import nodes_of, syntax_cache
from flake8_xla.analysis.values import EMPTY, UNKNOWN_SET, Kind, Value, join, one
from flake8_xla.imports import canonical

#: Classes whose constructor's keywords become the new object's attributes.
NAMESPACE_TYPES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})
MAX_DEPTH = 40          # nesting of value resolution before giving up ("unknown")
_NO_CYCLE = 1 << 30
MAX_CALL_DEPTH = 4      # function contexts followed through calls
#: Builtins that turn an object into text, and the methods of its class they run, in
#: the order Python looks for them (``str`` falls back to ``__repr__``).
_TEXT_METHODS = {"str": ("__str__", "__repr__"), "repr": ("__repr__",),
                 "print": ("__str__", "__repr__"),
                 "format": ("__format__", "__str__", "__repr__")}
MAX_SITES = 8           # call sites joined for a parameter with no context
#: Evaluation steps per file (memo misses of :meth:`Evaluator.value`): a base plus an
#: allowance per line of the module; past it every answer is "unknown". The largest need
#: among 90 real corpus files is about 1,250 steps, and the 50,000-line generated script
#: of the robustness tests fits its allowance; one 5,000-line class hierarchy
#: (transformers' Trainer) spent 600,000 steps at some 70 microseconds each.
WORK_BUDGET = 20_000
WORK_PER_LINE = 8

SCOPES = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)
#: Bindings that a branch off the XLA path makes (an assignment, or a ``def``/``class``
#: such as a stand-in ``class xm:`` under ``else:`` of ``if cfg.xla:``): they never reach
#: a use on the XLA path.
OFF_PATH_BINDINGS = (nodes.AssignName, nodes.FunctionDef, nodes.ClassDef)
COMPREHENSIONS = (nodes.ListComp, nodes.SetComp, nodes.DictComp, nodes.GeneratorExp)
HOST_TENSOR_ATTRS = frozenset({
    "shape", "dtype", "ndim", "requires_grad", "is_leaf", "names", "layout", "is_cuda",
    "is_xla", "is_sparse", "is_quantized", "is_meta", "grad_fn", "itemsize", "nbytes",
    "__class__", "__name__", "__len__"})
SAME_TENSOR_ATTRS = frozenset({"data", "grad", "T", "mT", "H", "mH", "real", "imag"})
#: tokenizer methods that read token ids to the host (``[methods.tokenizer]``)
TOKENIZER_READS = frozenset({"decode", "batch_decode", "convert_ids_to_tokens"})


def _named_tokenizer(expr: nodes.NodeNG) -> bool:
    """``tokenizer``, ``self.tokenizer``, ``src_tokenizer``, ``self.tok``: a receiver named as
    a tokenizer (its kind is known only where it was built)."""
    ident = expr.name if isinstance(expr, nodes.Name) else (
        expr.attrname if isinstance(expr, nodes.Attribute) else "")
    ident = ident.lower()
    return ident in ("tokenizer", "tok", "processor") or ident.endswith(
        ("_tokenizer", "tokenizer_")) or ident.startswith("tokenizer_")


#: torch functions that join tensors along a dimension: the result has their dtype
JOINING_FUNCTIONS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack",
                               "dstack"})
#: tensor methods whose result has the dtype of their receiver: a boolean mask stays one
#: through them (``mask.clone()``, ``mask.view(-1)``, ``mask.unsqueeze(0)``)
DTYPE_KEEPING_METHODS = frozenset({
    "clone", "detach", "contiguous", "view", "view_as", "reshape", "reshape_as", "squeeze",
    "unsqueeze", "flatten", "expand", "expand_as", "repeat", "t", "permute", "transpose",
    "flip", "roll", "narrow", "select", "index_select", "gather", "repeat_interleave",
    "detach_", "squeeze_", "unsqueeze_", "logical_not_"})
#: Methods that only a torch tensor has (not a numpy array, a pandas object, a list, a
#: string, an nn.Module), and that a step applies to what a model computed rather than to
#: the batch it prepares on the host: their receiver is a tensor, and so is what they
#: return. (Dtype casts such as ``.float()``/``.long()`` and reshapes such as
#: ``.unsqueeze()`` are left out: an nn.Module has the casts too, and a CPU batch gets
#: both before it is moved, as in ``mask.long().sum()``.)
TENSOR_ONLY_METHODS = frozenset({
    "topk", "detach", "expand_as", "view_as", "type_as", "masked_fill", "softmax",
    "log_softmax", "sigmoid", "new_zeros", "new_ones", "new_full", "index_select",
    "logsumexp", "norm", "isnan", "isinf", "mul_", "add_", "sub_", "div_"})
HOST_MODULE_ATTRS = frozenset({"config", "training", "name_or_path", "num_labels", "dtype",
                               "__class__", "__name__", "generation_config",
                               "main_input_name"})
TENSOR_MODULE_ATTRS = frozenset({"weight", "bias"})
#: The host attributes of a transformers model that no tensor (nor model output) has.
MODEL_ONLY_ATTRS = HOST_MODULE_ATTRS - {"training", "dtype", "__class__", "__name__"}
OPTIMIZER_USES = frozenset({"param_groups", "add_param_group"})
#: Attributes that only a tensor has among the values the analysis tracks.
TENSOR_ONLY_ATTRS = frozenset({"item", "detach", "cpu", "numpy", "tolist"})
#: Attributes only a torch module has: a value they are used on is a module.
MODULE_USES = frozenset({"parameters", "named_parameters", "train", "eval", "modules",
                         "named_modules", "children", "requires_grad_", "buffers"})
#: Methods of accelerate's ``Accelerator`` that, beside ``prepare`` and ``backward``, tell
#: an object of unknown origin to be one (accelerate/accelerator.py).
ACCELERATOR_USES = frozenset({"unwrap_model", "gather_for_metrics", "wait_for_everyone",
                              "is_main_process", "is_local_main_process", "sync_gradients",
                              "accumulate", "save_state", "gather"})
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault",
                      "appendleft", "extendleft"})
MODULE_BASES = ("torch.nn.", "transformers.", "lightning.", "pytorch_lightning.",
                "torchvision.models.", "timm.")
TERMINATORS = ("exit",)


def wrapper_inside(deco: nodes.FunctionDef) -> nodes.FunctionDef | None:
    """The wrapper a wrapping decorator returns: ``deco`` (a top-level function with a
    first parameter) returns, at every return, a function defined in its own body that
    reads that parameter (``def timed(fn): @wraps(fn) def wrapper(*a, **k): ... fn(*a,
    **k) ... return wrapper``); None for any other function."""
    if not isinstance(deco.parent, nodes.Module) or not deco.args.args or not any(
            isinstance(s, nodes.FunctionDef) for s in deco.body):
        return None  # (syntax first: most functions define no function in their body)
    param = deco.args.args[0].name
    inner = None
    for ret in nodes_of(deco, nodes.Return):
        if ret.scope() is not deco:
            continue
        if not isinstance(ret.value, nodes.Name):
            return None
        defs = [b for b in deco.locals.get(ret.value.name, ())
                if isinstance(b, nodes.FunctionDef) and b.parent is deco]
        if len(defs) != 1 or (inner is not None and defs[0] is not inner):
            return None
        inner = defs[0]
    if inner is None or not any(n.name == param for n in nodes_of(inner, nodes.Name)):
        return None
    return inner


def _decorated_with(ev: Evaluator, deco: nodes.FunctionDef) -> list[nodes.FunctionDef]:
    """The functions of ``ev``'s module that ``@deco`` decorates (by its name, or an
    attribute of that name resolving to it)."""
    out = []
    for f in ev.module_nodes(nodes.FunctionDef):
        for dec in f.decorators.nodes if f.decorators is not None else ():
            spelled = dec.name if isinstance(dec, nodes.Name) else (
                dec.attrname if isinstance(dec, nodes.Attribute) else None)
            if spelled == deco.name and any(
                    v.kind is Kind.FUNCTION and v.node is deco for v in ev.value(dec)):
                out.append(f)
    return out


def _decorated(func: nodes.NodeNG, name: str) -> bool:
    return isinstance(func, nodes.FunctionDef) and func.decorators is not None and any(
        isinstance(dd, nodes.Name) and dd.name == name for dd in func.decorators.nodes)


def is_staticmethod(func: nodes.NodeNG) -> bool:
    """A method decorated with ``@staticmethod``: a call through an instance or ``self``
    binds no receiver to its first parameter."""
    return _decorated(func, "staticmethod")


def is_stub(func: nodes.NodeNG) -> bool:
    """A method with no body of its own: decorated ``@abstractmethod``, or only a
    docstring, ``pass``, ``...`` or ``raise NotImplementedError``. A call of it through
    ``self`` runs what a subclass defines instead (a template method's hook)."""
    if not isinstance(func, nodes.FunctionDef):
        return False
    if func.decorators is not None and any(
            (isinstance(dd, nodes.Name) and dd.name == "abstractmethod") or
            (isinstance(dd, nodes.Attribute) and dd.attrname == "abstractmethod")
            for dd in func.decorators.nodes):
        return True
    for stmt in func.body:
        if isinstance(stmt, nodes.Pass) or (isinstance(stmt, nodes.Expr) and isinstance(
                stmt.value, nodes.Const) and (isinstance(stmt.value.value, str) or
                                              stmt.value.value is Ellipsis)):
            continue
        if isinstance(stmt, nodes.Raise) and stmt.exc is not None and (
                stmt.exc.as_string().partition("(")[0] == "NotImplementedError"):
            continue
        return False
    return True


def is_param_of(binding: nodes.NodeNG, func: nodes.NodeNG) -> bool:
    """``binding`` (a name's binding) is a parameter of ``func``."""
    return isinstance(binding, nodes.AssignName) and \
        isinstance(binding.parent, nodes.Arguments) and binding.parent.parent is func


def own_hook(klass: nodes.ClassDef, name: str) -> nodes.FunctionDef | None:
    """Method ``name`` that ``klass`` defines itself with a body (not :func:`is_stub`)."""
    method = next((item for item in klass.body if isinstance(item, nodes.FunctionDef)
                   and item.name == name), None)
    return method if method is not None and not is_stub(method) else None


def is_classmethod(func: nodes.NodeNG) -> bool:
    """A method decorated with ``@classmethod``: its first parameter is the class."""
    return _decorated(func, "classmethod")


#: Types an ``isinstance`` test may name that no tensor is.
HOST_TYPES = frozenset({"str", "bytes", "int", "float", "bool", "list", "tuple", "dict", "set",
                        "np.ndarray", "numpy.ndarray", "np.generic", "numbers.Number",
                        "Number"})


def _isinstance_types(test: nodes.NodeNG) -> tuple[str, list[nodes.NodeNG]] | None:
    """``(name, [T1, T2])`` when ``test`` is ``isinstance(name, T1)`` or
    ``isinstance(name, (T1, T2))`` of a plain name; else None."""
    if not (isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and
            test.func.name == "isinstance" and len(test.args) == 2 and not test.keywords and
            isinstance(test.args[0], nodes.Name)):
        return None
    kinds = test.args[1].elts if isinstance(test.args[1], nodes.Tuple) else [test.args[1]]
    return test.args[0].name, kinds


def _branch_before(b: nodes.NodeNG, use: nodes.Name) -> nodes.If | None:
    """The ``if`` (without ``else``) whose body holds ``b``, a plain assignment of a name,
    as one of its statements, when that ``if`` comes before ``use`` in the same block of
    the same function and does not hold it; else None."""
    if not isinstance(b, nodes.AssignName) or not isinstance(b.parent, nodes.Assign):
        return None
    branch = b.parent.parent
    if not isinstance(branch, nodes.If) or b.parent not in branch.body or \
            branch.orelse or branch.parent_of(use) or branch.frame() is not use.frame() \
            or (branch.lineno or 0) >= (use.lineno or 0) or \
            branch.parent is not use.statement().parent:
        return None
    return branch


def _host_type_test(test: nodes.NodeNG, name: str) -> bool:
    """``test`` is ``isinstance(name, T)`` (or ``(T1, T2)``) whose every type is a host
    type (:data:`HOST_TYPES`)."""
    found = _isinstance_types(test)
    return found is not None and found[0] == name and \
        {k.as_string() for k in found[1]} <= HOST_TYPES


#: The builtin container types ``isinstance`` tests, with the kind of value each is.
CONTAINER_TYPES = {"dict": Kind.DICT, "list": Kind.LIST, "tuple": Kind.TUPLE}
#: transformers' class methods that build an instance of the class they are called on.
CLASS_CONSTRUCTORS = frozenset({"from_pretrained", "from_config", "_from_config"})
#: ``collections.abc`` (or ``typing``) container types, with the kinds of value each covers.
ABSTRACT_CONTAINERS = {"Mapping": {Kind.DICT}, "MutableMapping": {Kind.DICT},
                       "Sequence": {Kind.LIST, Kind.TUPLE},
                       "MutableSequence": {Kind.LIST}}


#: How the splits of a ``datasets.DatasetDict`` are named (``dd["train"]``,
#: ``dd["validation_matched"]``).
SPLIT_NAMES = frozenset({"train", "training", "test", "testing", "validation", "valid", "val",
                         "dev", "eval", "evaluation"})


def iterates_keys_of(it: nodes.NodeNG, name: str, *, dict_only: bool = False) -> bool:
    """``it`` walks the keys or indices of the container ``name``: ``name``,
    ``name.items()``, ``name.keys()``, ``list(name.keys())``, ``range(len(name))``
    (with ``dict_only``, only through ``items()``/``keys()``)."""
    if isinstance(it, nodes.Call) and isinstance(it.func, nodes.Name) and \
            it.func.name in ("list", "tuple", "range", "len", "enumerate") and \
            len(it.args) == 1 and not it.keywords:
        return iterates_keys_of(it.args[0], name, dict_only=dict_only)
    if isinstance(it, nodes.Call) and isinstance(it.func, nodes.Attribute) and \
            it.func.attrname in ("items", "keys") and not it.args:
        return isinstance(it.func.expr, nodes.Name) and it.func.expr.name == name
    return not dict_only and isinstance(it, nodes.Name) and it.name == name


class Ctx:
    """One followed call: ``func`` with the abstract values of its parameters.

    ``args`` maps parameter names to VSets; ``parent`` is the context of the function
    that lexically encloses ``func`` when it was being followed (closures), else None.
    Hashable and compared by function identity and argument values.
    """

    __slots__ = ("_hash", "args", "depth", "func", "parent")

    def __init__(self, func: nodes.NodeNG, args: dict[str, frozenset[Value]],
                 parent: Ctx | None, depth: int) -> None:
        self.func = func
        self.args = tuple(sorted(args.items()))
        self.parent = parent
        self.depth = depth
        self._hash = hash((id(func), self.args, parent))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ctx) and self.func is other.func and \
            self.args == other.args and self.parent == other.parent

    def lookup(self, func: nodes.NodeNG) -> Ctx | None:
        """The context of ``func`` in this chain, else None."""
        cur: Ctx | None = self
        while cur is not None:
            if cur.func is func:
                return cur
            cur = cur.parent
        return None

    def arg(self, name: str) -> frozenset[Value] | None:
        """The value bound to parameter ``name``, else None."""
        for key, value in self.args:
            if key == name:
                return value
        return None


def _is_dataclass(klass: nodes.ClassDef, ev: Evaluator) -> bool:
    """``@dataclass`` / ``@dataclasses.dataclass(...)`` decorates the class."""
    for dec in klass.decorators.nodes if klass.decorators is not None else ():
        target = dec.func if isinstance(dec, nodes.Call) else dec
        if ev.qualname(target) == "dataclasses.dataclass":
            return True
    return False


def _method_class(node: nodes.NodeNG) -> nodes.ClassDef | None:
    """The class whose method (not a nested function of one) holds ``node``, else None."""
    frame = node.frame()
    parent = frame.parent if isinstance(frame, nodes.FunctionDef) else None
    return parent if isinstance(parent, nodes.ClassDef) else None


def _list_entry_key(call: nodes.Call) -> tuple[nodes.Name, str] | None:
    """``(d, "k")`` for ``d.setdefault("k", []).append(v)`` or ``d["k"].append(v)`` (also
    ``extend``): a list kept in a dict entry grows; else None (syntax only)."""
    f = call.func
    if not isinstance(f, nodes.Attribute) or f.attrname not in ("append", "extend"):
        return None
    holder = f.expr
    if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Attribute) and \
            holder.func.attrname == "setdefault" and holder.args and \
            isinstance(holder.func.expr, nodes.Name):
        key = const_str(holder.args[0])
        return (holder.func.expr, key) if key is not None else None
    if isinstance(holder, nodes.Subscript) and isinstance(holder.value, nodes.Name):
        key = const_str(holder.slice)
        return (holder.value, key) if key is not None else None
    return None


def _is_property(func: nodes.FunctionDef) -> bool:
    """Decorated ``@property`` or ``@functools.cached_property``: read as an attribute."""
    for dec in func.decorators.nodes if func.decorators is not None else ():
        name = dec.attrname if isinstance(dec, nodes.Attribute) else (
            dec.name if isinstance(dec, nodes.Name) else "")
        if name in ("property", "cached_property"):
            return True
    return False


#: torch factories that build a new tensor on the CPU unless given a ``device=``.
_CPU_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.zeros", "torch.ones",
                            "torch.empty", "torch.full", "torch.arange", "torch.linspace",
                            "torch.randn", "torch.rand", "torch.randint", "torch.eye",
                            "torch.from_numpy", "torch.LongTensor", "torch.FloatTensor"})
#: Methods through which a module class moves (or re-creates) its own state itself.
_MOVING_METHODS = frozenset({"to", "_apply", "cuda", "xla"})
#: Tensor methods that may put their result on another device.
_MOVING_CALLS = frozenset({"to", "cuda", "xla", "type", "new_tensor", "new_zeros",
                           "new_ones", "new_empty", "new_full", "pin_memory"})


def _plain_tensor_attr(klass: nodes.ClassDef, attr: str,
                       targets: list[tuple[nodes.NodeNG, nodes.NodeNG]],
                       ev: Evaluator) -> bool:
    """Every binding of the module class's attribute ``attr`` is ``self.attr =
    torch.tensor(...)`` (a torch factory without ``device=`` or ``**kwargs``), and no
    ``register_buffer``/``register_parameter`` names it (those bindings appear in
    ``targets`` as the registering call): a plain tensor attribute, which
    ``module.to(device)`` leaves on the CPU (``nn.Module._apply`` moves only
    ``_parameters``, ``_buffers`` and submodules; torch/nn/modules/module.py). Only for a
    class of ``ev``'s own module, where nothing else assigns ``.attr`` (``model.window =
    model.window.to(device)``), nor spells it in a project module importing this one;
    False when the class defines its own ``to``/``_apply``. Memoised per evaluator.
    (A chain of tensor methods after the factory, ``torch.tensor(...).cumsum(0)``, stays
    where the factory made it.)"""
    memo = ev.__dict__.setdefault("_plain_attrs", {})
    key = (id(klass), attr)
    found = memo.get(key)
    if found is None:
        found = memo[key] = _plain_tensor_attr_of(klass, attr, targets, ev)
    return found


def _plain_tensor_attr_of(klass: nodes.ClassDef, attr: str,
                          targets: list[tuple[nodes.NodeNG, nodes.NodeNG]],
                          ev: Evaluator) -> bool:
    if not targets or klass.root() is not ev.module or any(
            isinstance(m, nodes.FunctionDef) and m.name in _MOVING_METHODS
            for m in klass.body):
        return False
    for target, stmt in targets:
        if not (isinstance(target, nodes.AssignAttr) and isinstance(stmt, nodes.Assign) and
                isinstance(stmt.value, nodes.Call)):
            return False
        call = stmt.value
        while isinstance(call.func, nodes.Attribute) and \
                isinstance(call.func.expr, nodes.Call) and \
                call.func.attrname not in _MOVING_CALLS and not call.keywords and \
                all(isinstance(a, nodes.Const) for a in call.args):
            call = call.func.expr  # ``torch.tensor(o).cumsum(0)``: the factory's tensor
        if ev.qualname(call.func) not in _CPU_FACTORIES or \
                any(k.arg in ("device", None) for k in call.keywords or ()):
            return False
    own = {id(t) for t, _ in targets}
    # (another class's own ``self.crop = ...`` is that class's attribute)
    if any(a.attrname == attr and id(a) not in own and not (
            isinstance(a.expr, nodes.Name) and a.expr.name == "self")
           for a in ev.module_nodes(nodes.AssignAttr)):
        return False
    link = ev.link
    if link is not None:
        rel = link.module_rel(ev.module)
        if rel is None:
            return False
        for other in link.index.importers(rel):
            assigned = link.index.assigned_attributes(other)
            if assigned is None or attr in assigned:
                return False  # (``model.window = model.window.to(device)`` there)
    return True


def _fold_ints(left: frozenset[Value], right: frozenset[Value], op: str) -> int | None:
    """``left op right`` for two known Python ints (one value each, ``+ - * // %``), when
    the result is a plausible size (at most 10**12); else None."""
    if len(left) != 1 or len(right) != 1:
        return None
    (a,), (b,) = left, right
    if a.qual != "int" or b.qual != "int" or a.text is None or b.text is None:
        return None
    try:
        x, y = int(a.text), int(b.text)
    except ValueError:
        return None
    if op == "+":
        out = x + y
    elif op == "-":
        out = x - y
    elif op == "*":
        out = x * y
    elif op in ("//", "%") and y != 0:
        out = x // y if op == "//" else x % y
    else:
        return None
    return out if abs(out) <= 10 ** 12 else None


def argparse_default(parse: nodes.Call, attr: str) -> nodes.Const | None:
    """The literal number (or None, for a number option) that is the default of option
    ``attr`` of the namespace
    ``parse`` returns (``args = parser.parse_args()``, ``parser.add_argument("--test_bs",
    type=int, default=200)``: ``200``), from the ``add_argument`` calls on that parser
    (or on its argument groups) in the same module. None when the default is not a
    number (a switch such as ``--amp`` or a device name is a setting the run may flip:
    the rules keep it unknown), the option is added twice or has no default,
    ``set_defaults`` names it, or ``parse`` is not such a call."""
    func = parse.func
    if not (isinstance(func, nodes.Attribute) and func.attrname == "parse_args" and
            isinstance(func.expr, nodes.Name)):
        return None
    table = syntax_cache(parse.root()).setdefault("argparse_defaults", {})
    key = id(parse)
    found = table.get(key)
    if found is None:
        found = table[key] = _argparse_defaults(parse.root(), func.expr.name)
    return found.get(attr)


def _argparse_defaults(module: nodes.Module, parser: str) -> dict[str, nodes.Const | None]:
    receivers = {parser}
    calls = list(nodes_of(module, nodes.Call))
    for call in calls:
        # ``group = parser.add_argument_group("data")``: options added to the group
        f = call.func
        if isinstance(f, nodes.Attribute) and f.attrname in (
                "add_argument_group", "add_mutually_exclusive_group") and \
                isinstance(f.expr, nodes.Name) and f.expr.name == parser and \
                isinstance(call.parent, nodes.Assign) and len(call.parent.targets) == 1 and \
                isinstance(call.parent.targets[0], nodes.AssignName):
            receivers.add(call.parent.targets[0].name)
    out: dict[str, nodes.Const | None] = {}
    for call in calls:
        f = call.func
        if not (isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and
                f.expr.name in receivers):
            continue
        if f.attrname == "set_defaults":
            for kw in call.keywords or ():
                if kw.arg is not None:
                    out[kw.arg] = None
            continue
        if f.attrname != "add_argument":
            continue
        names = [const_str(a) for a in call.args]
        dest_kw = keyword(call, "dest")
        dest = const_str(dest_kw) if dest_kw is not None else None
        if dest is None:
            longs = [n for n in names if n and n.startswith("--")]
            first = longs[0] if longs else (names[0] if names and names[0] else None)
            if first is None:
                continue
            dest = first.lstrip("-").replace("-", "_")
        default = keyword(call, "default")
        value: nodes.Const | None = None
        kind = keyword(call, "type")
        number = kind.name if isinstance(kind, nodes.Name) and kind.name in ("int", "float") \
            else None
        # (a switch's default, or one that is not a literal, stays unknown; arithmetic of
        # number literals, ``default=128 * 400``, is folded)
        folded = _folded_number(default) if default is not None and \
            not isinstance(default, nodes.Const) else None
        literal = (folded or default) if isinstance(folded or default, nodes.Const) and \
            keyword(call, "action") is None else None
        if literal is not None and isinstance(literal.value, (int, float)) and \
                not isinstance(literal.value, bool):
            value = literal
        elif literal is not None and number is not None and literal.value is None:
            # ``type=int, default=None`` ("defaults to --batch_size"): None unless given
            value = literal
        elif literal is not None and number is not None and isinstance(literal.value, str):
            # ``type=int, default="500"``: argparse converts a string default with ``type``
            try:
                value = nodes.Const(int(literal.value) if number == "int"
                                    else float(literal.value))
            except ValueError:
                value = None
        out[dest] = None if dest in out else value
    return out


def _another_construction(ev: Evaluator, store: nodes.AssignAttr, call: nodes.Call) -> bool:
    """``store`` (``x.attr = ...``) writes the attribute of another object of the class
    that ``call`` constructs: ``x`` is a name whose every binding assigns a call spelled
    as ``call`` is (``val_ds = PairDataset(...)`` then ``val_ds.num_samples = n``, for
    the ``train_ds = PairDataset(...)`` construction). Anything else (``self.attr`` in a
    method, an attribute chain, a wrapper's result, this very call) may be its object."""
    if not isinstance(store.expr, nodes.Name):
        return False
    try:
        bound = ev.bindings(store.expr)
    except Exception:  # noqa: BLE001 - unknown: it may be the constructed object
        return False
    spelled = call.func.as_string()
    return bool(bound) and all(
        isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
        isinstance(b.parent.value, nodes.Call) and b.parent.value is not call and
        b.parent.value.func.as_string() == spelled for b in bound)


def _folded_number(node: nodes.NodeNG, depth: int = 0) -> nodes.Const | None:
    """``128 * 400``, ``2 ** 14``: arithmetic of int and float literals as one positive
    constant (a result of 0 or less, past 2**63, or any other operand, gives None; a
    sign, ``-1``, is not folded: it is the usual "not set" default)."""
    if depth > 8:
        return None
    if isinstance(node, nodes.Const):
        ok = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return node if ok else None
    if isinstance(node, nodes.BinOp) and node.op in ("+", "-", "*", "//", "**"):
        left = _folded_number(node.left, depth + 1)
        right = _folded_number(node.right, depth + 1)
        if left is None or right is None:
            return None
        a, b = left.value, right.value
        try:
            if node.op == "**" and (abs(b) > 64 or abs(a) > 2 ** 16):
                return None
            value = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                     "//": lambda: a // b, "**": lambda: a ** b}[node.op]()
        except (ArithmeticError, ValueError):
            return None
        if not isinstance(value, (int, float)) or not 0 < value < 2 ** 63:
            return None  # (``-1`` and ``0`` are "not set" sentinels: never folded)
        return nodes.Const(value)
    return None


def mark_unit_tests(module: nodes.Module, spans: tuple[tuple[int, int], ...]) -> None:
    """Record on ``module`` the line spans of its unit tests
    (:func:`flake8_xla.testcode.unit_test_spans`), which :func:`unit_test_spans` reads."""
    syntax_cache(module)["unit_tests"] = spans


def unit_test_spans(module: nodes.Module) -> tuple[tuple[int, int], ...]:
    """The unit-test spans recorded on ``module`` (none when never recorded)."""
    return syntax_cache(module).get("unit_tests", ())


class CallArgs(NamedTuple):
    """The abstract values one call passes: positional, ``(keyword, value)`` pairs, and
    whether ``*args`` / ``**kwargs`` may pass more."""

    positional: tuple[frozenset[Value], ...]
    keywords: tuple[tuple[str, frozenset[Value]], ...]
    starred: bool
    star_kwargs: bool
    #: what the ``**mapping`` arguments may pass under keys not known (their values, when
    #: every one is a dict of known values: ``**reduce_dict(losses)``), else None
    star_values: frozenset[Value] | None = None


def _undominated(binds: list[nodes.NodeNG], use: nodes.NodeNG) -> list[nodes.NodeNG]:
    """Drop the bindings that a later, unconditional assignment on the way to ``use``
    replaces (``x = a`` / ``if c: x = b`` / ``x = f(x)`` / use: only the last reaches).

    An assignment counts as unconditional when the statement holding it runs before
    ``use`` on every path: the assignment itself, a ``with`` block around it, or a
    compound statement (``if``/``else``, ``try``/``except``, ``match`` with a ``case _``)
    every path through which assigns the name or leaves."""
    if len(binds) < 2:
        return binds
    frame = use.frame()
    latest = 0
    for b in binds:
        if not isinstance(b, nodes.AssignName):
            continue
        stmt = b.statement()
        if not isinstance(stmt, nodes.Assign):
            continue
        if runs_before(stmt, use, frame):
            latest = max(latest, stmt.lineno)
            continue
        holder: nodes.NodeNG = stmt
        while isinstance(holder.parent, nodes.With) and \
                any(x is holder for x in holder.parent.body) and \
                not holder.parent.parent_of(use):
            holder = holder.parent  # ``with torch.no_grad(): y = y.cpu()`` before the use
        if holder is not stmt and runs_before(holder, use, frame):
            latest = max(latest, stmt.lineno)
        branch = _branching_parent(holder)
        while branch is not None and not runs_before(branch, use, frame):
            branch = _branching_parent(branch)
        if branch is not None and _assigns_on_every_path([branch], b.name):
            # ``if c: y = f(y) else: y = g(y)``: every path rebinds the name
            latest = max(latest, branch.lineno)
    killed = _rebound_under_same_test(binds, use, frame) | _rebound_in_block(binds, use)
    if not latest and not killed:
        return binds
    return [b for b in binds if (b.lineno is None or b.lineno >= latest) and
            id(b) not in killed]


def _rebound_in_block(binds: list[nodes.NodeNG], use: nodes.NodeNG) -> set[int]:
    """Bindings that a later plain assignment of the same block replaces before ``use``
    (``_, action = torch.max(q, 1)`` then ``action = int(action.item())`` in one arm of an
    ``if``): every path from the first to ``use`` runs the second, unless ``use`` lies
    between them (the second's own value included), a statement between them may jump
    away (``break``, ``continue``, ``return``, ``raise``), or an exception in a ``try``
    body may leave the block for code that ``use`` is in. Only the nearest later
    assignment of the block is asked: a farther one has the same statements between."""
    found: set[int] = set()
    by_block: dict[int, tuple[list[nodes.NodeNG], list[tuple[nodes.NodeNG, nodes.NodeNG]]]] = {}
    for b in binds:
        if not isinstance(b, nodes.AssignName):
            continue
        stmt = b.statement()
        block = _block_of(stmt)
        if block is not None:
            by_block.setdefault(id(block), (block, []))[1].append((b, stmt))
    for block, group in by_block.values():
        if len(group) < 2:
            continue
        at = {id(x): i for i, x in enumerate(block)}
        ordered = sorted(((at[id(stmt)], b, stmt) for b, stmt in group), key=lambda e: e[0])
        for k, (i1, b1, s1) in enumerate(ordered):
            later = next(((i2, s2) for i2, _, s2 in ordered[k + 1:]
                          if i2 > i1 and isinstance(s2, nodes.Assign)), None)
            if later is None or _leaves_by_exception(s1, use):
                continue
            end = later[0]
            if any(x is use or x.parent_of(use) for x in block[i1:end + 1]):
                continue
            if any(isinstance(x, JUMPS) or any(True for _ in nodes_of(x, 
                    JUMPS, skip_klass=SCOPES)) for x in block[i1 + 1:end]):
                continue
            found.add(id(b1))
    return found


def _block_of(stmt: nodes.NodeNG) -> list[nodes.NodeNG] | None:
    """The statement list (``body``, ``orelse``, ``finalbody`` ...) that holds ``stmt``."""
    parent = stmt.parent
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(x is stmt for x in block):
            return block
    return None


def _leaves_by_exception(stmt: nodes.NodeNG, use: nodes.NodeNG) -> bool:
    """``stmt`` lies in the body of a ``try`` that does not hold ``use`` in that body: an
    exception raised after it may reach ``use`` through a handler or past the ``try``."""
    cur = stmt
    while cur.parent is not None and not isinstance(cur, SCOPES + (nodes.Module,)):
        parent = cur.parent
        if isinstance(parent, nodes.Try) and any(x is cur for x in parent.body) and \
                not any(x is use or x.parent_of(use) for x in parent.body):
            return True
        cur = parent
    return False


def _guard_of(b: nodes.NodeNG, frame: nodes.NodeNG) -> nodes.If | None:
    """The ``if`` whose body holds the plain assignment of ``b`` directly, in ``frame``."""
    if not isinstance(b, nodes.AssignName):
        return None
    stmt = b.statement()
    branch = stmt.parent
    if isinstance(stmt, nodes.Assign) and isinstance(branch, nodes.If) and \
            any(s is stmt for s in branch.body) and branch.frame() is frame:
        return branch
    return None


def _rebound_under_same_test(binds: list[nodes.NodeNG], use: nodes.NodeNG,
                             frame: nodes.NodeNG) -> set[int]:
    """Bindings that a later ``if`` with the same test rebinds on the way to ``use``:
    ``if args.do_eval: loader = DataLoader(...)`` then ``if args.do_eval: loader =
    accelerator.prepare(loader)``. Whenever the first body ran, so did the second (the
    test's names are not assigned in between, and the second ``if`` runs before ``use``
    on every path), so only the second binding reaches."""
    guarded = [(b, g) for b in binds if (g := _guard_of(b, frame)) is not None]
    if len(guarded) < 2:
        return set()
    killed: set[int] = set()
    for first, g1 in guarded:
        test = g1.test.as_string()
        for _, g2 in guarded:
            if g2 is g1 or g2.lineno <= g1.lineno or g2.test.as_string() != test or \
                    not runs_before(g2, use, frame):
                continue
            names = {n.name for n in nodes_of(g1.test, nodes.Name)}
            if any(g1.lineno < (a.lineno or 0) < g2.lineno and (
                    a.name in names if isinstance(a, nodes.AssignName) else
                    getattr(chain_root(a.expr), "name", None) in names)
                   for a in nodes_of(frame, (nodes.AssignName, nodes.AssignAttr))):
                continue  # (the test may have changed in between: ``args.do_eval = ...``)
            killed.add(id(first))
            break
    return killed


_BRANCHING = (nodes.If, nodes.Try, nodes.Match, nodes.With)


def _branching_parent(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The compound statement (``if``, ``try``, ``match``, ``with``) whose block holds
    ``node`` directly (a ``case`` or ``except`` clause counts as part of its statement)."""
    parent = node.parent
    if isinstance(parent, (nodes.MatchCase, nodes.ExceptHandler)):
        parent = parent.parent
    return parent if isinstance(parent, _BRANCHING) else None


def _assigns(stmt: nodes.NodeNG, name: str) -> bool:
    return isinstance(stmt, nodes.Assign) and any(
        isinstance(t, nodes.AssignName) and t.name == name
        for target in stmt.targets for t in nodes_of(target, nodes.AssignName))


def _assigns_on_every_path(block: list[nodes.NodeNG], name: str) -> bool:
    """Every path through ``block`` assigns ``name`` (a plain assignment at its top level,
    tuple targets included, or a compound statement every path of which does) or leaves
    it (``return``, ``raise``, ``continue``, ``break``)."""
    for stmt in block:
        if _assigns(stmt, name):
            return True
        if isinstance(stmt, JUMPS):
            return True
        if isinstance(stmt, nodes.If) and stmt.orelse and \
                _assigns_on_every_path(stmt.body, name) and \
                _assigns_on_every_path(stmt.orelse, name):
            return True
        if isinstance(stmt, nodes.With) and _assigns_on_every_path(stmt.body, name):
            return True
        if isinstance(stmt, nodes.Try) and (
                _assigns_on_every_path(stmt.finalbody, name) or (
                    (_assigns_on_every_path(stmt.body, name) or
                     _assigns_on_every_path(stmt.orelse, name)) and
                    all(_assigns_on_every_path(h.body, name) for h in stmt.handlers))):
            return True
        if isinstance(stmt, nodes.Match) and any(
                isinstance(c.pattern, nodes.MatchAs) and c.pattern.pattern is None and
                c.guard is None for c in stmt.cases) and all(
                _assigns_on_every_path(c.body, name) for c in stmt.cases):
            return True
    return False


def enclosing_function(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The FunctionDef or Lambda whose body holds ``node`` (its defaults excluded)."""
    cur = node.parent
    child = node
    while cur is not None:
        if isinstance(cur, (nodes.FunctionDef, nodes.Lambda)) and child is not cur.args and \
                not (isinstance(cur, nodes.FunctionDef) and cur.decorators is not None and
                     child is cur.decorators):
            return cur
        if isinstance(cur, nodes.Module):
            return None
        child, cur = cur, cur.parent
    return None


def _defines_method(module: nodes.Module, name: str) -> bool:
    """A class of ``module`` defines a method ``name`` (syntax, kept with the tree)."""
    cache = syntax_cache(module)
    found = cache.get("method_names")
    if found is None:
        found = cache["method_names"] = frozenset(
            m.name for k in nodes_of(module, nodes.ClassDef) for m in k.mymethods())
    return name in found


def bound_lambda(b: nodes.NodeNG) -> nodes.Lambda | None:
    """The lambda a binding assigns (``report = lambda step, loss: ...``), else None."""
    if isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and \
            isinstance(b.parent.value, nodes.Lambda):
        return b.parent.value
    return None


def is_super_call(call: nodes.Call) -> bool:
    """``super().name(...)`` (syntax only)."""
    f = call.func
    return isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Call) and \
        isinstance(f.expr.func, nodes.Name) and f.expr.func.name == "super"


def scopes_of(node: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """The functions that hold ``node``, innermost first."""
    cur = node.parent
    while cur is not None and not isinstance(cur, nodes.Module):
        if isinstance(cur, (nodes.FunctionDef, nodes.Lambda)):
            yield cur
        cur = cur.parent


def enclosing_class(func: nodes.NodeNG) -> nodes.ClassDef | None:
    """The ClassDef of which ``func`` is a method, else None."""
    parent = func.parent
    return parent if isinstance(parent, nodes.ClassDef) else None


def target_path(target: nodes.NodeNG, stmt: nodes.NodeNG) -> list[int | str] | None:
    """Positions from ``stmt``'s target root down to ``target`` (``'*'`` for a Starred).

    ``a, (b, c) = v`` gives ``[1, 1]`` for ``c``; None when ``target`` is not in a
    tuple/list target of ``stmt``.
    """
    path: list[int | str] = []
    child, cur = target, target.parent
    while cur is not None and cur is not stmt:
        if isinstance(cur, (nodes.Tuple, nodes.List)):
            idx = next(i for i, e in enumerate(cur.elts) if e is child)
            path.append(idx)
        elif isinstance(cur, nodes.Starred):
            path.append("*")
        elif isinstance(cur, (nodes.Comprehension, nodes.For, nodes.With)):
            break
        else:
            return None
        child, cur = cur, cur.parent
    path.reverse()
    return path


#: Name prefixes of torch's functions that read or set the library's state (see
#: ``torch/__init__.py``: ``get_default_dtype``, ``is_grad_enabled``,
#: ``are_deterministic_algorithms_enabled``, ``set_default_device``): they return host
#: values, where an unlisted ``torch.<op>()`` makes a tensor. ``get_default_device()``
#: (a device, CPU unless set) keeps the tensor default: moving to it moves to its device.
_TORCH_STATE_PREFIXES = ("get_", "is_", "are_", "has_", "set_")


def _assigned_attrs(stmt: nodes.NodeNG) -> list[nodes.AssignAttr]:
    """The attribute targets of an assignment statement, its own or those of a tuple it
    unpacks (``(self.model, self.loader) = accelerator.prepare(...)``); empty for any other
    statement."""
    if not isinstance(stmt, nodes.Assign):
        return []
    return [a for t in stmt.targets for a in (t, *nodes_of(t, nodes.AssignAttr))
            if isinstance(a, nodes.AssignAttr)]


def _overwritten_in_method(target: nodes.NodeNG) -> bool:
    """``self.attr = ...`` (``target``) that a later statement of its method's own body (not
    in a branch or a loop) assigns again, directly or in a tuple it unpacks, with nothing
    in between that can see the first value: no ``return``, ``raise`` or ``yield`` (an
    early exit leaves it in place), no call of a method that may read the attribute
    (``self.warm_up()``) and no call handed ``self`` (``helper(self)``); a compound
    statement holding the first assignment counts as in between."""
    if not (isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name) and
            target.expr.name == "self"):
        return False
    frame = target.frame()
    if not isinstance(frame, nodes.FunctionDef):
        return False
    holder: nodes.NodeNG = target.statement()
    while holder.parent is not frame:  # the statement of the method's body that holds it
        if holder.parent is None:
            return False
        holder = holder.parent
    # (a compound statement holding the assignment may run more of itself after it)
    between: list[nodes.NodeNG] = [] if holder is target.statement() else [holder]
    after = False
    for top in frame.body:
        if not after:
            after = top is holder
            continue
        if any(a.attrname == target.attrname and isinstance(a.expr, nodes.Name) and
               a.expr.name == "self" for a in _assigned_attrs(top)):
            return not any(_sees_self(b, target.attrname) for b in between)
        between.append(top)
    return False


def _sees_self(stmt: nodes.NodeNG, attr: str, depth: int = 0) -> bool:
    """``stmt`` may leave its method, or run code that reads ``self.<attr>`` (see
    :func:`_overwritten_in_method`): a method of the class that names it (two calls
    deep; one not found in the class body counts), or a call handed ``self``. Nested
    definitions excluded."""
    for n in nodes_of(stmt, (nodes.Return, nodes.Raise, nodes.Yield, nodes.YieldFrom,
                                  nodes.Call), skip_klass=SCOPES):
        if not isinstance(n, nodes.Call):
            if depth == 0:
                return True  # (an exit of the called method itself leaves ours running)
            continue
        f = n.func
        if isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and \
                f.expr.name == "self" and _method_reads(n, f.attrname, attr, depth):
            return True
        if any(isinstance(a, nodes.Name) and a.name == "self"
               for a in [*n.args, *(k.value for k in n.keywords or ())]):
            return True
    return False


def _method_reads(call: nodes.Call, name: str, attr: str, depth: int) -> bool:
    """``self.<name>(...)`` may read ``self.<attr>``: the class's own method of that
    name mentions it, or calls another method that may (unknown: True)."""
    frame = call.frame()
    klass = enclosing_class(frame) if isinstance(frame, nodes.FunctionDef) else None
    method = next((m for m in klass.body if isinstance(m, nodes.FunctionDef) and
                   m.name == name), None) if klass is not None else None
    if method is None or depth >= 2:
        return True
    if any(a.attrname == attr and isinstance(a.expr, nodes.Name) and a.expr.name == "self"
           for a in nodes_of(method, nodes.Attribute)):
        return True
    return any(_sees_self(stmt, attr, depth + 1) for stmt in method.body)


def _host_item(v: Value) -> frozenset[Value]:
    """An item or subscript of the host value ``v``: a read value when ``v`` was read from
    the device (``counts.tolist()``), else a host value of unknown type."""
    return frozenset({Value(Kind.HOST, flags=frozenset({"read"}))}) if v.has("read") \
        else V.host()


def _string_equality(node: nodes.Compare, parts: list[frozenset[Value]]) -> str | None:
    """``"True"``/``"False"`` for ``a == b`` (or ``!=``) of host strings whose every value
    is known (``dtype == "float16"`` with ``dtype = "bfloat16"``), when every pair of them
    gives the same answer; else None."""
    if len(node.ops) != 1 or node.ops[0][0] not in ("==", "!="):
        return None
    sides = []
    dtypes = 0
    for vs in parts:
        if vs and all(v.kind is Kind.REF and _dtype_name(v.qual) for v in vs):
            # ``amp.dtype == torch.float16`` of a known torch dtype (aliases as one)
            sides.append({_dtype_name(v.qual) for v in vs})
            dtypes += 1
            continue
        strings = V.known_strings(vs)
        if strings is None:
            return None
        sides.append(strings)
    if dtypes == 1:
        # (a dtype never equals a string: ``torch.bfloat16 != "bfloat16"`` is True)
        return str(node.ops[0][0] == "!=")
    answers = {(a == b) == (node.ops[0][0] == "==") for a in sides[0] for b in sides[1]}
    return str(answers.pop()) if len(answers) == 1 else None


def iter_argument(call: nodes.Call) -> nodes.NodeNG | None:
    """``x`` of the builtin call ``iter(x)`` (one argument, no keywords), else None."""
    if isinstance(call.func, nodes.Name) and call.func.name == "iter" and \
            len(call.args) == 1 and not call.keywords:
        return call.args[0]
    return None


def _host_truth(vs: frozenset[Value]) -> bool | None:
    """The truth of host values known alike (True, False, None, a number, a string:
    ``args.eval_batch_size or args.batch_size`` with a ``None`` default), else None."""
    truths = set()
    for v in vs:
        if v.kind is not Kind.HOST:
            return None
        if v.qual == "none":
            truths.add(False)
        elif v.text in ("True", "False"):
            truths.add(v.text == "True")
        elif v.qual in ("int", "float") and v.text is not None:
            try:
                truths.add(float(v.text) != 0)
            except ValueError:
                return None
        elif v.qual == "str" and v.text is not None:
            truths.add(bool(v.text))
        else:
            return None
    return truths.pop() if len(truths) == 1 else None


#: torch dtypes by their attribute names, aliases under the name they stand for.
_DTYPE_ALIASES = {"half": "float16", "float": "float32", "double": "float64",
                  "cfloat": "complex64", "cdouble": "complex128", "short": "int16",
                  "int": "int32", "long": "int64"}
_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64", "complex64", "complex128",
                     "int8", "uint8", "int16", "int32", "int64", "bool", "float8_e4m3fn",
                     "float8_e5m2"})


def _dtype_name(qual: str | None) -> str | None:
    """``float16`` for ``torch.float16`` or ``torch.half``; None for anything else."""
    if not qual or not qual.startswith("torch.") or qual.count(".") != 1:
        return None
    name = qual[len("torch."):]
    name = _DTYPE_ALIASES.get(name, name)
    return name if name in _DTYPES else None


def _loops_around(node: nodes.NodeNG, frame: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The ``for``/``while`` loops around ``node`` inside ``frame``."""
    out = []
    cur = node.parent
    while cur is not None and cur is not frame:
        if isinstance(cur, (nodes.For, nodes.While)):
            out.append(cur)
        cur = cur.parent
    return out


def _host_only(vs: frozenset[Value], depth: int = 0) -> bool:
    """Every value of ``vs`` is a Python value on the host (a number, a string, None, or
    a tuple or list of those): no tensor. At the top nothing may be unknown; the items of
    a tuple or list may be (``(start, start + k)`` of an unknown ``k``): a tuple none of
    whose items is known to hold a tensor is taken for what it holds, and a read of an
    unknown item stays silent."""
    if depth > 3 or not (V.is_known(vs) or depth and vs):
        return False
    for v in vs:
        if v.kind in (Kind.HOST, Kind.UNKNOWN):
            continue
        if v.kind in (Kind.TUPLE, Kind.LIST) and v.elts and \
                all(_host_only(e, depth + 1) for e in v.elts):
            continue
        return False
    return True


#: Containers among torch's modules: iterating one yields its submodules.
_ITERABLE_MODULES = ("Sequential", "ModuleList", "ModuleDict", "ParameterList",
                     "ParameterDict")


def _never_unpacked(v: Value) -> bool:
    """``v`` is of a kind that Python cannot unpack into names (``a, b = v`` raises): a
    module that is no container, an optimizer, a scheduler, a scaler, a device, a
    function or class, a number, a bool or None."""
    if v.kind is Kind.MODULE:
        return not (v.qual or "").endswith(_ITERABLE_MODULES)
    if v.kind is Kind.HOST:
        return v.qual in ("int", "float", "bool", "none")
    return v.kind in (Kind.OPTIMIZER, Kind.SCHEDULER, Kind.SCALER, Kind.DEVICE,
                      Kind.FUNCTION, Kind.CLASS)


class Evaluator:
    """Abstract values of one astroid module's expressions (memoised, budgeted)."""

    def __init__(self, module: nodes.Module, qualname: QualNames, api: ApiModel) -> None:
        self.module = module
        self.qualname = qualname
        self.api = api
        self._memo: dict[tuple[int, Ctx | None], frozenset[Value]] = {}
        self._busy: dict[tuple[int, Ctx | None], int] = {}
        #: the keys of ``_busy`` by level (each entry's own key object identifies it)
        self._stack: list[tuple[int, Ctx | None]] = []
        #: results computed inside a cycle: ``key -> (result, level of the cycle's start,
        #: the start's key object)``, reused only while that start is still on the stack
        self._tentative: dict[tuple[int, Ctx | None],
                              tuple[frozenset[Value], int, tuple[int, Ctx | None]]] = {}
        self._cycle_low = _NO_CYCLE
        # Tables that depend on the tree alone (scope lookups, walks) are kept with the
        # tree (see syntax_cache), so every session that analyses it shares them.
        shared = syntax_cache(module)
        self._shared = shared
        self._sites: dict[int, list[tuple[nodes.Call, bool]]] | None = None
        self._member_memo: dict[tuple[int, str], frozenset[Value]] = {}
        #: class_attrs with the attributes of base classes of other project modules
        self._with_foreign_bases: dict[int, dict[str, list[tuple[nodes.NodeNG,
                                                                 nodes.NodeNG]]]] = {}
        self._obj_attrs: dict[tuple[int, str], list[tuple[nodes.NodeNG, nodes.NodeNG]]] | None = \
            None
        self._mutations: dict[int, list[nodes.NodeNG]] | None = None
        self._wrappers: dict[int, nodes.FunctionDef | None] = {}
        self._indexing = False
        self._class_kind: dict[int, Kind] = {}
        self._method_memo: dict[tuple[int, str],
                                tuple[nodes.ClassDef, nodes.FunctionDef | None]] = {}
        self._param_memo: dict[tuple[int, str], frozenset[Value]] = {}
        #: parameters whose call-site value is being computed: key -> value() stack depth
        self._param_busy: dict[tuple[int, str], int] = {}
        self._subclass_memo: dict[tuple[int, str],
                                  list[tuple[nodes.FunctionDef, nodes.ClassDef]]] = {}
        self._module_calls_memo: dict[int, list[nodes.Call]] = {}
        self._called_memo: dict[tuple[int, Ctx | None],
                                list[tuple[nodes.NodeNG, Ctx | None]]] = {}
        self._callbacks: dict[int, list[tuple[str, nodes.Call]]] | None = None
        self._by_name: dict[str, list[nodes.NodeNG]] | None = None
        self._item_moves: dict[tuple[int, str], list[tuple[nodes.For, nodes.Call]]] | None = \
            None
        self._off_path: dict[tuple[int, tuple[type, ...]], bool] = {}
        self._branch_off: dict[tuple[int, tuple[type, ...]], bool] = {}
        self._func_off: dict[tuple[int, tuple[type, ...]], bool] = {}
        self._truth: dict[int, bool | None] = {}
        #: (id of a node, block field) -> index of the first ``if`` of that block whose
        #: XLA-path branch leaves it (see paths._after_xla_exit)
        self._xla_exits: dict[tuple[int, str], int] = {}
        self.work = 0
        self.spent = False
        self.budget = WORK_BUDGET + WORK_PER_LINE * (getattr(module, "tolineno", 0) or 0)
        #: the cross-module link (:class:`flake8_xla.project.link.Session`) when the module
        #: is part of a project, else None (single-file analysis)
        self.link = None
        #: the module's nodes of a class, in pre-order (the Analyzer shares its cache)
        self.module_nodes = lambda klass: list(nodes_of(module, klass))

    # ------------------------------------------------------------------ entry point
    def value(self, node: nodes.NodeNG | None, ctx: Ctx | None = None, depth: int = 0
              ) -> frozenset[Value]:
        """The abstract value of ``node`` under ``ctx`` (None: any context)."""
        if node is None:
            return UNKNOWN_SET
        if depth > MAX_DEPTH or self.spent:
            return UNKNOWN_SET
        key = (id(node), ctx)
        found = self._memo.get(key)
        if found is not None:
            return found
        if self.link is not None and self.link.multi and node.root() is not self.module:
            return self.link.foreign_value(node, ctx, depth)  # its own module's Evaluator
        level = self._busy.get(key)
        if level is not None:
            # A cycle (a loop-carried value): this path adds nothing now, and what the
            # nodes between here and the cycle's start compute is partial, not memoised.
            self._cycle_low = min(self._cycle_low, level)
            return EMPTY
        held = self._tentative.get(key)
        if held is not None and held[1] < len(self._stack) and self._stack[held[1]] is held[2]:
            # Computed already while the same cycle's start is still being evaluated: as
            # partial now as it was then (one pass over the cycle, not one per path).
            self._cycle_low = min(self._cycle_low, held[1])
            return held[0]
        self.work += 1
        if self.work > self.budget:
            self.spent = True
            return UNKNOWN_SET
        level = len(self._busy)
        self._busy[key] = level
        self._stack.append(key)
        outer_low = self._cycle_low
        self._cycle_low = _NO_CYCLE
        try:
            result = self._value(node, ctx, depth + 1)
        except RecursionError:
            result = UNKNOWN_SET
        finally:
            del self._busy[key]
            self._stack.pop()
        inner_low = self._cycle_low
        if inner_low >= level:
            self._memo[key] = result  # complete: no cycle reached above this node
            inner_low = _NO_CYCLE
        else:
            self._tentative[key] = (result, inner_low, self._stack[inner_low])
        self._cycle_low = min(outer_low, inner_low)
        return result

    def _value(self, node: nodes.NodeNG, ctx: Ctx | None, d: int) -> frozenset[Value]:
        if isinstance(node, nodes.Const):
            return self._const(node.value)
        if isinstance(node, nodes.Name):
            return self._name(node, ctx, d)
        if isinstance(node, nodes.Attribute):
            q = self.qualname(node)
            if q is not None:
                return self.ref(q, node, d)
            return self.attribute(self.value(node.expr, ctx, d), node.attrname, node, ctx, d)
        if isinstance(node, nodes.Call):
            found = self.call_value(node, ctx, d)
            if not node.args and isinstance(node.parent, nodes.Assign) and found and all(
                    v.kind is Kind.LIST and v.elts == () for v in found):
                # ``recent = deque(maxlen=20)``, ``losses = list()``: an empty list bound to a
                # name holds what the code adds to it later, as a ``[]`` literal does
                return self._with_mutations(node, found, ctx, d)
            return found
        if isinstance(node, nodes.Subscript):
            return self.subscript(self.value(node.value, ctx, d), node.slice, ctx, d)
        if isinstance(node, nodes.BinOp):
            return self._binop(node, ctx, d)
        if isinstance(node, nodes.Compare):
            return self._compare(node, ctx, d)
        if isinstance(node, nodes.BoolOp):
            return self._boolop(node, ctx, d)
        if isinstance(node, nodes.UnaryOp):
            if node.op == "not":
                truth = _host_truth(self.value(node.operand, ctx, d))
                return V.host("bool", None if truth is None else str(not truth))
            return self.value(node.operand, ctx, d)
        if isinstance(node, nodes.IfExp):
            from flake8_xla.analysis.paths import xla_truth
            truth = xla_truth(node.test, self)
            if truth is True:
                return self.value(node.body, ctx, d)
            if truth is False:
                return self.value(node.orelse, ctx, d)
            # (``v.cpu() if isinstance(v, torch.Tensor) else v``: the name in the other arm
            # holds no tensor, see _narrowed_to_host; so does a subscript or an attribute
            # tested and used alike, ``batch["x"].cpu() if isinstance(batch["x"],
            # torch.Tensor) else batch["x"]``)
            body, orelse = self.value(node.body, ctx, d), self.value(node.orelse, ctx, d)
            test, negated = node.test, False
            if isinstance(test, nodes.UnaryOp) and test.op == "not":
                test, negated = test.operand, True
            subject = self._tensor_test_subject(test)
            if subject is not None and not isinstance(subject, nodes.Name):
                other = node.body if negated else node.orelse
                if other.as_string() == subject.as_string():
                    narrowed = frozenset(v for v in (body if negated else orelse)
                                         if v.kind is not Kind.TENSOR) or UNKNOWN_SET
                    body, orelse = (narrowed, orelse) if negated else (body, narrowed)
            return join(body, orelse)
        if isinstance(node, nodes.Tuple):
            return one(Kind.TUPLE, elts=self._elts(node.elts, ctx, d))
        if isinstance(node, (nodes.List, nodes.Set)):
            value = one(Kind.LIST, elts=self._elts(node.elts, ctx, d))
            return self._with_mutations(node, value, ctx, d)
        if isinstance(node, nodes.Dict):
            items = []
            rest = []
            for k, v in node.items:
                key = const_str(k)
                if key is not None:
                    items.append((key, self.value(v, ctx, d)))
                elif isinstance(k, nodes.DictUnpack):
                    # ``{**loss_stats, "lr": lr}``: the entries of the dict spread in
                    items_in, rest_in = self._spread_entries(self.value(v, ctx, d))
                    items.extend(items_in)
                    rest.extend(rest_in)
                else:
                    rest.append(self.value(v, ctx, d))
            # (a later entry of the same key replaces an earlier one, spread or written)
            last = {key: i for i, (key, _) in enumerate(items)}
            items = [item for i, item in enumerate(items) if last[item[0]] == i]
            value = one(Kind.DICT, items=tuple(items), elem=join(*rest) if rest else None)
            return self._with_mutations(node, value, ctx, d)
        if isinstance(node, (nodes.ListComp, nodes.SetComp, nodes.GeneratorExp)):
            kind = Kind.ITERATOR if isinstance(node, nodes.GeneratorExp) else Kind.LIST
            return one(kind, elem=self.value(node.elt, ctx, d))
        if isinstance(node, nodes.DictComp):
            return one(Kind.DICT, items=(), elem=self.value(node.value, ctx, d))
        if isinstance(node, nodes.JoinedStr):
            return V.host("str")
        if isinstance(node, nodes.Lambda):
            return one(Kind.FUNCTION, node=node)
        if isinstance(node, (nodes.NamedExpr, nodes.Starred)):
            return self.value(node.value, ctx, d)
        if isinstance(node, nodes.AssignName):
            return self.binding_value(node, None, ctx, d)
        return UNKNOWN_SET

    @staticmethod
    def _spread_entries(spread: frozenset[Value]
                        ) -> tuple[list[tuple[str, frozenset[Value]]], list[frozenset[Value]]]:
        """The named entries and the other entries that ``**spread`` adds to a dict
        literal: those of a dict known by its keys; the outputs of a forward pass or loss
        module (a dict of what it computed, on the XLA device or one not known here, as
        its ``.items()`` are); unknown otherwise (one dict of several also: its keys are
        not known)."""
        if len(spread) == 1:
            (sv,) = tuple(spread)
            if sv.kind is Kind.DICT and sv.items is not None:
                return list(sv.items), [sv.elem] if sv.elem is not None else []
            if sv.kind is Kind.TENSOR and sv.has("output") and \
                    sv.device in ("xla", V.ANY_DEVICE, None):
                return [], [frozenset({sv.with_(flags=frozenset({"output"}))})]
        return [], [UNKNOWN_SET]

    def ref(self, q: str, node: nodes.NodeNG | None = None, d: int = 0) -> frozenset[Value]:
        """The value of an imported name ``q``: a REF (a library object), or what a module of
        the project defines under that name (its function, class or module-level value)."""
        if self.link is not None:
            found = self.link.resolve(self, q, node, d)
            if found is not None:
                return found
        return one(Kind.REF, qual=q)

    @staticmethod
    def _branch_arms(use: nodes.NodeNG) -> Iterator[tuple[nodes.NodeNG, nodes.NodeNG, bool]]:
        """The ``if`` statements and conditional expressions of its function that hold
        ``use`` in an arm: ``(branch, test, holds)``, ``test`` with a leading ``not`` taken
        off and ``holds`` true when ``use`` sits in the arm that runs when ``test`` is."""
        child, cur = use, use.parent
        while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module,
                                                       nodes.Lambda, nodes.ClassDef)):
            if isinstance(cur, (nodes.If, nodes.IfExp)) and child is not cur.test:
                test, negated = cur.test, False
                if isinstance(test, nodes.UnaryOp) and test.op == "not":
                    test, negated = test.operand, True
                in_body = child in cur.body if isinstance(cur, nodes.If) else \
                    child is cur.body
                yield cur, test, in_body != negated
            if isinstance(cur, COMPREHENSIONS) and not any(child is g for g in cur.generators):
                # ``{k: v for k, v in d.items() if not torch.is_tensor(v)}``: the element
                # is made only where every condition holds
                for gen in cur.generators:
                    for cond in gen.ifs:
                        negated = isinstance(cond, nodes.UnaryOp) and cond.op == "not"
                        yield cur, cond.operand if negated else cond, not negated
            child, cur = cur, cur.parent

    def _narrowed_to_host(self, use: nodes.Name) -> bool:
        """``use`` sits in the body of ``if isinstance(name, str):`` or in the other arm of
        a tensor test of the name (``if isinstance(name, torch.Tensor)``,
        ``torch.is_tensor(name)``: see :meth:`_isinstance_tensor`), of an ``if`` or a
        conditional expression in its function: there the name holds no tensor, whatever
        else it may hold elsewhere."""
        return any(_host_type_test(test, use.name) if holds else
                   self._isinstance_tensor(test) == use.name
                   for _, test, holds in self._branch_arms(use))

    def _kinds_ruled_out(self, use: nodes.Name, binds: list[nodes.NodeNG]) -> frozenset[Kind]:
        """The value kinds ``use`` cannot hold, by the type tests of its function that its
        bindings (``binds``) all precede: the other arm of ``isinstance(name, dict)``
        (``list``, ``tuple``, ``Mapping``, ``Sequence``, ``torch.Tensor``, ``torch.is_tensor``,
        ``hasattr(name, "cpu")``), of an ``if`` or a conditional expression, and what
        follows ``if isinstance(name, dict): return ...`` in the same block. A recursive
        ``to_cpu(obj)`` returns neither a dict nor a tensor from its last ``return obj``; a
        name rebound inside the arm (``else: preds = {"logits": preds}``) is not narrowed."""
        from flake8_xla.analysis.paths import _terminates

        def rebound_in(holder: nodes.NodeNG) -> bool:
            return any(b is holder or holder.parent_of(b) for b in binds)

        def precede(stmt: nodes.NodeNG) -> bool:
            return all(b.lineno is not None and b.lineno < stmt.fromlineno or
                       isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Arguments)
                       for b in binds)

        out: set[Kind] = set()
        for branch, test, holds in self._branch_arms(use):
            if not holds and not rebound_in(branch):
                out |= self._type_test_kinds(test, use.name)
        # what follows ``if isinstance(name, dict): return ...`` in an enclosing block
        child, cur = use, use.parent
        while cur is not None and not isinstance(cur, (nodes.Module, nodes.Lambda,
                                                       nodes.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(cur, field, None)
                if not isinstance(block, list) or not any(s is child for s in block):
                    continue
                for stmt in block:
                    if stmt is child:
                        break
                    if isinstance(stmt, nodes.If) and not stmt.orelse and \
                            not isinstance(stmt.test, nodes.UnaryOp) and \
                            _terminates(stmt.body, self) and precede(stmt):
                        out |= self._type_test_kinds(stmt.test, use.name)
            if isinstance(cur, nodes.FunctionDef):
                break
            child, cur = cur, cur.parent
        return frozenset(out)

    def _type_test_kinds(self, test: nodes.NodeNG, name: str) -> set[Kind]:
        """The value kinds ``test`` holds ``name`` to when it is true: a tensor test of the
        name (:meth:`_isinstance_tensor`: ``torch.Tensor`` among ``isinstance``'s types,
        ``torch.is_tensor(name)``, ``hasattr(name, "cpu")``), else ``isinstance(name, T)``
        or ``(T1, T2)`` for the types of :data:`CONTAINER_TYPES` and
        :data:`ABSTRACT_CONTAINERS`; else none."""
        if self._isinstance_tensor(test) == name:
            return {Kind.TENSOR}
        found = _isinstance_types(test)
        if found is None or found[0] != name:
            return set()
        out: set[Kind] = set()
        for k in found[1]:
            q = self.qualname(k) or (k.name if isinstance(k, nodes.Name) else "")
            if q in CONTAINER_TYPES:
                out.add(CONTAINER_TYPES[q])
            elif q.startswith(("collections", "typing")) and \
                    q.rsplit(".", 1)[-1] in ABSTRACT_CONTAINERS:
                out |= ABSTRACT_CONTAINERS[q.rsplit(".", 1)[-1]]
        return out

    def _tensor_test_subject(self, test: nodes.NodeNG) -> nodes.NodeNG | None:
        """The expression that ``test`` holds to be a tensor: ``isinstance(E,
        torch.Tensor)`` (``torch.nn.Parameter`` too, alone or among other types) or
        ``torch.is_tensor(E)``, of any expression ``E``; else None."""
        if not (isinstance(test, nodes.Call) and test.args and not test.keywords):
            return None
        f = test.func
        if isinstance(f, nodes.Name) and f.name == "isinstance" and len(test.args) == 2:
            types = test.args[1].elts if isinstance(test.args[1], nodes.Tuple) else \
                [test.args[1]]
            if any((self.qualname(k) or "") in ("torch.Tensor", "torch.nn.Parameter")
                   for k in types):
                return test.args[0]
            return None
        if len(test.args) == 1 and self.qualname(f) == "torch.is_tensor":
            return test.args[0]
        return None

    def _isinstance_tensor(self, test: nodes.NodeNG) -> str | None:
        """The name ``test`` narrows to a tensor (``isinstance(v, torch.Tensor)``,
        ``torch.is_tensor(v)``: :meth:`_tensor_test_subject` of a name), else None."""
        subject = self._tensor_test_subject(test)
        if isinstance(subject, nodes.Name):
            return subject.name
        if isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and \
                test.func.name == "hasattr" and len(test.args) == 2 and \
                isinstance(test.args[0], nodes.Name) and \
                const_str(test.args[1]) in TENSOR_ONLY_ATTRS:
            return test.args[0].name  # ``x.item() if hasattr(x, "item") else x``
        return None

    def _elts(self, elts: list[nodes.NodeNG], ctx: Ctx | None, d: int
              ) -> tuple[frozenset[Value], ...] | None:
        if any(isinstance(e, nodes.Starred) for e in elts):
            return None
        return tuple(self.value(e, ctx, d) for e in elts)

    @staticmethod
    def _const(value: object) -> frozenset[Value]:
        if value is None:
            return V.host("none")
        if isinstance(value, bool):
            return V.host("bool", text="True" if value else "False")
        if isinstance(value, (int, float, complex)):
            return V.host(type(value).__name__, text=str(value) if isinstance(value, int)
                          else None)
        if isinstance(value, str):
            return V.host("str", text=value if len(value) <= 80 else None)
        return V.host()

    def _shared_table(self, name: str, node: nodes.NodeNG) -> dict[int, Any]:
        """Memo table ``name``, keyed by node ids, of the tree that holds ``node`` (see
        :func:`syntax_cache`): this module's, or another module's for one of its nodes.
        An entry is only ever kept with its own node's tree, so that once a tree is freed
        no node that reuses one of its ids can find its entries."""
        root = node.root()
        return (self._shared if root is self.module else syntax_cache(root)).setdefault(
            name, {})

    # ------------------------------------------------------------------ names
    def bindings(self, name: nodes.Name) -> list[nodes.NodeNG]:
        """The binding nodes a Name may refer to (scope lookup plus loop-carried ones)."""
        key = id(name)
        bindings = self._shared_table("bindings", name)
        cached = bindings.get(key)
        if cached is not None:
            return cached
        try:
            out = _undominated(lookup(name), name)
        except Exception:  # noqa: BLE001 - astroid raises many kinds on odd code
            out = []
        frame = name.frame()
        cur = name.parent
        while cur is not None and cur is not frame:
            if isinstance(cur, COMPREHENSIONS) and any(
                    isinstance(t, nodes.AssignName) and t.name == name.name
                    for gen in cur.generators for t in nodes_of(gen.target, 
                        nodes.AssignName)):
                break  # the comprehension's own variable: nothing outside rebinds it
            if isinstance(cur, (nodes.For, nodes.While)):
                if self._killed_in_iteration(cur, name, out):
                    break
                for an in self._loop_assigns(cur).get(name.name, ()):
                    if an.lineno > name.lineno and an not in out:
                        out.append(an)
            cur = cur.parent
        bindings[key] = out
        return out

    def _loop_assigns(self, loop: nodes.NodeNG) -> dict[str, list[nodes.AssignName]]:
        """The names a loop's body assigns (nested scopes excluded), memoised per loop."""
        names = self._shared_table("loop_names", loop)
        table = names.get(id(loop))
        if table is None:
            table = {}
            for stmt in loop.body:
                for an in nodes_of(stmt, nodes.AssignName, skip_klass=SCOPES):
                    table.setdefault(an.name, []).append(an)
            names[id(loop)] = table
        return table

    @staticmethod
    def _killed_in_iteration(loop: nodes.For | nodes.While, use: nodes.Name,
                             reaching: list[nodes.NodeNG]) -> bool:
        if isinstance(loop, nodes.For) and any(
                isinstance(t, nodes.AssignName) and t.name == use.name
                for t in nodes_of(loop.target, nodes.AssignName)):
            return True
        first, last = loop.body[0].fromlineno, loop.body[-1].tolineno
        return any(isinstance(b, nodes.AssignName) and first <= b.lineno <= last
                   and b.lineno < use.lineno and b.frame() is use.frame() for b in reaching)

    def _overwritten_on_xla_path(self, use: nodes.Name, binds: list[nodes.NodeNG]
                                 ) -> list[nodes.NodeNG]:
        """``binds`` less those that a branch the XLA path always takes rebinds before the
        use: after ``if xm: outputs = outputs.cpu()``, ``outputs`` is the CPU copy on the
        XLA path (the parameter reaches the use only on another device's path). The
        branch's ``if`` must run on every path to the use: a statement of a block that
        holds the use, ended before it; the rebinding is a statement of the branch itself.
        """
        from flake8_xla.analysis.paths import xla_truth
        killers: list[nodes.If] = []
        for b in binds:
            if not isinstance(b, nodes.AssignName):
                continue
            stmt = b.statement()
            branch = stmt.parent
            if not isinstance(branch, nodes.If) or use.lineno <= (branch.tolineno or 0):
                continue
            taken = branch.body if stmt in branch.body else (
                branch.orelse if stmt in branch.orelse else None)
            if taken is None or not isinstance(stmt, (nodes.Assign, nodes.AnnAssign)):
                continue
            truth = xla_truth(branch.test, self)
            if truth is None or (taken is branch.body) is not truth:
                continue
            block = branch.parent
            if block is None or not any(a is block for a in use.node_ancestors()):
                continue
            killers.append(branch)
        if not killers:
            return binds
        kept = [b for b in binds if not any(
            b.lineno is not None and b.lineno < branch.fromlineno and
            not any(a is branch for a in b.node_ancestors()) for branch in killers)]
        return kept or binds

    @staticmethod
    def _fills_none(b: nodes.NodeNG, use: nodes.Name) -> bool:
        """``b`` is the one assignment in the body of an ``if <name> is None:`` (or ``if not
        <name>:``) that runs before ``use`` in the same function and does not hold it."""
        branch = _branch_before(b, use)
        if branch is None:
            return False
        test = branch.test
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            subject = test.operand
        elif isinstance(test, nodes.Compare) and len(test.ops) == 1 and \
                test.ops[0][0] in ("is", "==") and is_none(test.ops[0][1]):
            subject = test.left
        else:
            return False
        return isinstance(subject, nodes.Name) and subject.name == b.name

    def _converts_tensor(self, b: nodes.NodeNG, use: nodes.Name) -> bool:
        """``b`` is the one assignment in the body of an ``if isinstance(<name>,
        torch.Tensor):`` (also ``<name> is not None and isinstance(...)``) with no else,
        that runs before ``use`` in the same block: the other bindings reach ``use`` only
        when the name holds no tensor (``m = batch.get("mask")`` then ``if m is not None
        and isinstance(m, torch.Tensor): m = m.cpu()``)."""
        branch = _branch_before(b, use)
        if branch is None:
            return False
        test = branch.test
        parts = test.values if isinstance(test, nodes.BoolOp) and test.op == "and" else [test]
        tested = False
        for part in parts:
            subject = self._tensor_test_subject(part)
            if isinstance(subject, nodes.Name) and subject.name == b.name:
                tested = True
            elif not (isinstance(part, nodes.Compare) and len(part.ops) == 1 and
                      part.ops[0][0] == "is not" and is_none(part.ops[0][1]) and
                      isinstance(part.left, nodes.Name) and part.left.name == b.name):
                return False  # (another condition: false, the name may hold a tensor)
        return tested

    def _dead_none_default(self, b: nodes.NodeNG, ctx: Ctx) -> bool:
        """``b`` fills in a parameter's default (``if max_length is None: max_length =
        length.max()``) while the call followed in ``ctx`` passes that parameter a known
        value that is never None: the branch does not run there (VITS's
        ``sequence_mask(lengths, x.size(2))``). Only for a parameter that nothing else
        rebinds before the test."""
        if not isinstance(b, nodes.AssignName):
            return False
        func = ctx.func
        cur, child = b.parent, b
        while cur is not None and cur is not func:
            if isinstance(cur, nodes.If) and child in cur.body:
                test = cur.test
                if isinstance(test, nodes.Compare) and len(test.ops) == 1 and \
                        test.ops[0][0] == "is" and is_none(test.ops[0][1]) and \
                        isinstance(test.left, nodes.Name) and test.left.name == b.name:
                    given = ctx.arg(b.name)
                    if given is None or not given or any(
                            v.kind is Kind.UNKNOWN or v.kind is Kind.HOST and v.qual == "none"
                            for v in given):
                        return False
                    # (every binding of the name: the parameter, or inside this branch)
                    return all(isinstance(x, nodes.Arguments) or
                               isinstance(x, nodes.AssignName) and (
                                   isinstance(x.parent, nodes.Arguments) or cur.parent_of(x))
                               for x in self.bindings(test.left))
            child, cur = cur, cur.parent
        return False

    def _name(self, node: nodes.Name, ctx: Ctx | None, d: int) -> frozenset[Value]:
        q = self.qualname(node)
        binds = self.bindings(node)
        if q is not None and (not binds or all(isinstance(b, (nodes.Import, nodes.ImportFrom))
                                               for b in binds)):
            return self.ref(q, node, d)
        if not binds:
            return UNKNOWN_SET
        if len(binds) > 1:
            # A value assigned only off the XLA path (``else: log_loss += loss``) never
            # reaches the use on the XLA path.
            from flake8_xla.analysis.paths import off_xla_path
            on_path = [b for b in binds if not (isinstance(b, OFF_PATH_BINDINGS) and
                                                off_xla_path(b, self))]
            if on_path:
                binds = self._overwritten_on_xla_path(node, on_path)
            if ctx is not None and len(binds) > 1:
                binds = [b for b in binds if not self._dead_none_default(b, ctx)] or binds
        # ``if device is None: device = torch_xla.device()`` before the use: the other
        # bindings reach it only when they are not None
        filled = [b for b in binds if self._fills_none(b, node)] if len(binds) > 1 else []
        # ``if isinstance(m, torch.Tensor): m = m.cpu()`` before the use: the other bindings
        # reach it only when they hold no tensor
        converted = [b for b in binds if self._converts_tensor(b, node)] \
            if len(binds) > 1 else []
        # (only the bindings before that branch: one after it holds what it holds)
        before = min(b.parent.parent.fromlineno for b in converted) if converted else 0
        stripped = [b for b in binds if converted and b not in converted and
                     b.lineno is not None and b.lineno < before]
        value = join(*(self.binding_value(b, node, ctx, d) if not filled or b in filled else
                       frozenset(v for v in self.binding_value(b, node, ctx, d)
                                 if not (v.kind is Kind.HOST and v.qual == "none"))
                       for b in binds if b not in stripped), *(
            frozenset(v for v in self.binding_value(b, node, ctx, d)
                      if v.kind is not Kind.TENSOR)
            for b in stripped))
        if V.any_kind(value, Kind.TENSOR) and self._narrowed_to_host(node):
            value = frozenset(v for v in value if v.kind is not Kind.TENSOR) or V.host()
        if V.any_kind(value, Kind.TENSOR, Kind.DICT, Kind.LIST, Kind.TUPLE):
            ruled_out = self._kinds_ruled_out(node, binds)
            if ruled_out:
                value = frozenset(v for v in value if v.kind not in ruled_out) or UNKNOWN_SET
        if not V.is_known(value):
            used = self._usage_kind(node.frame(), node.name)
            if used is None:
                used = self._sibling_call_result(binds)
            if used is not None:
                # (the bindings whose value is known keep it: ``model = Net().to(dev)``
                # beside ``else: model = xm.load(path)``)
                value = join(frozenset(v for v in value if v.kind is not Kind.UNKNOWN), used)
                if self._external_result(binds):
                    # ``opt = nxd.initialize_parallel_optimizer(...)``: an object of a
                    # library we do not model, which may wrap what its kind implies.
                    value = frozenset(replace(v, flags=v.flags | {"external"}) for v in value)
        if V.any_kind(value, Kind.MODULE):
            moved = self._inplace_move(node, ctx, d)
            if moved is not None:
                value = frozenset(v.with_(device=moved[0]) if v.kind is Kind.MODULE else v
                                  for v in value)
            elif any(v.kind is Kind.MODULE and v.device is None for v in value) and \
                    self._moved_later(node, ctx, d):
                # ``torch.save(model.state_dict(), init_path)`` before ``model.to(device)``:
                # not on the device yet, wherever it was built
                value = frozenset(v.with_(device=V.ANY_DEVICE) if v.kind is Kind.MODULE and
                                  v.device is None else v for v in value)
        moves = self._item_moves if self._item_moves is not None else self._item_move_table()
        if moves and V.any_kind(value, Kind.TENSOR, Kind.DICT, Kind.LIST):
            moved = self._items_moved(node, ctx, d)
            if moved is not None:
                value = V.move_device(value, moved[0])
        return value

    def _items_moved(self, use: nodes.Name, ctx: Ctx | None, d: int
                     ) -> tuple[str | None] | None:
        """The device of the last loop before ``use`` in its function that moves every
        element of the container in place: ``for k, v in batch.items(): batch[k] =
        v.to(dev)`` (also over ``batch``, ``batch.keys()`` or ``range(len(batch))``).
        The loop stores each item back moved, so the container holds them on ``dev``
        afterwards, as ``{k: v.to(dev) for k, v in batch.items()}`` would."""
        moves = self._item_move_table().get((id(use.frame()), use.name))
        if not moves:
            return None
        best: tuple[int, str | None] | None = None
        for loop, call in moves:
            if loop.tolineno >= use.lineno:
                continue
            moved = self._move_target(call, ctx, d)
            if moved is None:
                continue
            dev = moved[0]
            if best is None or loop.lineno > best[0]:
                best = (loop.lineno, dev)
        return (best[1],) if best is not None else None

    def _item_move_table(self) -> dict[tuple[int, str], list[tuple[nodes.For, nodes.Call]]]:
        """``(id(frame), name) -> [(loop, move call)]`` for the module's statements
        ``name[k] = <expr>.to(...)``/``.cpu()``/``.cuda()`` in the body of a ``for`` loop
        over the keys of ``name`` (syntax only, one walk per module)."""
        table = self._item_moves
        if table is None:
            table = {}
            for stmt in self.module_nodes(nodes.Assign):
                target = stmt.targets[0]
                if not (len(stmt.targets) == 1 and isinstance(target, nodes.Subscript) and
                        isinstance(target.value, nodes.Name) and
                        isinstance(stmt.value, nodes.Call) and
                        isinstance(stmt.value.func, nodes.Attribute) and
                        stmt.value.func.attrname in ("to", "cpu", "cuda")):
                    continue
                loop = stmt.parent
                if isinstance(loop, nodes.For) and stmt in loop.body and \
                        iterates_keys_of(loop.iter, target.value.name):
                    table.setdefault((id(loop.frame()), target.value.name), []).append(
                        (loop, stmt.value))
            self._item_moves = table
        return table

    def _move_target(self, call: nodes.Call, ctx: Ctx | None, d: int
                     ) -> tuple[str | None] | None:
        """The device ``x.to(dev)``/``x.cpu()``/``x.cuda()`` moves to (``.to`` of a dtype
        moves nothing: None)."""
        if call.func.attrname != "to":
            return (call.func.attrname,)
        from flake8_xla.analysis.specs import device_value
        dev_node = keyword(call, "device") or (call.args[0] if call.args else None)
        is_dev, dev = device_value(self, dev_node, ctx, d)
        return (dev,) if is_dev else None

    def _inplace_move(self, use: nodes.Name | nodes.Attribute, ctx: Ctx | None, d: int
                      ) -> tuple[str | None] | None:
        """The device of the last ``name.to(dev)``/``.cpu()`` statement before ``use``
        (a name, or a dotted attribute such as ``self.model``) in its function.

        ``nn.Module.to()`` moves the module in place, so a statement moves the object
        that every name bound to it refers to.
        """
        key = use.name if isinstance(use, nodes.Name) else source_key(use)
        if key is None:
            return None
        best: tuple[int, str | None] | None = None
        for call in self._move_statements(use.frame(), key):
            if call.lineno >= use.lineno:
                continue
            moved = self._move_target(call, ctx, d)
            if moved is None:
                continue
            dev = moved[0]
            if best is None or call.lineno > best[0]:
                best = (call.lineno, dev)
        return (best[1],) if best is not None else None

    def _moved_later(self, use: nodes.Name, ctx: Ctx | None, d: int) -> bool:
        """A ``name.to(device)`` statement of ``use``'s function moves the module after
        ``use``, and no loop of the function holds both (a later iteration would see it
        moved)."""
        frame = use.frame()
        loops = {id(lp) for lp in _loops_around(use, frame)}
        return any(call.func.attrname == "to" and call.lineno > use.lineno and
                   not any(id(lp) in loops for lp in _loops_around(call, frame)) and
                   self._move_target(call, ctx, d) is not None
                   for call in self._move_statements(frame, use.name))

    def _move_statements(self, frame: nodes.NodeNG, key: str) -> list[nodes.Call]:
        """The statements of ``frame``'s own body that move ``key`` (a name or a dotted
        attribute) in place: ``key.to(...)``, ``.cpu()``, ``.cuda()``, ``.xla()``."""
        return [call for call, moved in self._in_place_moves(frame) if moved == key]

    def _in_place_moves(self, frame: nodes.NodeNG) -> list[tuple[nodes.Call, str | None]]:
        """``(call, key)`` for each statement of ``frame``'s own body that moves a name or a
        dotted attribute in place (``key.to(...)``, ``.cpu()``, ``.cuda()``, ``.xla()``),
        with that name's dotted key."""
        return [(call, source_key(call.func.expr)) for call in self.module_calls_in(frame)
                if isinstance(call.parent, nodes.Expr) and
                isinstance(call.func, nodes.Attribute) and
                call.func.attrname in ("to", "cpu", "cuda", "xla") and
                isinstance(call.func.expr, (nodes.Name, nodes.Attribute))]

    def module_calls_in(self, frame: nodes.NodeNG) -> list[nodes.Call]:
        """The calls of ``frame``'s own body (memoised per frame)."""
        return self.own_nodes(frame, nodes.Call)

    def own_nodes(self, frame: nodes.NodeNG, klass: type | tuple[type, ...]
                  ) -> list[nodes.NodeNG]:
        """The nodes of ``klass`` in ``frame``'s own code (nested functions, lambdas and
        classes excluded, though their own nodes are listed), in pre-order; one walk per
        frame, a filtered list per class, both memoised."""
        frames = self._shared_table("frame_calls", frame)
        index = frames.get(id(frame))
        if index is None:
            order: list[nodes.NodeNG] = []
            stack = list(reversed(list(frame.get_children())))
            while stack:
                node = stack.pop()
                order.append(node)
                if not isinstance(node, SCOPES):
                    stack.extend(reversed(list(node.get_children())))
            index = frames[id(frame)] = {"": order}
        found = index.get(klass)
        if found is None:
            found = index[klass] = [n for n in index[""] if isinstance(n, klass)]
        return found

    def binding_value(self, b: nodes.NodeNG, use: nodes.NodeNG | None, ctx: Ctx | None,
                      d: int) -> frozenset[Value]:
        """The value a binding node gives the name it binds."""
        if self.link is not None and self.link.multi and b.root() is not self.module:
            return self.link.foreign_binding(b, use, ctx, d)
        if isinstance(b, (nodes.Import, nodes.ImportFrom)):
            q = QualNames.import_qualname(b, use.name) if isinstance(use, nodes.Name) else None
            return self.ref(q, use, d) if q else UNKNOWN_SET
        if isinstance(b, nodes.FunctionDef):
            return one(Kind.FUNCTION, node=b)
        if isinstance(b, nodes.ClassDef):
            return one(Kind.CLASS, node=b)
        if isinstance(b, nodes.Arguments) and isinstance(use, nodes.Name) and \
                use.name in (b.vararg, b.kwarg):
            # ``*args`` / ``**kwargs``: what the call in ``ctx`` passed, else a container
            found = ctx.lookup(b.parent) if ctx is not None else None
            bound = found.arg(use.name) if found is not None else None
            if bound is not None:
                return bound
            if found is None:
                passed = self._star_param(b.parent, use.name, d)
                if passed is not None:
                    return passed
            return one(Kind.LIST, elem=UNKNOWN_SET) if use.name == b.vararg else one(
                Kind.DICT, items=(), elem=UNKNOWN_SET)
        if not isinstance(b, (nodes.AssignName, nodes.AssignAttr)):
            return UNKNOWN_SET
        stmt = b.assign_type() if isinstance(b, nodes.AssignName) else b.parent
        while isinstance(stmt, (nodes.Tuple, nodes.List, nodes.Starred)):
            stmt = stmt.parent
        if isinstance(stmt, nodes.Arguments):
            return self._with_keys_stored(b, use, self.param_value(b, ctx, d), d)
        if isinstance(stmt, (nodes.Assign, nodes.AnnAssign)):
            if stmt.value is None:
                return UNKNOWN_SET
            value = self.value(stmt.value, ctx, d)
            path = target_path(b, stmt) or []
            if not path and isinstance(b, nodes.AssignName) and not isinstance(
                    stmt.value, (nodes.Dict, nodes.List, nodes.Set)):
                # (a literal's own additions: see _with_mutations)
                return self._with_keys_stored(b, use, value, d)
            return self.project(value, path, d)
        if isinstance(stmt, nodes.AugAssign):
            before = EMPTY
            if isinstance(b, nodes.AssignName):
                try:
                    _, prior = b.lookup(b.name)
                except Exception:  # noqa: BLE001
                    prior = []
                # an earlier ``+=`` of the name (``loss = 0.0``, ``loss += l`` in a loop,
                # then ``loss /= n``) through the memoised, cycle-safe value of its target
                before = join(*(self.value(p, ctx, d) if isinstance(p, nodes.AssignName) and
                                isinstance(p.parent, nodes.AugAssign)
                                else self.binding_value(p, use, ctx, d)
                                for p in prior if p is not b))
            return self._arith(before, self.value(stmt.value, ctx, d), stmt.op.rstrip("="))
        if isinstance(stmt, (nodes.For, nodes.Comprehension)):
            if isinstance(stmt, nodes.Comprehension) and stmt.ifs:
                kept = self._items_by_key(stmt, b, ctx, d)
                if kept is not None:
                    return kept
            element = self.iterate(self.value(stmt.iter, ctx, d), d)
            return self.project(element, target_path(b, stmt) or [], d)
        if isinstance(stmt, nodes.With):
            for expr, var in stmt.items:
                if var is not None and (var is b or b in nodes_of(var, type(b))):
                    entered = self.value(expr, ctx, d)
                    path = target_path(b, stmt) if var is not b else []
                    return self.project(entered, path or [], d)
            return UNKNOWN_SET
        if isinstance(stmt, nodes.NamedExpr):
            return self.value(stmt.value, ctx, d)
        if isinstance(stmt, nodes.ExceptHandler):
            return V.host("exception")
        return UNKNOWN_SET

    def _items_by_key(self, comp: nodes.Comprehension, b: nodes.NodeNG, ctx: Ctx | None,
                      d: int) -> frozenset[Value] | None:
        """The key or value that ``b`` binds in ``for k, v in info.items() if k != "loss"``
        of a dict whose keys are all known: only the entries whose key passes the
        comprehension's tests of ``k`` against string constants (``==``, ``!=``, ``in``,
        ``not in``). None when the comprehension is not of that form."""
        it, target = comp.iter, comp.target
        if not (isinstance(it, nodes.Call) and isinstance(it.func, nodes.Attribute) and
                it.func.attrname == "items" and not it.args and not it.keywords and
                isinstance(target, nodes.Tuple) and len(target.elts) == 2 and
                all(isinstance(e, nodes.AssignName) for e in target.elts)):
            return None
        key_name = target.elts[0].name
        tests: list[tuple[str, frozenset[str]]] = []
        for cond in comp.ifs:
            if isinstance(cond, nodes.Compare) and len(cond.ops) == 1 and \
                    isinstance(cond.left, nodes.Name) and cond.left.name == key_name:
                op, right = cond.ops[0]
                if op in ("==", "!=") and const_str(right) is not None:
                    tests.append((op, frozenset({const_str(right)})))  # type: ignore[arg-type]
                elif op in ("in", "not in") and isinstance(
                        right, (nodes.Tuple, nodes.List, nodes.Set)) and right.elts and \
                        all(const_str(e) is not None for e in right.elts):
                    tests.append((op, frozenset(const_str(e) for e in right.elts)))  # type: ignore[misc]
        if not tests:
            return None
        dicts = self.value(it.func.expr, ctx, d)
        if not dicts or any(v.kind is not Kind.DICT or v.items is None or v.elem is not None
                            for v in dicts):
            return None  # (a dict whose entries are not all known)

        def kept(key: str) -> bool:
            return all((key in names) == (op in ("==", "in")) for op, names in tests)

        entries = [(k, vs) for v in dicts for k, vs in v.items or () if kept(k)]
        if b is target.elts[0]:
            return join(*(V.host("str", text=k) for k, _ in entries))
        return join(*(vs for _, vs in entries))

    def project(self, value: frozenset[Value], path: list[int | str], d: int
                ) -> frozenset[Value]:
        """The part of ``value`` at ``path`` (tuple positions from :func:`target_path`)."""
        for step in path:
            if step == "*":
                value = one(Kind.LIST, elem=self.iterate(value, d))
                continue
            value = self.element(value, int(step), d)
        return value

    def element(self, vs: frozenset[Value], index: int, d: int) -> frozenset[Value]:
        """Element ``index`` of a value being unpacked.

        Beside a tuple or list of known items, a value that Python cannot unpack (a
        model, an optimizer, a number: ``g, d = create_model(cfg)`` where the function
        returns ``g.eval()`` on another path) raises there, so the unpacking runs only
        with the tuple: that value adds nothing."""
        if any(v.kind in (Kind.TUPLE, Kind.LIST) and v.elts is not None for v in vs):
            vs = frozenset(v for v in vs if not _never_unpacked(v))
        out = []
        for v in vs:
            if v.kind in (Kind.TUPLE, Kind.LIST) and v.elts is not None:
                out.append(v.elts[index] if 0 <= index < len(v.elts) else UNKNOWN_SET)
            elif v.kind in (Kind.TENSOR, Kind.HOST):
                out.append(frozenset({v.with_(flags=v.flags - {"bool"})}))
            else:
                out.append(self.iterate(frozenset({v}), d))
        return join(*out)

    # ------------------------------------------------------------------ parameters
    def param_value(self, b: nodes.AssignName, ctx: Ctx | None, d: int) -> frozenset[Value]:
        """The value of a function parameter, from ``ctx`` or from its call sites."""
        args = b.parent
        while not isinstance(args, nodes.Arguments):
            args = args.parent
        func = args.parent
        if ctx is not None:
            found = ctx.lookup(func)
            if found is not None:
                bound = found.arg(b.name)
                return bound if bound is not None else self._default(func, b.name, d)
        key = (id(func), b.name)
        if key in self._param_memo:
            level = self._param_busy.get(key)
            if level is not None:
                # in progress: a cycle through the call sites, as for value() (what the
                # nodes between here and its start compute is partial, not memoised)
                self._cycle_low = min(self._cycle_low, level)
            return self._param_memo[key]
        self._param_memo[key] = EMPTY  # in progress
        self._param_busy[key] = len(self._busy)
        try:
            self._param_memo[key] = self._free_param(func, b, d)
        finally:
            del self._param_busy[key]
        return self._param_memo[key]

    def _star_param(self, func: nodes.NodeNG, name: str, d: int) -> frozenset[Value] | None:
        """What the project's call sites pass for ``*args`` or ``**kwargs`` (``name``) of
        ``func``, outside any caller's context (``def save_on_master(*args, **kwargs):
        torch.save(*args, **kwargs)`` called as ``save_on_master(state, path)``); None when
        no call site is known (memoised)."""
        key = (id(func), "*" + name)
        if key in self._param_memo:
            return self._param_memo[key] or None
        self._param_memo[key] = EMPTY  # in progress
        if not isinstance(func, (nodes.FunctionDef, nodes.Lambda)):
            return None
        found: list[frozenset[Value]] = []
        sites = self.passing_sites(func)
        for call, bound_self in sites[:MAX_SITES]:
            bound = self.ctx_for_values(
                func, self.call_arguments(call, None, d), None, 1, d,
                UNKNOWN_SET if bound_self else None).arg(name)
            if bound is not None:
                found.append(bound)
        if len(sites) > MAX_SITES:
            found.append(UNKNOWN_SET)
        node = func.args.vararg_node if name == func.args.vararg else func.args.kwarg_node
        if self.link is not None and node is not None:
            found.extend(self.link.param_values(self, func, node, d))
        result = join(*found) if found else EMPTY
        self._param_memo[key] = result
        return result or None

    def forward_inputs(self, func: nodes.FunctionDef, klass: nodes.ClassDef,
                       param: nodes.AssignName, d: int) -> list[frozenset[Value]]:
        """What calls of instances of ``klass`` (a torch module class of this module) pass
        for ``param`` of its ``forward``: ``model(ids, labels)`` in this module
        (:meth:`module_calls`) and, with the project link, in the modules that build the
        class (:meth:`~flake8_xla.project.link.Session.forward_inputs`). One value set per
        call, at most ``MAX_SITES`` of them and one unknown beyond."""
        found = self._site_values(
            func, [(call, True) for call in self.module_calls(klass, func)], param.name, d)
        if self.link is not None and isinstance(klass.parent, nodes.Module):
            found.extend(self.link.forward_inputs(self, func, klass, param, d))
        return found

    def _site_values(self, func: nodes.NodeNG, sites: list[tuple[nodes.Call, bool]],
                     name: str, d: int) -> list[frozenset[Value]]:
        """:meth:`passed_value` of parameter ``name`` at each of ``sites`` (``(call, self
        bound)``), at most ``MAX_SITES`` of them and one unknown beyond."""
        found = [self.passed_value(func, call, name, bound, d)
                 for call, bound in sites[:MAX_SITES]]
        if len(sites) > MAX_SITES:
            found.append(UNKNOWN_SET)
        return found

    def passed_value(self, func: nodes.NodeNG, call: nodes.Call, name: str, bound_self: bool,
                     d: int) -> frozenset[Value]:
        """The value ``call`` passes for parameter ``name`` of ``func`` (evaluated in this
        module, no context): its argument, the parameter's default, or unknown when
        ``*args``/``**kwargs`` may pass it."""
        arg = self.site_argument(func, call, name, bound_self)
        if arg is None:
            return self._default(func, name, d)
        if arg is UNKNOWN_SET:
            return UNKNOWN_SET
        return self.value(arg, None, d)

    def module_calls(self, klass: nodes.ClassDef, forward: nodes.FunctionDef
                     ) -> list[nodes.Call]:
        """Calls of this module whose callee is an instance of ``klass`` (or of a class
        that runs the same ``forward``): ``model(x)``, ``self.encoder(x)``. Only calls of a
        name or of an attribute that no class of the module defines as a method and no
        import names are evaluated. Memoised per class."""
        key = id(klass)
        held = self._module_calls_memo.get(key)
        if held is not None:
            return held
        self._module_calls_memo[key] = []  # in progress
        methods = self._method_names()
        found: list[nodes.Call] = []
        for call in self.module_nodes(nodes.Call):
            f = call.func
            if isinstance(f, nodes.Attribute):
                if f.attrname in methods or self.qualname(f) is not None:
                    continue
            elif not isinstance(f, nodes.Name) or self.qualname(f) is not None or any(
                    isinstance(b, (nodes.FunctionDef, nodes.ClassDef))
                    for b in self.bindings(f)):
                continue
            if any(v.kind in (Kind.MODULE, Kind.OBJECT) and isinstance(v.node, nodes.ClassDef)
                   and (v.node is klass or self.method_of(v.node, "forward") is forward)
                   for v in self.value(f, None)):
                found.append(call)
        self._module_calls_memo[key] = found
        return found

    def _params(self, func: nodes.NodeNG) -> list[str]:
        a = func.args
        return [p.name for p in (a.posonlyargs or []) + (a.args or [])]

    def _default(self, func: nodes.NodeNG, name: str, d: int) -> frozenset[Value]:
        a = func.args
        positional = (a.posonlyargs or []) + (a.args or [])
        defaults = list(a.defaults or [])
        offset = len(positional) - len(defaults)
        for i, p in enumerate(positional):
            if p.name == name and i >= offset:
                return self.value(defaults[i - offset], None, d)
        for p, default in zip(a.kwonlyargs or [], a.kw_defaults or []):
            if p.name == name and default is not None:
                return self.value(default, None, d)
        if a.vararg == name:
            return one(Kind.LIST, elem=UNKNOWN_SET)
        if a.kwarg == name:
            return one(Kind.DICT, items=(), elem=UNKNOWN_SET)
        return UNKNOWN_SET

    def _annotation(self, func: nodes.NodeNG, name: str) -> frozenset[Value] | None:
        a = func.args
        params = (a.posonlyargs or []) + (a.args or []) + (a.kwonlyargs or [])
        anns = (a.posonlyargs_annotations or []) + (a.annotations or []) + \
            (a.kwonlyargs_annotations or [])
        for p, ann in zip(params, anns):
            if p.name == name and ann is not None:
                # Optional[X] / X | None: X
                if isinstance(ann, nodes.Subscript) and (self.qualname(ann.value) or "").endswith(
                        "Optional"):
                    ann = ann.slice
                elif isinstance(ann, nodes.BinOp) and ann.op == "|":
                    ann = ann.left if not (isinstance(ann.left, nodes.Const) and
                                           ann.left.value is None) else ann.right
                if isinstance(ann, nodes.Const) and isinstance(ann.value, str):
                    text = ann.value.replace("Optional[", "").rstrip("]").split("|")[0].strip()
                    q = {"torch.Tensor": "torch.Tensor", "Tensor": "torch.Tensor"}.get(text, text)
                    if q in ("int", "float", "str", "bool"):
                        return V.host(q)
                    if q == "torch.Tensor":
                        return V.tensor()
                    return None
                q = self.qualname(ann) or ""
                if q == "torch.Tensor":
                    return V.tensor()
                if q in ("torch.nn.Module", "torch.nn.modules.module.Module"):
                    return one(Kind.MODULE, qual=q)
                if q == "torch.utils.data.DataLoader":
                    return one(Kind.LOADER, qual=q, flags=frozenset({"plain"}))
                if q in ("int", "float", "str", "bool"):
                    return V.host(q)
                entry = self.api.call(q) if q else None
                if entry is not None and (entry.returns or "").startswith("framework:"):
                    # ``fabric: L.Fabric``: an instance of a framework class the API model
                    # describes (its methods, such as ``to_device``, are then known)
                    return one(Kind.FRAMEWORK, qual=entry.returns.partition(":")[2])
        return None

    def _free_param(self, func: nodes.NodeNG, b: nodes.AssignName, d: int
                    ) -> frozenset[Value]:
        name = b.name
        params = self._params(func)
        klass = enclosing_class(func) if isinstance(func, nodes.FunctionDef) else None
        is_static = is_staticmethod(func)
        if klass is not None and not is_static and params and params[0] == name:
            if name == "cls" or is_classmethod(func):
                return one(Kind.CLASS, node=klass)
            return self.instance(klass, open_=True)
        from flake8_xla.analysis import hooks
        hooked = hooks.param_value(self, func, name, d)
        if hooked is not None:
            return hooked
        found: list[frozenset[Value]] = []
        sites = self.passing_sites(func)
        found.extend(self._site_values(func, sites, name, d))
        # what call sites in other modules of the project pass, and the functions a
        # decorator wraps (``@timed def step(...)``: ``fn`` of ``def timed(fn)``)
        remote = self.link.param_values(self, func, b, d) if self.link is not None else []
        remote = [*remote, *self._decorated_by(func, name), *self._partial_bound(func, name, d)]
        found.extend(remote)
        if not sites and not remote and klass is not None and (
                func.name == "forward" and self.class_kind(klass) is Kind.MODULE or
                func.name == "__call__" and self.class_kind(klass) is not Kind.MODULE):
            # ``model(ids, labels)``: a module's call runs its forward with those inputs;
            # ``es(score, model)`` of ``es = EarlyStopping()`` (here or in another module
            # that builds one) runs ``__call__`` with them
            remote = self.forward_inputs(func, klass, b, d)
            found.extend(remote)
        if not sites and not remote:
            ann = self._annotation(func, name)
            default = self._default(func, name, d)
            if ann is not None:
                found.append(ann)
                if default is not UNKNOWN_SET and all(
                        v.kind is Kind.HOST and v.qual == "none" for v in default):
                    # ``resume: str = None`` (or ``typer.Option(None)``): a run that
                    # passes nothing gets the default, whatever the annotation says
                    found.append(default)
            elif default is not UNKNOWN_SET:
                found.append(default)
        result = join(*found) if found else UNKNOWN_SET
        if not V.is_known(result):
            used = self._usage_kind(func, name)
            if used is not None:
                result = join(*(s for s in [result] if V.is_known(s)), used) if \
                    V.is_known(result) else used
        return result

    def _partial_bound(self, func: nodes.NodeNG, name: str, d: int
                       ) -> list[frozenset[Value]]:
        """What ``functools.partial(func, ..., name=value)`` calls of this module bind to
        parameter ``name`` (by keyword, or by position after the function): the value a
        call of the partial passes there (``collate_fn=partial(collate,
        tokenizer=tokenizer)``, run by the DataLoader, which this module never calls)."""
        if not isinstance(func, nodes.FunctionDef):
            return []
        from flake8_xla.analysis.hooks import is_partial
        params = self._params(func)
        found: list[frozenset[Value]] = []
        for call in self.calls_named("partial"):
            if not call.args or not is_partial(self, call) or not any(
                    v.kind is Kind.FUNCTION and v.node is func
                    for v in self.value(call.args[0], None, d)):
                continue
            given = keyword(call, name)
            if given is None and name in params:
                at = params.index(name) + 1
                given = call.args[at] if at < len(call.args) and not any(
                    isinstance(a, nodes.Starred) for a in call.args[:at + 1]) else None
            if given is not None:
                found.append(self.value(given, None, d))
        return found

    def _decorated_by(self, func: nodes.NodeNG, name: str) -> list[frozenset[Value]]:
        """The functions that ``func`` decorates (``@timed`` on ``def train_step``, in this
        module or, through the project link, in a module that imports it), as the value
        of its first parameter ``name``, when ``func`` is a wrapping decorator (see
        :func:`wrapper_inside`); else nothing."""
        if not isinstance(func, nodes.FunctionDef) or wrapper_inside(func) is None or \
                self._params(func)[:1] != [name]:
            return []
        # (``raw``: the function itself, which calling runs; not its wrapper again)
        raw = frozenset({"raw"})
        found = [one(Kind.FUNCTION, node=f, flags=raw) for f in _decorated_with(self, func)]
        if self.link is not None:
            found += [one(Kind.FUNCTION, node=f, flags=raw)
                      for f in self.link.decorated_with(self, func)]
        return found

    def wrapper_of(self, func: nodes.NodeNG) -> nodes.FunctionDef | None:
        """The function a call of ``func`` runs in its place: the wrapper that a wrapping
        decorator of the project returns (``def timed(fn): def wrapper(*a, **k): ... return
        wrapper`` on ``@timed def step``); None when no decorator of ``func`` is one, or
        several are (memoised per function)."""
        if not isinstance(func, nodes.FunctionDef) or func.decorators is None or \
                self._indexing:
            return None  # (while the call index is built, a call site names the function)
        if func.root() is not self.module:
            home = self.link.evaluator_of(func) if self.link is not None else None
            return home.wrapper_of(func) if home is not None and home is not self else None
        key = id(func)
        if key in self._wrappers:
            return self._wrappers[key]
        self._wrappers[key] = None  # (in progress)
        found = []
        for dec in func.decorators.nodes:
            if isinstance(dec, (nodes.Name, nodes.Attribute)):
                for v in self.value(dec):
                    if v.kind is Kind.FUNCTION and isinstance(v.node, nodes.FunctionDef):
                        inner = wrapper_inside(v.node)
                        if inner is not None:
                            found.append(inner)
        result = found[0] if len(found) == 1 else None
        self._wrappers[key] = result
        return result

    def site_argument(self, func: nodes.NodeNG, call: nodes.Call, name: str,
                      bound_self: bool) -> nodes.NodeNG | frozenset[Value] | None:
        """The expression ``call`` passes for parameter ``name`` of ``func``.

        None when the parameter takes its default; UNKNOWN_SET when ``*args`` or
        ``**kwargs`` may pass it.
        """
        params = self._params(func)
        if bound_self and params:
            params = params[1:]
        for kw in call.keywords or ():
            if kw.arg == name:
                return kw.value
        if name in params:
            idx = params.index(name)
            for i, a in enumerate(call.args):
                if isinstance(a, nodes.Starred):
                    return UNKNOWN_SET if i <= idx else None
                if i == idx:
                    return a
        if any(kw.arg is None for kw in call.keywords or ()):
            return UNKNOWN_SET
        if func.args.vararg == name:
            return None
        return None

    def _external_result(self, binds: list[nodes.NodeNG]) -> bool:
        """A binding assigns the result of a call into an imported library outside torch."""
        for b in binds:
            parent = b.parent
            if isinstance(b, nodes.AssignName) and isinstance(parent, nodes.Assign) and \
                    isinstance(parent.value, nodes.Call):
                q = self.qualname(parent.value.func)
                if q is not None and "." in q and not q.startswith(("torch.", "torch_xla.")):
                    return True
        return False

    def _sibling_call_result(self, binds: list[nodes.NodeNG]) -> frozenset[Value] | None:
        """A tensor, when every binding is ``name = self.attr(...)`` of an unknown callable
        whose result another method of the class shows to be a tensor: ``loss =
        self.loss(prediction, target)`` in ``val_step`` beside ``loss = self.loss(...)``
        then ``loss.backward()`` in ``train_step`` (a loss function set up by a framework).
        None otherwise (memoised per class and callee)."""
        keys: set[str] = set()
        klass: nodes.ClassDef | None = None
        for b in binds:
            stmt = b.parent
            if not (isinstance(b, nodes.AssignName) and isinstance(stmt, nodes.Assign) and
                    len(stmt.targets) == 1 and isinstance(stmt.value, nodes.Call) and
                    isinstance(stmt.value.func, nodes.Attribute)):
                return None
            key = source_key(stmt.value.func)
            if key is None or not key.startswith("self.") or key.count(".") != 1:
                return None
            keys.add(key)
            klass = enclosing_class(b.frame())
        if len(keys) != 1 or klass is None:
            return None
        (key,) = keys
        memo = self.__dict__.setdefault("_sibling_results", {})
        mkey = (id(klass), key)
        if mkey not in memo:
            memo[mkey] = None  # (in progress)
            if any(len(stmt.targets) == 1 and isinstance(stmt.targets[0], nodes.AssignName) and
                   isinstance(stmt.value, nodes.Call) and source_key(stmt.value.func) == key and
                   V.any_kind(self._usage_kind(method, stmt.targets[0].name) or EMPTY,
                              Kind.TENSOR)
                   for method in klass.body if isinstance(method, nodes.FunctionDef)
                   for stmt in self.own_nodes(method, nodes.Assign)):
                memo[mkey] = V.tensor()
        return memo[mkey]

    def _usage_kind(self, func: nodes.NodeNG, name: str) -> frozenset[Value] | None:
        """What a name of unknown value is, by how ``func`` uses it (memoised)."""
        key = (id(func), "usage:" + name)
        if key not in self._param_memo:
            found = self._usage_kind_of(func, name)
            self._param_memo[key] = found if found is not None else EMPTY
        found = self._param_memo[key]
        return found or None

    def _attribute_uses(self, func: nodes.NodeNG) -> dict[str, tuple[set[str], bool]]:
        """``key -> (attribute names used on it, moved in place)`` for the dotted keys of
        ``func`` (nested functions included), built in one walk per function."""
        uses = self._shared_table("uses", func)
        table = uses.get(id(func))
        if table is None:
            table = {}
            for node in nodes_of(func, nodes.Attribute):
                key = source_key(node.expr)
                if key is None:
                    continue
                attrs, moved = table.get(key, (set(), False))
                attrs.add(node.attrname)
                call = node.parent
                if node.attrname in ("to", "cuda", "cpu") and isinstance(call, nodes.Call) and \
                        call.func is node and isinstance(call.parent, nodes.Expr):
                    moved = True  # only a module moves in place: a tensor's .to() copies
                table[key] = (attrs, moved)
            uses[id(func)] = table
        return table

    def _called_keys(self, func: nodes.NodeNG) -> frozenset[str]:
        """Dotted keys of the function that are called directly (``model(x)``)."""
        called = self._shared_table("called", func)
        found = called.get(id(func))
        if found is None:
            found = frozenset(k for c in nodes_of(func, nodes.Call)
                              if (k := source_key(c.func)) is not None)
            called[id(func)] = found
        return found

    def _module_like(self, call: nodes.Call) -> bool:
        """``x.to(device)`` of an unknown ``x`` that its function uses as a module: it is
        called, or has module methods (``model = model.to(device)`` then ``model(x)``)."""
        func = call.frame()
        receiver = call.func.expr if isinstance(call.func, nodes.Attribute) else None
        keys = {source_key(receiver)} if receiver is not None else set()
        parent = call.parent
        if isinstance(parent, nodes.Assign):
            keys |= {source_key(t) for t in parent.targets}
        keys.discard(None)
        sites = [(func, keys)]
        pos = next((i for i, a in enumerate(parent.args) if a is call), None) if isinstance(
            parent, nodes.Call) else None
        if pos is not None and self._sites is not None:
            # ``test(model.to(device), ...)``: how the callee uses that parameter
            for callee, bound in self.callees(parent, None):
                if isinstance(callee, nodes.FunctionDef):
                    names = callee.argnames()[1 if bound else 0:]
                    if pos < len(names):
                        sites.append((callee, {names[pos]}))
        for frame, names in sites:
            called = self._called_keys(frame)
            uses = self._attribute_uses(frame)
            for k in names:
                if k in called or uses.get(k, (set(), False))[0] & MODULE_USES:
                    return True
        return False

    @staticmethod
    def _backward_takes_loss(func: nodes.NodeNG, name: str) -> bool:
        """``name.backward(loss)``: a framework's backward (accelerate, Lightning Fabric),
        handed the loss; a tensor's ``backward()`` takes none (its gradient argument is
        rare and passed by keyword in the code this reads)."""
        for call in nodes_of(func, nodes.Call):
            f = call.func
            if isinstance(f, nodes.Attribute) and f.attrname == "backward" and call.args and \
                    source_key(f.expr) == name:
                return True
        return False

    def _handed_to_backward(self, func: nodes.NodeNG, name: str) -> bool:
        """``name`` is the one argument of a framework's backward in ``func``'s own code
        (``accelerator.backward(loss)``, ``fabric.backward(loss)``): a loss tensor."""
        table = self.__dict__.setdefault("_backward_args", {})
        names = table.get(id(func))
        if names is None:
            names = table[id(func)] = frozenset(
                call.args[0].name for call in self.own_nodes(func, nodes.Call)
                if isinstance(call.func, nodes.Attribute) and call.func.attrname == "backward"
                and len(call.args) == 1 and isinstance(call.args[0], nodes.Name))
        return name in names

    def _usage_kind_of(self, func: nodes.NodeNG, name: str) -> frozenset[Value] | None:
        attrs, moved_in_place = self._attribute_uses(func).get(name, (set(), False))
        if attrs & MODULE_USES or moved_in_place:
            return one(Kind.MODULE)
        if "backward" in attrs and not self._backward_takes_loss(func, name):
            return V.tensor()
        if self._handed_to_backward(func, name):
            return V.tensor()  # ``accelerator.backward(loss)``: the loss is a tensor
        if attrs & OPTIMIZER_USES or {"step", "zero_grad"} <= attrs:
            return one(Kind.OPTIMIZER)
        if {"prepare", "backward"} <= attrs and attrs & ACCELERATOR_USES:
            # ``accelerator.prepare(...)``, ``.backward(loss)``, ``.unwrap_model(...)``: an
            # accelerate Accelerator handed in from elsewhere
            return one(Kind.FRAMEWORK, qual="accelerate")
        return None

    # ------------------------------------------------------------------ call sites
    def _instance_call(self, b: nodes.NodeNG) -> nodes.FunctionDef | None:
        """``es = EarlyStopping(patience=3)`` bound to the name called: the ``__call__``
        of that class of the module (``es(score, model)`` runs it with ``self`` bound),
        else None (syntax only: the class named by the assignment's call)."""
        if not (isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
                isinstance(b.parent.value, nodes.Call) and
                isinstance(b.parent.value.func, nodes.Name)):
            return None
        classes = [c for c in self.bindings(b.parent.value.func) if isinstance(c, nodes.ClassDef)]
        if len(classes) != 1:
            return None
        method = self.method_of(classes[0], "__call__")
        return method if isinstance(method, nodes.FunctionDef) and \
            method.root() is self.module else None

    def _index_calls(self) -> dict[int, list[tuple[nodes.Call, bool]]]:
        if self._sites is None:
            table: dict[int, list[tuple[nodes.Call, bool]]] = {}
            self._indexing = True
            try:
                for call in self.module_nodes(nodes.Call):
                    if self.in_dead_function(call):
                        continue  # (a call in a nested function nothing refers to never runs)
                    for func, bound in self.callees(call, None):
                        table.setdefault(id(func), []).append((call, bound))
            finally:
                self._indexing = False
            self._sites = table
        return self._sites

    def dead_nested(self) -> set[int]:
        """ids of the nested functions that nothing refers to: a ``def`` inside a function,
        undecorated, whose name no expression of that function reads (never called,
        returned or handed on), such as a notebook's leftover helper (syntax only)."""
        found = self._shared.get("dead_nested")
        if found is None:
            found = set()
            for func in self.module_nodes(nodes.FunctionDef):
                outer = func.parent.scope()
                if isinstance(outer, (nodes.FunctionDef, nodes.Lambda)) and \
                        not func.decorators and not any(
                        outer.fromlineno <= n.fromlineno <= (outer.tolineno or 0) and
                        any(a is outer for a in n.node_ancestors())
                        for n in self.name_uses(func.name)):
                    found.add(id(func))  # (its name is read nowhere in the function)
            self._shared["dead_nested"] = found
        return found

    def in_dead_function(self, node: nodes.NodeNG) -> bool:
        """``node`` lies in a nested function that nothing refers to (see
        :meth:`dead_nested`), or in one nested inside such a function: it never runs."""
        dead = self.dead_nested()
        return bool(dead) and any(id(f) in dead for f in scopes_of(node))

    def name_uses(self, name: str) -> list[nodes.Name]:
        """The module's ``Name`` nodes that spell ``name`` (one walk of the module, kept
        with its tree)."""
        shared = syntax_cache(self.module)
        table = shared.get("name_nodes")
        if table is None:
            table = shared["name_nodes"] = {}
            for n in self.module_nodes(nodes.Name):
                table.setdefault(n.name, []).append(n)
        return table.get(name, [])

    def call_sites(self, func: nodes.NodeNG) -> list[tuple[nodes.Call, bool]]:
        """Calls of the module that reach ``func``, each with "self is bound" (a method)."""
        return self._index_calls().get(id(func), [])

    def passing_sites(self, func: nodes.NodeNG) -> list[tuple[nodes.Call, bool]]:
        """:meth:`call_sites` whose arguments a parameter of ``func`` takes: those the XLA
        path reaches, when some does (the GPU program's ``main()`` calling the shared
        ``train(model, optimizer)`` passes nothing the XLA path sees).

        At most ``MAX_SITES + 1`` of them (the callers join ``MAX_SITES`` and take one
        more as "unknown beyond"): the path of the rest is never asked."""
        sites = self.call_sites(func)
        if len(sites) > 1:
            from flake8_xla.analysis.paths import off_xla_path
            on: list[tuple[nodes.Call, bool]] = []
            for site in sites:
                if not off_xla_path(site[0], self):
                    on.append(site)
                    if len(on) > MAX_SITES:
                        break
            sites = on or sites
        return sites[:MAX_SITES + 1]

    def callees(self, call: nodes.Call, ctx: Ctx | None, d: int = 0
                ) -> list[tuple[nodes.NodeNG, bool]]:
        """The module's functions a call runs: ``(FunctionDef/Lambda, self bound)``.

        A class call runs its ``__init__``; a module call runs ``forward``; a method
        call through an instance of a module class runs that method.
        """
        func = call.func
        out: list[tuple[nodes.NodeNG, bool]] = []
        if isinstance(func, nodes.Name):
            for b in self.bindings(func):
                if isinstance(b, nodes.FunctionDef):
                    out.append((self.wrapper_of(b) or b, False))
                elif isinstance(b, nodes.ClassDef):
                    init = self.method_of(b, "__init__")
                    if init is not None:
                        out.append((init, True))
                elif (lam := bound_lambda(b)) is not None:
                    out.append((lam, False))
                elif (method := self._instance_call(b)) is not None:
                    out.append((method, True))
            return out
        if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and \
                func.expr.name in ("self", "cls"):
            klass = func.scope()
            while klass is not None and not isinstance(klass, nodes.ClassDef):
                klass = klass.parent.scope() if klass.parent is not None else None
            if klass is not None:
                method = self.method_of(klass, func.attrname)
                hooks_ = self._hooks(True, klass, func.attrname, method)
                found_all = [m for m, _ in hooks_] or self._dispatched(
                    call, klass, func.attrname, method, ctx) or ([method] if method else [])
                for found in found_all:
                    out.append((found, not is_staticmethod(found)))
            return out
        if is_super_call(call):
            # ``super().__init__(model, loader)``: the base class's method, self bound
            method_def = enclosing_function(call)
            klass = enclosing_class(method_def) if method_def is not None else None
            method = self.base_method(klass, func.attrname) if klass is not None else None
            if method is not None:
                out.append((method, not is_staticmethod(method)))
            return out
        if isinstance(func, nodes.Attribute) and self._sites is None and \
                func.attrname in self._method_names():
            # While the call index is built: receivers made by a constructor of a module
            # class (``meter = AverageMeter()``, ``self.meter = AverageMeter()``), by syntax.
            for klass in self._constructed_classes(func.expr):
                method = self.method_of(klass, func.attrname)
                if method is not None:
                    out.append((method, not is_staticmethod(method)))
            return out
        if isinstance(func, nodes.Attribute) and self._sites is not None and \
                func.attrname in self._method_names():
            for v in self.value(func.expr, ctx, d):
                if isinstance(v.node, nodes.ClassDef) and v.kind is not Kind.CLASS:
                    method = self.method_of(v.node, func.attrname)
                    if method is not None:
                        out.append((method, not is_staticmethod(method)))
                elif isinstance(v.node, nodes.ClassDef) and v.kind is Kind.CLASS:
                    # ``Trainer.get_optimizer(params, flags)`` through the class: a static
                    # method (or a plain one handed its instance explicitly) binds nothing
                    method = self.method_of(v.node, func.attrname)
                    if method is not None and not is_classmethod(method):
                        out.append((method, False))
        return out

    def _constructed_classes(self, node: nodes.NodeNG) -> list[nodes.ClassDef]:
        """Module classes whose constructor call every binding of ``node`` (a name, or
        ``self.attr``) assigns, or that ``node`` itself constructs (``Engine(...)``); empty
        when any binding is something else."""
        stmts: list[nodes.NodeNG] = []
        if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name):
            # ``Engine(model, loader).fit(step_fn)``: the receiver is the construction
            classes = [b for b in self.bindings(node.func) if isinstance(b, nodes.ClassDef)]
            return classes if len(classes) == 1 else []
        if isinstance(node, nodes.Name):
            binds = self.bindings(node)
            if not binds or not all(isinstance(b, nodes.AssignName) for b in binds):
                return []
            stmts = [b.parent for b in binds]
        elif isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and \
                node.expr.name == "self":
            klass = enclosing_class(node)
            if klass is None:
                return []
            stmts = [stmt for _, stmt in self.class_attrs(klass).get(node.attrname, [])]
        out: list[nodes.ClassDef] = []
        for stmt in stmts:
            value = stmt.value if isinstance(stmt, (nodes.Assign, nodes.AnnAssign)) else None
            if isinstance(stmt, nodes.Tuple) and isinstance(stmt.parent, nodes.Assign) and \
                    isinstance(stmt.parent.value, nodes.Tuple) and \
                    len(stmt.parent.value.elts) == len(stmt.elts) and isinstance(node, nodes.Name):
                # ``meter, timer = AverageMeter(), Timer()``: the value in the same place
                value = next((v for t, v in zip(stmt.elts, stmt.parent.value.elts)
                              if isinstance(t, nodes.AssignName) and t.name == node.name), None)
            if isinstance(value, nodes.IfExp) and is_none(value.orelse):
                value = value.body  # ``ema = ModelEMA(model) if args.ema else None``
            elif isinstance(value, nodes.IfExp) and is_none(value.body):
                value = value.orelse
            elif is_none(value) and isinstance(stmt, (nodes.Assign, nodes.AnnAssign)):
                continue  # ``self.ema = None``: no method runs on it
            if not (isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name)):
                return []
            classes = [b for b in self.bindings(value.func) if isinstance(b, nodes.ClassDef)]
            if len(classes) != 1:
                return []
            if classes[0] not in out:
                out.append(classes[0])
        return out

    def calls_named(self, name: str) -> list[nodes.Call]:
        """Every call in the module whose callee is ``name`` or ``<obj>.name``, in order
        (one walk per tree, kept with it: see :func:`syntax_cache`)."""
        found = self._shared.get("calls_by_name")
        if found is None:
            table: dict[str, list[nodes.Call]] = {}
            for call in self.module_nodes(nodes.Call):
                key = callee_name(call.func)
                if key:
                    table.setdefault(key, []).append(call)
            found = self._shared["calls_by_name"] = table
        return found.get(name, [])

    def _method_names(self) -> frozenset[str]:
        """Names of the methods the module's classes define (a call ``x.name()`` can only
        run one of them if its name is here)."""
        names = getattr(self, "_methods", None)
        if names is None:
            names = frozenset(item.name for klass in self.module_nodes(nodes.ClassDef)
                              for item in klass.body if isinstance(item, nodes.FunctionDef))
            self._methods = names
        return names

    def home_of(self, node: nodes.NodeNG) -> Evaluator | None:
        """The Evaluator of the module that holds ``node``: this one for a node of its own
        module, else the project link's for another module (None when none is linked)."""
        if node.root() is self.module:
            return self
        return self.link.evaluator_of(node) if self.link is not None else None

    def method_of(self, klass: nodes.ClassDef, name: str, depth: int = 0
                  ) -> nodes.FunctionDef | None:
        """Method ``name`` of a module class or of its bases: the module's own, and with the
        project link, a base class that another module of the project defines."""
        if depth > 8:
            return None
        key = (id(klass), name)
        held = self._method_memo.get(key)
        if held is not None and held[0] is klass:
            return held[1]
        # (the class is kept with its answer: an id alone could be a later node's)
        self._method_memo[key] = (klass, None)  # in progress: a class hierarchy with a cycle
        found = self._method_of(klass, name, depth)
        self._method_memo[key] = (klass, found)
        return found

    def _method_of(self, klass: nodes.ClassDef, name: str, depth: int
                   ) -> nodes.FunctionDef | None:
        for item in klass.body:
            if isinstance(item, nodes.FunctionDef) and item.name == name:
                return item
        return self.base_method(klass, name, depth)

    def base_method(self, klass: nodes.ClassDef, name: str, depth: int = 0
                    ) -> nodes.FunctionDef | None:
        """Method ``name`` that ``klass`` inherits (what ``super().name`` runs in it)."""
        for base in klass.bases:
            if isinstance(base, nodes.Name):
                for b in self.bindings(base):
                    if isinstance(b, nodes.ClassDef) and b is not klass:
                        found = self.method_of(b, name, depth + 1)
                        if found is not None:
                            return found
            if self.link is not None and isinstance(base, (nodes.Name, nodes.Attribute)):
                q = self.qualname(base)
                found_in = self.link.resolve(self, q, None, 0) if q else None
                for v in found_in or ():
                    if v.kind is Kind.CLASS and isinstance(v.node, nodes.ClassDef) and \
                            v.node.root() is not klass.root():
                        owner = self.link.evaluator_of(v.node)
                        found = owner.method_of(v.node, name, depth + 1) if owner else None
                        if found is not None:
                            return found
        return None

    # ------------------------------------------------------------------ classes
    def class_kind(self, klass: nodes.ClassDef, depth: int = 0) -> Kind:
        """What an instance of a module class is: MODULE, LOADER, DATASET, ... or OBJECT
        (asked of the Evaluator of the class's own module, which resolves its bases)."""
        if self.link is not None and klass.root() is not self.module:
            home = self.link.evaluator_of(klass)
            if home is not None and home is not self:
                return home.class_kind(klass, depth)
        key = id(klass)
        if key in self._class_kind:
            return self._class_kind[key]
        self._class_kind[key] = Kind.OBJECT
        kind = Kind.OBJECT
        for base in klass.bases:
            q = self.qualname(base)
            project = self._project_class_kind(q, base, depth) if q is not None else None
            if project is not None:
                kind = project
            elif q is not None:
                entry = self.api.call(q)
                spec = (entry.returns or "") if entry else ""
                head = spec.split(":", 1)[0]
                if head in ("module",) or q.endswith(("Module", "PreTrainedModel")) or (
                        q.startswith(MODULE_BASES) and head == "module"):
                    kind = Kind.MODULE
                elif head == "loader" or q.endswith("DataLoader"):
                    kind = Kind.LOADER
                elif head == "dataset" or q.endswith(("Dataset", "IterableDataset")):
                    kind = Kind.DATASET
                elif head == "optimizer" or q.endswith("Optimizer"):
                    kind = Kind.OPTIMIZER
                elif head == "sampler" or q.endswith("Sampler"):
                    kind = Kind.SAMPLER
            elif isinstance(base, nodes.Name) and depth < 8:
                for b in self.bindings(base):
                    if isinstance(b, nodes.ClassDef) and b is not klass:
                        inner = self.class_kind(b, depth + 1)
                        if inner is not Kind.OBJECT:
                            kind = inner
            if kind is not Kind.OBJECT:
                break
        if kind is Kind.OBJECT and klass.bases and self._defines_forward(klass) and all(
                self._foreign_base(b) for b in klass.bases):
            # ``class MiniGPT(BaseModel)`` with BaseModel from another module of the
            # project: a class with an instance ``forward`` is a torch module.
            kind = Kind.MODULE
        self._class_kind[key] = kind
        return kind

    def _project_class_kind(self, q: str, base: nodes.NodeNG, depth: int) -> Kind | None:
        """The kind of a base class ``q`` that another module of the project defines
        (``from .base import FixedSize``, a Dataset subclass there), by that module's
        analysis; None when ``q`` is no project class (a library's, or past the budget)."""
        link = self.link
        if link is None or depth >= 8 or (self.api.call(q) is not None and (
                self.api.exact(q) or not link.shadows_library(self, q))):
            return None
        found = link.resolve(self, q, None, 0)
        kinds = {home.class_kind(v.node, depth + 1)
                 for v in found or () if v.kind is Kind.CLASS and
                 isinstance(v.node, nodes.ClassDef) and
                 (home := self.home_of(v.node)) is not None}
        kind = kinds.pop() if len(kinds) == 1 else None
        # (a plain project base, ``class BaseDataset(object)``, leaves the name checks)
        return kind if kind is not Kind.OBJECT else None

    def _foreign_base(self, base: nodes.NodeNG) -> bool:
        """A base class imported from outside torch (another module of the project)."""
        q = self.qualname(base)
        if q is None or q.startswith(("torch.", "torch_xla.")) or "." not in q:
            return False
        return not (isinstance(base, nodes.Name) and any(
            isinstance(x, nodes.ClassDef) for x in self.bindings(base)))

    @staticmethod
    def _defines_forward(klass: nodes.ClassDef) -> bool:
        """The class defines ``forward(self, ...)`` (not a static autograd ``forward``)."""
        for item in klass.body:
            if isinstance(item, nodes.FunctionDef) and item.name == "forward" and \
                    item.args.args and item.args.args[0].name == "self" and \
                    not is_staticmethod(item) and not is_classmethod(item):
                return True
        return False

    def _iterable_class(self, klass: nodes.ClassDef, depth: int) -> bool:
        """An ``IterableDataset`` subclass (``__iter__`` and no ``__getitem__``)."""
        methods = {item.name for item in klass.body if isinstance(item, nodes.FunctionDef)}
        if "__getitem__" in methods:
            return False
        if "__iter__" in methods:
            return True
        for base in klass.bases:
            if (self.qualname(base) or "").endswith("IterableDataset"):
                return True
            if isinstance(base, nodes.Name) and depth < 8:
                for b in self.bindings(base):
                    if isinstance(b, nodes.ClassDef) and b is not klass and \
                            self._iterable_class(b, depth + 1):
                        return True
        return False

    def instance(self, klass: nodes.ClassDef, open_: bool = False) -> frozenset[Value]:
        """An instance of a module class (a module on no device yet: it moves with .to()).

        ``open_``: ``self`` in a method of the class, an instance of it or of a subclass
        (flag ``open``): a hook it calls on itself runs what the subclasses define (see
        :meth:`subclass_methods`)."""
        kind = self.class_kind(klass)
        flags = frozenset({"custom", "open"} if open_ else {"custom"})
        if kind is Kind.LOADER:
            flags = flags | {"plain"}
        if kind is Kind.DATASET and self._iterable_class(klass, 0):
            flags = flags | {"iterable"}  # a stream: its loader has no fixed last batch
        device = V.ANY_DEVICE if kind is Kind.MODULE else None
        if kind is Kind.MODULE and not open_ and self._moved_to_xla_in_init(klass):
            device = "xla"
        size = self._constant_len(klass) if kind is Kind.DATASET and not open_ else None
        return one(kind, node=klass, qual=klass.name, flags=flags, device=device, text=size)

    def _moved_to_xla_in_init(self, klass: nodes.ClassDef) -> bool:
        """The class's own ``__init__`` moves the module, or one of its submodules, to the
        XLA device in place (``self.encoder.to(device)`` with ``device =
        xm.xla_device()``): every instance holds parameters on the device from the
        start (memoised per class)."""
        memo = self._shared_table("init_moves", klass)
        found = memo.get(id(klass))
        if found is None:
            memo[id(klass)] = False  # (in progress)
            init = next((m for m in klass.body if isinstance(m, nodes.FunctionDef) and
                         m.name == "__init__"), None)
            found = init is not None and any(
                key is not None and (key == "self" or key.startswith("self.")) and
                call.func.attrname in ("to", "xla") and
                self._move_target(call, None, 0) == ("xla",)
                for call, key in self._in_place_moves(init))
            memo[id(klass)] = found
        return found

    def _constant_len(self, klass: nodes.ClassDef) -> str | None:
        """The size a dataset class's ``__len__`` always returns, when every return gives
        the same integer constant (``return N_TRAIN`` of ``N_TRAIN = BATCH_SIZE *
        STEPS``), as digits; else None."""
        memo = self._shared_table("constant_len", klass)
        if id(klass) in memo:
            return memo[id(klass)]
        memo[id(klass)] = None  # in progress
        size = None
        method = self.method_of(klass, "__len__")
        rets = self.own_nodes(method, nodes.Return) if method is not None and \
            method.root() is self.module else []
        texts = set()
        for r in rets:
            if r.value is None or any(n.name == "self" for n in
                                      [r.value, *nodes_of(r.value, nodes.Name)]
                                      if isinstance(n, nodes.Name)):
                texts.add(None)
                break
            found = self.value(r.value, None)
            texts |= {v.text if v.kind is Kind.HOST and v.text and v.text.isdigit() else None
                      for v in found} or {None}
        if len(texts) == 1 and None not in texts:
            size = texts.pop()
        memo[id(klass)] = size
        return size

    def _dispatched(self, call: nodes.Call, klass: nodes.ClassDef, name: str,
                    method: nodes.FunctionDef | None, ctx: Ctx | None
                    ) -> list[nodes.FunctionDef]:
        """``self.name(...)`` in a method of ``klass`` that ``ctx`` follows with ``self``
        bound to instances of known classes (``trainer.train_epoch()`` on a
        ``ClippedTrainer``): the method each of those classes has under ``name``, its own
        override or the inherited one. Without such a context ``self`` may be an instance
        of any class of the hierarchy: ``method`` and the overrides of the subclasses
        (this module's, and those of the project modules that import it). Empty (the
        enclosing class's ``method`` stands alone) when nothing overrides it, or when a
        receiver's class is not known."""
        if method is None:
            return []
        outer = enclosing_function(call)
        while outer is not None and not isinstance(outer.parent, nodes.ClassDef):
            outer = enclosing_function(outer)
        own = ctx.lookup(outer) if ctx is not None and outer is not None else None
        bound = own.arg(outer.args.args[0].name) if own is not None and outer is not None \
            and outer.parent is klass and outer.args.args else None
        if not bound:
            # ``self`` of any class of the hierarchy: the method, or a subclass's override
            overrides = [m for m, _ in self.subclass_methods(klass, name) if m is not method]
            return [method, *overrides] if overrides else []
        found: list[nodes.FunctionDef] = []
        for v in bound:
            if not isinstance(v.node, nodes.ClassDef) or v.kind is Kind.UNKNOWN:
                return []
            impl = self.method_of(v.node, name) if v.node is not klass else method
            if impl is None:
                return []
            if impl not in found:
                found.append(impl)
        return found if found != [method] else []

    def _hooks(self, open_: bool, klass: nodes.ClassDef, name: str,
               method: nodes.FunctionDef | None
               ) -> list[tuple[nodes.FunctionDef, nodes.ClassDef]]:
        """What ``obj.name`` runs instead of ``method`` (what ``klass`` has under
        ``name``): for ``self`` in a method of ``klass`` (``open_``: an instance of it or of
        a subclass) whose ``name`` is a stub or missing (no attribute either), the
        subclasses' own methods (``self.train_step(...)`` in a base class's loop, a hook its
        subclasses define); else none."""
        if not open_ or (method is not None and not is_stub(method)) or \
                name in self.class_attrs(klass):
            return []
        return self.subclass_methods(klass, name)

    def _instance_anywhere(self, klass: nodes.ClassDef) -> frozenset[Value]:
        """``self`` of a method of ``klass``, a class of this module or of another module of
        the project (made by that module's Evaluator); unknown when that module is not
        linked."""
        if klass.root() is self.module:
            return self.instance(klass, open_=True)
        owner = self.link.evaluator_of(klass) if self.link is not None else None
        return owner.instance(klass, open_=True) if owner is not None else UNKNOWN_SET

    def subclass_methods(self, klass: nodes.ClassDef, name: str
                         ) -> list[tuple[nodes.FunctionDef, nodes.ClassDef]]:
        """``(method, class)`` for each subclass of ``klass`` that defines method ``name``
        with a body (not :func:`is_stub`): subclasses in this module (through any number
        of classes between) and, with the project link, in the modules that import
        ``klass`` (:meth:`~flake8_xla.project.link.Session.subclass_methods`). Memoised."""
        if klass.root() is not self.module:
            owner = self.link.evaluator_of(klass) if self.link is not None else None
            return owner.subclass_methods(klass, name) if owner is not None else []
        key = (id(klass), name)
        memo = self._subclass_memo
        if key in memo:
            return memo[key]
        memo[key] = []  # in progress
        found: list[tuple[nodes.FunctionDef, nodes.ClassDef]] = []
        for sub in self.subclasses(klass):
            method = own_hook(sub, name)
            if method is not None:
                found.append((method, sub))
        if self.link is not None:
            found += [hit for hit in self.link.subclass_methods(self, klass, name)
                      if hit not in found]
        memo[key] = found
        return found

    def subclasses(self, klass: nodes.ClassDef) -> list[nodes.ClassDef]:
        """This module's classes that derive from ``klass`` (a class of this module or,
        through ``link``, of another), directly or through classes between, in order."""
        out: list[nodes.ClassDef] = []
        frontier = [klass]
        classes = self.module_nodes(nodes.ClassDef)
        while frontier:
            base = frontier.pop()
            for c in classes:
                if c is klass or c in out:
                    continue
                if any(self._names_class(b, base) for b in c.bases):
                    out.append(c)
                    frontier.append(c)
        return out

    def _names_class(self, expr: nodes.NodeNG, klass: nodes.ClassDef) -> bool:
        """``expr`` (a base in a class statement) names ``klass``."""
        if isinstance(expr, nodes.Name) and expr.name == klass.name and any(
                b is klass for b in self.bindings(expr)):
            return True
        if self.link is None or klass.root() is self.module or \
                not isinstance(expr, (nodes.Name, nodes.Attribute)) or \
                (expr.name if isinstance(expr, nodes.Name) else expr.attrname) != klass.name:
            return False
        q = self.qualname(expr)
        found = self.link.resolve(self, q, None, 0) if q else None
        return any(v.kind is Kind.CLASS and v.node is klass for v in found or ())

    def class_attrs(self, klass: nodes.ClassDef) -> dict[str, list[tuple[nodes.NodeNG,
                                                                         nodes.NodeNG]]]:
        """``attr -> [(binding node, statement)]`` set on ``self`` or in the class body, by
        the class or its bases (those of other project modules through the link)."""
        table = self._own_class_attrs(klass)
        if self.link is None or not klass.bases:
            return table
        return self._foreign_base_attrs(klass, table)

    def _own_class_attrs(self, klass: nodes.ClassDef) -> dict[str, list[tuple[
            nodes.NodeNG, nodes.NodeNG]]]:
        """:meth:`class_attrs` from the class's own module alone (its body, its methods, its
        bases defined there): kept with the class's tree (:meth:`_shared_table`), so it
        holds no node of another tree, which the per-process cache may free while this
        tree is still kept."""
        key = id(klass)
        tables = self._shared_table("class_attrs", klass)
        table = tables.get(key)
        if table is None:
            table = {}
            for item in klass.body:
                if isinstance(item, (nodes.Assign, nodes.AnnAssign)):
                    targets = item.targets if isinstance(item, nodes.Assign) else [item.target]
                    for t in targets:
                        for an in nodes_of(t, nodes.AssignName):
                            table.setdefault(an.name, []).append((an, item))
            for method in klass.mymethods():
                for aa in nodes_of(method, nodes.AssignAttr):
                    if isinstance(aa.expr, nodes.Name) and aa.expr.name == "self":
                        table.setdefault(aa.attrname, []).append((aa, aa.parent))
                for call in nodes_of(method, nodes.Call):
                    f = call.func
                    if isinstance(f, nodes.Attribute) and f.attrname in (
                            "register_buffer", "register_parameter") and \
                            isinstance(f.expr, nodes.Name) and f.expr.name == "self" and \
                            len(call.args) >= 2 and const_str(call.args[0]) is not None:
                        table.setdefault(const_str(call.args[0]), []).append(
                            (call.args[1], call))
            for base in klass.bases:
                if isinstance(base, nodes.Name):
                    for b in self.bindings(base):
                        if isinstance(b, nodes.ClassDef) and b is not klass:
                            for k, v in self._own_class_attrs(b).items():
                                table.setdefault(k, []).extend(v)
            tables[key] = table
        return table

    def _foreign_base_attrs(self, klass: nodes.ClassDef, table: dict[str, list[tuple[
            nodes.NodeNG, nodes.NodeNG]]]) -> dict[str, list[tuple[nodes.NodeNG, nodes.NodeNG]]]:
        """``table`` (the class's own attributes and those of its bases in its module)
        with the attributes that base classes of other project modules set
        (``self.optimizer = ...`` in the ``__init__`` of ``UNet3DTrainer``, read in its
        subclass ``XLATrainer`` of ``xla_trainer.py``), as those modules' evaluators
        list them. Per session (the link resolves the bases), memoised."""
        found = self._with_foreign_bases.get(id(klass))
        if found is not None:
            return found
        self._with_foreign_bases[id(klass)] = table  # in progress: a cycle adds nothing
        merged = table

        def add(found: dict[str, list[tuple[nodes.NodeNG, nodes.NodeNG]]]) -> None:
            nonlocal merged
            for name, targets in found.items():
                if merged is table:
                    merged = {k: list(t) for k, t in table.items()}
                merged.setdefault(name, []).extend(t for t in targets if t not in merged[name])

        for base in klass.bases:
            if not isinstance(base, (nodes.Name, nodes.Attribute)):
                continue
            local = [b for b in (self.bindings(base) if isinstance(base, nodes.Name) else ())
                     if isinstance(b, nodes.ClassDef)]
            if local:
                # (a base of this module: its own attributes are in ``table`` already, and
                # those its bases in other modules set are added here, per session)
                for b in local:
                    if b is not klass and b.bases:
                        add(self._foreign_base_attrs(b, self._own_class_attrs(b)))
                continue
            for v in self.value(base):
                if v.kind is not Kind.CLASS or not isinstance(v.node, nodes.ClassDef) or \
                        v.node.root() is self.module:
                    continue
                owner = self.link.evaluator_of(v.node)
                if owner is None:
                    continue
                add(owner.class_attrs(v.node))
        self._with_foreign_bases[id(klass)] = merged
        return merged

    def _object_attrs(self) -> dict[tuple[int, str], list[tuple[nodes.NodeNG, nodes.NodeNG]]]:
        """``obj.attr = v`` assignments keyed by the binding of ``obj`` (not ``self``)."""
        if self._obj_attrs is None:
            table: dict[tuple[int, str], list[tuple[nodes.NodeNG, nodes.NodeNG]]] = {}
            for aa in self.module_nodes(nodes.AssignAttr):
                base = aa.expr
                if isinstance(base, nodes.Name) and base.name not in ("self", "cls"):
                    for b in self.bindings(base):
                        table.setdefault((id(b), aa.attrname), []).append((aa, aa.parent))
            self._obj_attrs = table
        return self._obj_attrs

    def _attrs_set_by_name(self) -> dict[str, list[nodes.NodeNG]]:
        """``obj.attr = v`` targets (not on ``self``) by attribute name (memoised)."""
        table = getattr(self, "_set_by_name", None)
        if table is None:
            table = {}
            for (_, name), found in self._object_attrs().items():
                table.setdefault(name, []).extend(target for target, _ in found)
            self._set_by_name = table
        return table

    def _mutation_table(self) -> dict[int, list[nodes.NodeNG]]:
        """Container mutations keyed by the binding of the mutated name or ``self.attr``."""
        if self._mutations is None:
            table: dict[int, list[nodes.NodeNG]] = {}
            for call in self.module_nodes(nodes.Call):
                f = call.func
                if isinstance(f, nodes.Attribute) and f.attrname in MUTATORS and \
                        isinstance(f.expr, nodes.Name):
                    for b in self.bindings(f.expr):
                        table.setdefault(id(b), []).append(call)
                entry = _list_entry_key(call)
                if entry is not None:
                    # ``info.setdefault("losses", []).append(loss)``: the dict's entry grows
                    for b in self.bindings(entry[0]):
                        table.setdefault(id(b), []).append(call)
            for sub in self.module_nodes(nodes.Subscript):
                if isinstance(sub.parent, nodes.Assign) and sub in sub.parent.targets and \
                        isinstance(sub.value, nodes.Name):
                    for b in self.bindings(sub.value):
                        table.setdefault(id(b), []).append(sub)
            self._mutations = table
        return self._mutations

    def _self_attr_mutations(self, target: nodes.NodeNG | None) -> list[nodes.NodeNG]:
        """For ``self.attr = []`` (``target``) in a method of a class: the calls that add to
        ``self.attr`` in the methods of that class (``self._cache.append(val)`` in
        ``update``), and the item stores ``self.attr[k] = v``; else nothing. A list an
        object keeps and fills in another method holds what that method is given (a
        moving average of the losses a step hands in)."""
        if isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name) and \
                target.expr.name == "self":
            klass = _method_class(target)
            attr = target.attrname
        elif isinstance(target, nodes.AssignName) and \
                isinstance(target.statement().parent, nodes.ClassDef):
            # ``history = []`` in the class body, filled by ``self.history.append(loss)``
            klass = target.statement().parent
            attr = target.name
        else:
            return []
        if klass is None:
            return []
        table = self.__dict__.get("_attr_mutations")
        if table is None:
            table = {}
            for call in self.module_nodes(nodes.Call):
                f = call.func
                if isinstance(f, nodes.Attribute) and f.attrname in MUTATORS and \
                        isinstance(f.expr, nodes.Attribute) and \
                        isinstance(f.expr.expr, nodes.Name) and f.expr.expr.name == "self":
                    owner = _method_class(call)
                    if owner is not None:
                        table.setdefault((id(owner), f.expr.attrname), []).append(call)
            for sub in self.module_nodes(nodes.Subscript):
                holder = sub.value
                if isinstance(sub.parent, nodes.Assign) and sub in sub.parent.targets and \
                        isinstance(holder, nodes.Attribute) and \
                        isinstance(holder.expr, nodes.Name) and holder.expr.name == "self":
                    owner = _method_class(sub)
                    if owner is not None:
                        table.setdefault((id(owner), holder.attrname), []).append(sub)
            self.__dict__["_attr_mutations"] = table
        found = list(table.get((id(klass), attr), []))
        # (and in the module's subclasses of the class: a base ``Meter.__init__`` makes the
        # list, a subclass's ``update`` fills it)
        names = {klass.name}
        for sub in self.module_nodes(nodes.ClassDef):
            if sub is not klass and any(
                    isinstance(b, (nodes.Name, nodes.Attribute)) and
                    (b.name if isinstance(b, nodes.Name) else b.attrname) in names
                    for b in sub.bases):
                names.add(sub.name)
                found.extend(table.get((id(sub), attr), []))
        return found

    def _with_mutations(self, literal: nodes.NodeNG, value: frozenset[Value], ctx: Ctx | None,
                        d: int) -> frozenset[Value]:
        """A list/dict literal bound to a name, with what the code adds to it later."""
        stmt = literal.parent
        target: nodes.NodeNG | None = None
        if isinstance(stmt, nodes.Tuple) and isinstance(stmt.parent, nodes.Assign) and \
                len(stmt.parent.targets) == 1 and isinstance(
                    stmt.parent.targets[0], (nodes.Tuple, nodes.List)) and \
                len(stmt.parent.targets[0].elts) == len(stmt.elts):
            # ``loaders, heads = {}, {}``: each literal bound to the name in its position
            target = stmt.parent.targets[0].elts[stmt.elts.index(literal)]
        elif isinstance(stmt, nodes.Assign) and stmt.value is literal and \
                len(stmt.targets) == 1:
            target = stmt.targets[0]
        if isinstance(target, nodes.AssignName):
            added = self._mutation_table().get(id(target), []) or \
                self._self_attr_mutations(target)
        else:
            added = self._self_attr_mutations(target)
        if not added:
            return value
        if all(v.kind is Kind.DICT and v.items is not None and v.elem is None for v in value):
            keyed = self._keyed_additions(added, d)
            if keyed is not None:
                # ``kw["persistent_workers"] = True``: a key the dict may hold from then on
                # (its keys stay known)
                out = []
                for v in value:
                    items = dict(v.items or ())
                    for key, vs in keyed:
                        items[key] = join(items.get(key, EMPTY), vs)
                    out.append(v.with_(items=tuple(items.items())))
                return frozenset(out)
        extra = []
        # An item appended to a list in the literal's own function reads its parameters
        # as the literal's context binds them when it is unknown without them (a helper
        # that appends one loss per task of the features it is given returns lazy
        # tensors); read without the context first, so that items known without it
        # cost nothing more per context. A dict's stores are read without it: a
        # state-dict helper's ``out[k] = fn(v) if select(v) else v`` would hold the
        # values of both branches, the tensors ``select`` sends to ``fn`` among them.
        listed = ctx is not None and all(v.kind is Kind.LIST for v in value)
        home = literal.frame() if listed else None

        def added_value(node: nodes.NodeNG, m: nodes.NodeNG) -> frozenset[Value]:
            found = self.value(node, None, d)
            if listed and m.frame() is home and any(
                    v.kind is Kind.UNKNOWN or v.kind is Kind.TENSOR and
                    v.device in (None, V.ANY_DEVICE) for v in found):
                found = self.value(node, ctx, d)
            return found

        for m in added:
            if isinstance(m, nodes.Subscript):
                extra.append(self.value(m.parent.value, None, d))
            elif m.func.attrname in ("append", "add", "insert", "setdefault", "appendleft"):
                if m.args:
                    extra.append(added_value(m.args[-1], m))
            else:  # extend / update
                if m.args:
                    extra.append(self.iterate(added_value(m.args[0], m), d))
                for kw in m.keywords or ():
                    extra.append(self.value(kw.value, None, d))
        more = join(*extra)
        out = []
        for v in value:
            elem = join(v.elem or EMPTY, more, *(v.elts or ()), *(s for _, s in v.items or ()))
            if v.kind is Kind.DICT:
                out.append(v.with_(elem=elem))
            else:
                out.append(v.with_(elts=None, elem=elem))
        return frozenset(out)

    def _with_keys_stored(self, b: nodes.AssignName, use: nodes.NodeNG | None,
                          value: frozenset[Value], d: int) -> frozenset[Value]:
        """A dict with the keys its function stores into it after binding ``b`` and before
        ``use`` (``info_dict["loss_dict"] = model(batch)`` or ``info.update(loss=...)``,
        then ``return info_dict``, for a parameter or a call's result): those keys hold what
        was stored (also what they held, when the store may not run before the use: a
        branch of its own, or ``setdefault``), a key ``pop``-ped before the use is gone,
        the others stay as they were (unknown when nothing known was). Stores off the XLA
        path are left out."""
        if use is None or use.lineno is None or b.lineno is None or not all(
                v.kind in (Kind.DICT, Kind.UNKNOWN) for v in value):
            return value
        from flake8_xla.analysis.paths import off_xla_path

        frame = use.frame()
        at_param = isinstance(b.parent, nodes.Arguments)
        added = [m for m in self._mutation_table().get(id(b), [])
                 if m.lineno is not None and (at_param or m.lineno > b.lineno) and
                 m.lineno < use.lineno and m.frame() is frame and
                 (isinstance(m, nodes.Subscript) or m.func.attrname in ("update", "setdefault")
                  or _list_entry_key(m) is not None)]
        added = sorted((m for m in added if not off_xla_path(m, self)),
                       key=lambda m: (m.lineno, m.col_offset))  # (in the order they run)
        pops = [c for c in self.calls_named("pop")
                if c.args and const_str(c.args[0]) is not None and
                isinstance(c.func, nodes.Attribute) and isinstance(c.func.expr, nodes.Name) and
                c.func.expr.name == b.name and c.lineno is not None and
                (at_param or c.lineno > b.lineno) and c.lineno < use.lineno and
                c.frame() is frame and any(x is b for x in self.bindings(c.func.expr))]
        if not added and not pops:
            return value
        holders = {id(a) for a in use.node_ancestors()}

        def ran(m: nodes.NodeNG) -> bool:
            # (a statement of a block that holds the use, before it: it ran)
            stmt = m.statement()
            return stmt.parent is not None and id(stmt.parent) in holders

        events: list[tuple[tuple[int, int], str, frozenset[Value] | None, bool]] = []
        for m in added:
            keyed = self._keyed_additions([m], d)
            if keyed is None:
                return value  # (an addition whose keys are not known)
            grows = isinstance(m, nodes.Call) and (m.func.attrname == "setdefault" or
                                                   _list_entry_key(m) is not None)
            events += [((m.lineno, m.col_offset), k, vs, ran(m) and not grows)
                       for k, vs in keyed]
        # ``losses = info.pop("loss_dict")`` before the use: the key is gone
        events += [((c.lineno, c.col_offset), const_str(c.args[0]), None, True)
                   for c in pops if ran(c)]
        if not events:
            return value
        events.sort(key=lambda e: e[0])  # (in the order they run)
        stores_ran = any(vs is not None and done for _, _, vs, done in events)
        out = []
        for v in value:
            if v.kind is Kind.UNKNOWN:
                if not stores_ran:
                    out.append(v)  # (stores that may not run say nothing of the rest)
                    continue
                v = Value(Kind.DICT, items=(), elem=UNKNOWN_SET)
            items = dict(v.items or ())
            for _, key, vs, done in events:
                if vs is None:
                    items.pop(key, None)
                elif done:
                    items[key] = vs  # (a store that ran replaces what the key held)
                else:
                    items[key] = join(items.get(key, v.elem or UNKNOWN_SET), vs)
            out.append(v.with_(items=tuple(items.items())))
        return frozenset(out)

    def _keyed_additions(self, added: list[nodes.NodeNG], d: int
                         ) -> list[tuple[str, frozenset[Value]]] | None:
        """``(key, value)`` of additions to a dict that all name their key (``d["k"] = v``,
        ``d.update(k=v)``, ``d.setdefault("k", v)``); None when one does not."""
        out = []
        for m in added:
            entry = _list_entry_key(m) if isinstance(m, nodes.Call) else None
            if entry is not None:
                item = self.value(m.args[-1], None, d) if m.args else UNKNOWN_SET
                if m.func.attrname == "extend":
                    item = self.iterate(item, d)
                out.append((entry[1], one(Kind.LIST, elem=item)))
                continue
            if isinstance(m, nodes.Subscript):
                key = const_str(m.slice)
                if key is None or not isinstance(m.parent, nodes.Assign):
                    return None
                out.append((key, self.value(m.parent.value, None, d)))
            elif m.func.attrname == "setdefault" and len(m.args) == 2 and \
                    const_str(m.args[0]) is not None:
                out.append((const_str(m.args[0]), self.value(m.args[1], None, d)))
            elif m.func.attrname == "update" and not m.args and m.keywords and \
                    all(kw.arg is not None for kw in m.keywords):
                out += [(kw.arg, self.value(kw.value, None, d)) for kw in m.keywords]
            else:
                return None
        return out

    # ------------------------------------------------------------------ attributes
    def attribute(self, base: frozenset[Value], attr: str, node: nodes.NodeNG | None,
                  ctx: Ctx | None, d: int) -> frozenset[Value]:
        """The value of ``<base>.attr``."""
        out: list[frozenset[Value]] = []
        for v in base:
            out.append(self._attr_of(v, attr, node, ctx, d))
        extra = self._assigned_attr(node, attr, d) if node is not None else None
        if extra is not None:
            out.append(extra)
        for v in base:
            if v.kind is Kind.OBJECT and isinstance(v.node, nodes.ClassDef) and \
                    v.has("custom") and not v.has("open"):
                stored = self._stored_on_instances(v.node, attr, d)
                if stored is not None:
                    out.append(stored)
        result = join(*out) if out else UNKNOWN_SET
        if not V.is_known(result) and isinstance(node, nodes.Attribute):
            key = source_key(node)
            used = self._usage_kind(node.frame(), key) if key else None
            if used is None and key is not None and key.startswith("self.") and \
                    key.count(".") == 1:
                # ``self.accelerator``: how the class's methods together use it (an object
                # stored in ``__init__`` and used across the methods); only an Accelerator
                # is told this way
                klass = enclosing_class(node.frame())
                found = self._usage_kind(klass, key) if klass is not None else None
                if found is not None and V.any_kind(found, Kind.FRAMEWORK):
                    used = found
            if used is not None:
                result = used
        if isinstance(node, nodes.Attribute):
            local = self._local_attr_assignment(node)
            if local is not None:
                # ``self.model = Net()`` earlier in the same function: that object, not
                # what the class's other methods store or move (unless that is unknown and
                # the class's use of the attribute tells what it is)
                assigned = self.binding_value(local, None, ctx, d)
                if V.is_known(assigned) or not V.any_kind(result, Kind.FRAMEWORK):
                    result = assigned
        if isinstance(node, nodes.Attribute) and V.any_kind(result, Kind.MODULE):
            moved = self._inplace_move(node, ctx, d)  # ``self.model.cpu()`` before the use
            if moved is not None:
                result = frozenset(v.with_(device=moved[0]) if v.kind is Kind.MODULE else v
                                   for v in result)
        return result

    def _namespace_keyword(self, call: nodes.Call, attr: str, d: int
                           ) -> frozenset[Value] | None:
        """``cfg.padding`` of ``cfg = SimpleNamespace(padding="longest", ...)`` (or an
        ``argparse.Namespace(...)`` built by hand): what the construction passes for it,
        evaluated in the module that constructs it; None when it passes nothing so named
        (attributes set on the object later flow as for any namespace)."""
        home = self.home_of(call)
        if home is None or home.qualname(call.func) not in NAMESPACE_TYPES:
            return None
        given = keyword(call, attr)
        return home.value(given, None, d) if given is not None else None

    def _local_attr_assignment(self, use: nodes.Attribute) -> nodes.AssignAttr | None:
        """The ``self.attr = value`` target that every path to ``use`` passes last in its
        own method: a statement of the method's body itself (not in a branch or a loop)
        before ``use``'s statement, with no other assignment of the attribute in between;
        else None (syntax only: memoised with the tree)."""
        if not isinstance(use.expr, nodes.Name) or use.expr.name != "self":
            return None
        table = self._shared_table("local_attrs", use)
        if id(use) in table:
            return table[id(use)]
        table[id(use)] = found = self._find_local_attr_assignment(use)
        return found

    def _find_local_attr_assignment(self, use: nodes.Attribute) -> nodes.AssignAttr | None:
        frame = use.frame()
        if not isinstance(frame, nodes.FunctionDef):
            return None
        key = source_key(use)
        stmt = use.statement()
        found: nodes.AssignAttr | None = None
        for top in frame.body:
            if top.fromlineno >= stmt.fromlineno or top is stmt or top.parent_of(use):
                break
            mine = [t for t in _assigned_attrs(top) if source_key(t) == key]
            if mine:
                found = mine[0]
            elif found is not None and any(source_key(t) == key for t in
                                           nodes_of(top, nodes.AssignAttr)):
                return None  # reassigned in a branch or loop after it
        if found is None:
            return None
        between = [t for t in self.own_nodes(frame, nodes.AssignAttr)
                   if t is not found and source_key(t) == key and
                   found.lineno < t.lineno < stmt.fromlineno]
        return None if between else found

    def _assigned_attr(self, node: nodes.NodeNG, attr: str, d: int
                       ) -> frozenset[Value] | None:
        """``obj.attr`` set by ``obj.attr = v`` elsewhere (``args.device = xm.xla_device()``).

        Found through the binding of ``obj``'s name, or through the object itself when
        it is a namespace made in this module and passed around (``train(args)``).
        """
        if not isinstance(node, nodes.Attribute) or not isinstance(node.expr, nodes.Name) or \
                node.expr.name in ("self", "cls"):
            return None
        table = self._object_attrs()
        found = []
        for b in self.bindings(node.expr):
            for target, _stmt in table.get((id(b), attr), []):
                found.append(self.binding_value(target, None, None, d))
        origins = {v.node_id for v in self.value(node.expr, None, d)
                   if v.kind is Kind.HOST and v.qual == "namespace"}
        if origins:
            for target in self._namespace_attrs(d).get(attr, []):
                if origins & {v.node_id for v in self.value(target.expr, None, d)}:
                    found.append(self.binding_value(target, None, None, d))
        return join(*found) if found else None

    def _stored_on_instances(self, klass: nodes.ClassDef, attr: str, d: int
                             ) -> frozenset[Value] | None:
        """What ``obj.attr = v`` stores into instances of ``klass`` from outside its
        methods (``state.loss = loss.detach()`` on a ``TrainState``): in this module, and
        in the project modules that build one; None when nothing does (memoised)."""
        key = (id(klass), "stored:" + attr)
        if key in self._param_memo:
            found = self._param_memo[key]
            return found or None
        self._param_memo[key] = EMPTY  # in progress: a cycle adds nothing
        evs: list[Evaluator] = [self]
        if self.link is not None:
            home = self.home_of(klass)
            if home is not None and home is not self:
                evs.append(home)
            if home is not None and isinstance(klass.parent, nodes.Module):
                evs += [ev for ev, _ in self.link.constructions(home, klass) or ()
                        if all(ev is not e for e in evs)]
        found: list[frozenset[Value]] = []
        for ev in evs:
            for target in ev._namespace_attrs(d).get(attr, []):
                if any(v.kind is Kind.OBJECT and v.node is klass
                       for v in ev.value(target.expr, None, d)):
                    found.append(ev.binding_value(target, None, None, d))
        result = join(*found) if found else EMPTY
        if any(V.holds_lazy(f) for f in found) and not all(V.holds_lazy(f) for f in found):
            # lazy tensors on some instances, other values on others (a loss meter and a
            # step-time meter of one class): which instance a reader holds is not known
            result = UNKNOWN_SET
        self._param_memo[key] = result
        return result or None

    def _namespace_attrs(self, d: int) -> dict[str, list[nodes.AssignAttr]]:
        """``X.attr = v`` assignments of the module whose ``X`` is a plain name."""
        table = getattr(self, "_ns_attrs", None)
        if table is None:
            table = {}
            for aa in self.module_nodes(nodes.AssignAttr):
                if isinstance(aa.expr, nodes.Name) and aa.expr.name not in ("self", "cls"):
                    table.setdefault(aa.attrname, []).append(aa)
            self._ns_attrs = table
        return table

    def _attr_of(self, v: Value, attr: str, node: nodes.NodeNG | None, ctx: Ctx | None,
                 d: int) -> frozenset[Value]:
        k = v.kind
        if k is Kind.REF:
            return self.ref(canonical(f"{v.qual}.{attr}"), node, d)
        if k is Kind.TENSOR:
            if attr in HOST_TENSOR_ATTRS or attr in MODEL_ONLY_ATTRS:
                # (``model.config`` of a model the analysis took for a tensor, as
                # ``x.to(device)`` of an unknown ``x`` is: no tensor has a config)
                return V.host()
            if attr == "device":
                return one(Kind.DEVICE, device=v.device)
            if attr not in SAME_TENSOR_ATTRS:
                # ``x.dist_type = 'normal'`` somewhere in the module: a Python attribute the
                # program sets on its objects holds what it assigns, not a tensor view.
                assigned = self._attrs_set_by_name().get(attr)
                if assigned:
                    return join(*(self.binding_value(t, None, None, d) for t in assigned))
            # (a transposed view, ``mask.T``, or ``.data`` keeps the dtype: a bool mask stays one)
            kept = v.flags & {"bool"} if attr in ("data", "T", "mT", "H", "mH") else set()
            return frozenset({v.with_(flags=v.flags - {"bool", "param"} | kept | (
                {"param"} if attr == "grad" and v.has("param") else set()))})
        if k is Kind.OBJECT and attr == "__dict__" and isinstance(v.node, nodes.ClassDef) \
                and d < MAX_DEPTH // 2:
            # ``fmtstr.format(**self.__dict__)`` (pytorch/examples' AverageMeter.__str__):
            # the instance's attributes by name, each with what the class stores in it
            names = sorted(self.class_attrs(v.node))
            if names and len(names) <= 32:
                return one(Kind.DICT, items=tuple(
                    (name, self._attr_of(v, name, None, ctx, d + 1)) for name in names))
        if (k in (Kind.MODULE, Kind.OBJECT) or k is Kind.DATASET and v.has("custom")) and \
                isinstance(v.node, nodes.ClassDef):
            # (a Dataset class of the project: ``self.tokenizer`` stored by ``__init__``)
            found = self._class_member(v, v.node, attr, ctx, d)
            if found is not None:
                return found
        if k is Kind.MODULE:
            if attr == "device":
                return one(Kind.DEVICE, device=v.device)
            if attr in HOST_MODULE_ATTRS:
                return V.host()
            if attr in TENSOR_MODULE_ATTRS:
                return V.tensor(v.device, flags=frozenset({"param"}))
            if attr == "module":
                return frozenset({v})
            if isinstance(v.node, nodes.ClassDef):
                return UNKNOWN_SET
            return UNKNOWN_SET
        if k is Kind.HOST:
            if v.qual == "namespace" and isinstance(v.node, nodes.Call):
                given = self._namespace_keyword(v.node, attr, d)
                if given is not None:
                    return given
                default = argparse_default(v.node, attr)
                if default is not None:
                    # ``args.test_bs``: the run as the script is configured by default
                    return self._const(default.value)
            return V.host()
        if k is Kind.LOADER:
            if attr == "dataset":
                return one(Kind.DATASET)
            if attr == "sampler":
                return one(Kind.SAMPLER)
            if attr in ("batch_size", "num_workers", "drop_last"):
                return V.host()
            return UNKNOWN_SET
        if k is Kind.OPTIMIZER:
            if attr == "optimizer" and v.has("managed"):
                # accelerate's AcceleratedOptimizer.optimizer: the raw optimizer under it
                return frozenset({v.with_(flags=(v.flags - {"managed"}) | {"raw"})})
            if attr == "param_groups":
                params = one(Kind.LIST, elem=V.tensor(None, flags=frozenset({"param"})))
                return one(Kind.LIST, elem=one(Kind.DICT, items=(("params", params),),
                                               elem=V.host()))
            return UNKNOWN_SET
        if k is Kind.FRAMEWORK:
            from flake8_xla.analysis import hooks
            return hooks.framework_attr(self, v, attr, d)
        if k is Kind.DEVICE:
            return V.host("str", text=v.device if attr == "type" else None)
        if k is Kind.CLASS and isinstance(v.node, nodes.ClassDef):
            found = self._class_member(v, v.node, attr, ctx, d)
            return found if found is not None else UNKNOWN_SET
        return UNKNOWN_SET

    def _class_member(self, v: Value, klass: nodes.ClassDef, attr: str, ctx: Ctx | None,
                      d: int) -> frozenset[Value] | None:
        method = self.method_of(klass, attr)
        hooks_ = self._hooks(v.has("open"), klass, attr, method)
        if hooks_:
            return join(*(one(Kind.FUNCTION, node=m, bound=self._instance_anywhere(c))
                          for m, c in hooks_))
        if method is not None:
            if method.decorators is not None and any(
                    (isinstance(dd, nodes.Name) and dd.name in ("property", "cached_property"))
                    or (isinstance(dd, nodes.Attribute) and dd.attrname == "cached_property")
                    for dd in method.decorators.nodes):
                return self.returns(method, self.bind_self(method, v, ctx), d)
            if is_staticmethod(method) or (v.kind is Kind.CLASS and
                                           not is_classmethod(method)):
                # ``Loss._one_hot(t, n)`` of a staticmethod, or ``Base.step(self, x)``
                # through the class: every argument is passed, none is bound
                return one(Kind.FUNCTION, node=method)
            return one(Kind.FUNCTION, node=method, bound=frozenset({v}))
        table = self.class_attrs(klass)
        if attr in table:
            found = self._class_attr_value(klass, attr, table[attr], d)
            if v.kind is Kind.MODULE:
                # Parameters, buffers and submodules move with the module
                # (module.to(device)): ``model.encoder.state_dict()`` of a model on the
                # XLA device holds XLA tensors. A plain tensor attribute does not move: it
                # stays where it was made.
                if _plain_tensor_attr(klass, attr, table[attr], self):
                    return found
                found = frozenset(
                    x.with_(device=v.device) if (x.kind is Kind.TENSOR and x.device != "xla")
                    or (x.kind is Kind.MODULE and v.device is not None) else x
                    for x in found)
            return found
        return None

    def _class_attr_value(self, klass: nodes.ClassDef, attr: str,
                          targets: list[tuple[nodes.NodeNG, nodes.NodeNG]], d: int
                          ) -> frozenset[Value]:
        """The join of every assignment of a class attribute (``self.attr = ...`` in any
        method, or the class body), in no context; memoised as :meth:`value` memoises
        (not while a cycle through it is being followed). A class of a few thousand lines
        (``transformers.Trainer``) reads its attributes tens of thousands of times."""
        key = (id(klass), attr)
        found = self._member_memo.get(key)
        if found is not None:
            return found
        outer_low = self._cycle_low
        self._cycle_low = _NO_CYCLE
        if len(targets) > 1:
            # ``self.loader = DataLoader(...)``, then ``(..., self.loader) =
            # accelerator.prepare(..., self.loader)`` later in the same method: the first
            # is never what the method leaves behind for the others
            live = [(t, stmt) for t, stmt in targets if not _overwritten_in_method(t)]
            targets = live or targets
        if len(targets) > 1:
            # ``if self.use_tpu: self.loader = pl.MpDeviceLoader(...)`` / ``else:
            # self.loader = loader``: an assignment only off the XLA path never reaches it
            from flake8_xla.analysis.paths import off_xla_path
            targets = [(t, stmt) for t, stmt in targets
                       if not (isinstance(t, nodes.AssignAttr) and off_xla_path(t, self))
                       ] or targets
        field = self._dataclass_field(klass, attr, d)
        if field is not None:
            # what the constructions pass (or the field's default), not the default alone
            targets = [(t, stmt) for t, stmt in targets if stmt is not field[0]]
        found = join(*(self.binding_value(target, None, None, d)
                       if isinstance(target, (nodes.AssignName, nodes.AssignAttr))
                       else self.value(target, None, d) for target, _ in targets),
                     *([field[1]] if field is not None else []))
        if found and all(v.kind is Kind.DICT and v.items is not None for v in found):
            found = self._self_keyed_stores(klass, attr, found, d)
        if V.any_kind(found, Kind.MODULE):
            moved = self._attr_moved(klass, attr, d)
            if moved is not None:
                found = frozenset(v.with_(device=moved[0]) if v.kind is Kind.MODULE else v
                                  for v in found)
        elif not V.is_known(found) and self._used_as_module(klass, attr):
            # ``self.model.to(device)`` as a statement, and ``self.model(x)`` or
            # ``self.model.parameters()`` in the class: only a module moves in place (a
            # tensor's ``.to()`` returns a copy, so the statement is a no-op bug there)
            moved = self._attr_moved(klass, attr, d, statements=True)
            if moved is not None:
                found = one(Kind.MODULE, device=moved[0])
        inner_low = self._cycle_low
        if inner_low >= len(self._busy) and not self.spent:
            self._member_memo[key] = found
            inner_low = _NO_CYCLE
        self._cycle_low = min(outer_low, inner_low)
        return found

    def _self_keyed_stores(self, klass: nodes.ClassDef, attr: str,
                           found: frozenset[Value], d: int) -> frozenset[Value]:
        """A dict attribute with what the class's methods store under constant keys
        (``self.metrics["loss"] = loss``): each such key may hold those values too."""
        table = self._shared_table("self_subscripts", klass)
        stores = table.get(id(klass))
        if stores is None:  # (``self.x[k] = v`` in the class, one walk per class)
            stores = table[id(klass)] = [
                n for n in nodes_of(klass, nodes.Subscript)
                if isinstance(n.parent, nodes.Assign) and n in n.parent.targets and
                isinstance(n.value, nodes.Attribute) and isinstance(n.value.expr, nodes.Name)
                and n.value.expr.name == "self"]
        added: dict[str, list[frozenset[Value]]] = {}
        for sub in stores:
            key = const_str(sub.slice)
            if sub.value.attrname != attr:
                continue
            if key is None:
                return frozenset(v.with_(elem=join(v.elem or EMPTY, UNKNOWN_SET))
                                 for v in found)  # (a key not known: any entry may change)
            added.setdefault(key, []).append(self.value(sub.parent.value, None, d))
        if not added:
            return found
        out = []
        for v in found:
            items = dict(v.items or ())
            for key, vs in added.items():
                items[key] = join(items.get(key, EMPTY), *vs)
            out.append(v.with_(items=tuple(items.items())))
        return frozenset(out)

    def _dataclass_field(self, klass: nodes.ClassDef, attr: str, d: int
                         ) -> tuple[nodes.AnnAssign, frozenset[Value]] | None:
        """``(field statement, value)`` of a dataclass field: the join of what every
        construction of the class passes for it, in this module and in the project modules
        that name the class (``DataCfg(drop_last=True)``), the field's default where a
        construction leaves it out. None when ``attr`` is not such a field, or nothing
        constructs the class (the default then stands, as for any class attribute)."""
        if "__init__" in klass.locals or not _is_dataclass(klass, self):
            return None
        if self.link is not None and (home := self.home_of(klass)) is not self:
            # a class of another module (``DataInfo`` of data.py, read where a loop gets
            # it): its own module's Evaluator finds the constructions that name it
            return home._dataclass_field(klass, attr, d) if home is not None else None
        fields = [item for item in klass.body if isinstance(item, nodes.AnnAssign) and
                  isinstance(item.target, nodes.AssignName) and
                  "ClassVar" not in item.annotation.as_string()]
        stmt = next((f for f in fields if f.target.name == attr), None)
        if stmt is None:
            return None
        position = fields.index(stmt) if not klass.bases else None
        sites: list[tuple[Evaluator, nodes.Call]] = [
            (self, c) for c in self.calls_named(klass.name)]
        if self.link is not None:
            remote = self.link.constructions(self, klass)
            if remote is None:
                return stmt, UNKNOWN_SET
            sites += remote
        found: list[frozenset[Value]] = []
        for ev, call in sites:
            if not any(v.kind is Kind.CLASS and v.node is klass
                       for v in ev.value(call.func, None, d)):
                continue
            if any(isinstance(a, nodes.Starred) for a in call.args) or any(
                    kw.arg is None for kw in call.keywords or ()):
                found.append(UNKNOWN_SET)
                continue
            arg = keyword(call, attr)
            if arg is None and call.args:
                if position is None:
                    found.append(UNKNOWN_SET)
                    continue
                arg = call.args[position] if position < len(call.args) else None
            found.append(ev.value(arg, None, d) if arg is not None
                         else self._field_default(stmt, d))
        home = self.link.evaluator_of(klass) if self.link is not None and \
            klass.root() is not self.module else None
        for ev in {id(e): e for e, _ in [(self, None), (home, None), *sites]
                   if e is not None}.values():
            found += ev._replaced_field(klass, attr, d)
        if not found:
            return None
        return stmt, join(*found)

    def _replaced_field(self, klass: nodes.ClassDef, attr: str, d: int
                        ) -> list[frozenset[Value]]:
        """What ``dataclasses.replace(obj, attr=v)`` calls of this module put into field
        ``attr`` of a ``klass`` instance (also through ``**changes`` with known keys); a
        call that leaves the field out keeps what the instance held."""
        out: list[frozenset[Value]] = []
        for call in self.calls_named("replace"):
            if self.qualname(call.func) != "dataclasses.replace" or not call.args or not any(
                    v.kind is Kind.OBJECT and v.node is klass
                    for v in self.value(call.args[0], None, d)):
                continue
            arg = keyword(call, attr)
            if arg is not None:
                out.append(self.value(arg, None, d))
                continue
            for kw in call.keywords or ():
                if kw.arg is None:
                    for v in self.value(kw.value, None, d):
                        if v.kind is not Kind.DICT or v.elem is not None:
                            out.append(UNKNOWN_SET)
                        elif attr in dict(v.items or ()):
                            out.append(dict(v.items or ())[attr])
        return out

    def _field_default(self, stmt: nodes.AnnAssign, d: int) -> frozenset[Value]:
        """A dataclass field's default: ``= value``, or ``field(default=value)``."""
        value = stmt.value
        if isinstance(value, nodes.Call) and callee_name(value.func) == "field":
            value = keyword(value, "default")
        return self.value(value, None, d) if value is not None else UNKNOWN_SET

    def _attr_moved(self, klass: nodes.ClassDef, attr: str, d: int, *,
                    statements: bool = False) -> tuple[str | None] | None:
        """The device that ``self.attr.to(dev)`` / ``.cuda()`` / ``.cpu()`` calls in the class's
        methods move a module attribute to, or None (no such call, or calls that disagree;
        ``statements``: also None when no such call is a statement of its own).

        ``nn.Module.to()`` moves the module in place (and returns it), so
        ``model = self.model.to(self.device)`` in ``train()`` also moves the module that
        ``save()`` later reads as ``self.model``. Flow-insensitive over the class: moves to
        different devices (to the CPU for saving) leave the device unknown.
        """
        devices: set[str | None] = set()
        calls = self._self_attr_calls(klass).get(attr, [])
        if statements and not any(isinstance(c.parent, nodes.Expr) for c in calls):
            return None
        for call in calls:
            name = call.func.attrname
            if name == "to":
                from flake8_xla.analysis.specs import device_value
                dev_node = keyword(call, "device") or (call.args[0] if call.args else None)
                is_dev, dev = device_value(self, dev_node, None, d)
                if not is_dev:
                    continue  # ``.to(torch.bfloat16)``: a dtype
                devices.add(dev)
            else:
                devices.add(name)
        if len(devices) != 1:
            return None
        return (devices.pop(),)

    def _used_as_module(self, klass: nodes.ClassDef, attr: str) -> bool:
        """A method of the class calls ``self.attr(...)`` or a module method on it
        (``self.attr.parameters()``, ``.state_dict()``, ``.train()``)."""
        key = f"self.{attr}"
        return any(key in self._called_keys(m) or
                   self._attribute_uses(m).get(key, (set(), False))[0] & MODULE_USES
                   for m in klass.mymethods())

    def _stored_callable(self, f: nodes.Attribute) -> bool:
        """``self.eval_fn`` is stored from something other than a constructor call (a
        parameter such as ``eval_fn=evaluate``, a function, a lambda): a callback whose
        function may be the module's, unlike a submodule (``self.fc = nn.Linear(...)``)."""
        if f.attrname not in self._self_assigned_names():
            return False  # (syntax first: no ``self.<name> = ...`` in the module)
        method = f.frame()
        klass = enclosing_class(method) if isinstance(method, nodes.FunctionDef) else None
        if klass is None:
            return False
        stmts = [stmt for _, stmt in self.class_attrs(klass).get(f.attrname, [])]
        return bool(stmts) and any(
            isinstance(stmt, nodes.Assign) and not isinstance(stmt.value, nodes.Call)
            for stmt in stmts)

    def _self_assigned_names(self) -> frozenset[str]:
        """Names ``X`` of every ``self.X = ...`` target in the module (memoised with the
        tree)."""
        table = syntax_cache(self.module)
        found = table.get("self_assigned")
        if found is None:
            found = table["self_assigned"] = frozenset(
                aa.attrname for aa in self.module_nodes(nodes.AssignAttr)
                if isinstance(aa.expr, nodes.Name) and aa.expr.name == "self")
        return found

    def _self_attr_calls(self, klass: nodes.ClassDef) -> dict[str, list[nodes.Call]]:
        """``attr -> [self.attr.to(...) / .cuda() / .cpu() calls]`` in the class's methods
        and those of its base classes in the module (a ``Base.train`` that moves the model
        a ``Sub.save`` saves), including a statement move of a local alias
        (``model = self.model`` then ``model.to(device)``)."""
        moves = self._shared_table("attr_moves", klass)
        table = moves.get(id(klass))
        if table is None:
            table = moves[id(klass)] = {}  # (a cycle of bases adds nothing)
            for method in klass.mymethods():
                # ``model = self.model`` then ``model.to(device)``: the same module
                aliases = {a.targets[0].name: a.value.attrname
                           for a in nodes_of(method, nodes.Assign)
                           if len(a.targets) == 1 and isinstance(a.targets[0], nodes.AssignName)
                           and isinstance(a.value, nodes.Attribute) and
                           isinstance(a.value.expr, nodes.Name) and a.value.expr.name == "self"}
                for call in nodes_of(method, nodes.Call):
                    f = call.func
                    if not (isinstance(f, nodes.Attribute) and
                            f.attrname in ("to", "cuda", "cpu")):
                        continue
                    if isinstance(f.expr, nodes.Attribute) and \
                            isinstance(f.expr.expr, nodes.Name) and f.expr.expr.name == "self":
                        table.setdefault(f.expr.attrname, []).append(call)
                    elif isinstance(f.expr, nodes.Name) and f.expr.name in aliases and \
                            isinstance(call.parent, nodes.Expr):
                        table.setdefault(aliases[f.expr.name], []).append(call)
            for base in klass.bases:
                if isinstance(base, nodes.Name):
                    for b in self.bindings(base):
                        if isinstance(b, nodes.ClassDef) and b is not klass:
                            for attr, calls in self._self_attr_calls(b).items():
                                table.setdefault(attr, []).extend(
                                    c for c in calls if c not in table.get(attr, []))
        return table

    def bind_self(self, method: nodes.FunctionDef, self_v: Value, ctx: Ctx | None) -> Ctx:
        """A context for ``method`` with its first parameter bound to ``self_v``."""
        params = self._params(method)
        args = {params[0]: frozenset({self_v})} if params else {}
        return Ctx(method, args, self._parent_ctx(method, ctx), (ctx.depth + 1) if ctx else 1)

    # ------------------------------------------------------------------ subscripts
    def subscript(self, base: frozenset[Value], index: nodes.NodeNG, ctx: Ctx | None, d: int
                  ) -> frozenset[Value]:
        """The value of ``<base>[index]``."""
        key: object = None
        if isinstance(index, nodes.Const):
            key = index.value
        is_slice = isinstance(index, nodes.Slice)
        keys: list[str] | None = None  # the strings a non-constant key may be
        if key is None and not is_slice and any(
                v.kind is Kind.DICT and v.items for v in base):
            kv = self.value(index, ctx, d)
            if kv and all(k.kind is Kind.HOST and k.qual == "str" and k.text is not None
                          for k in kv):
                keys = sorted(k.text for k in kv)  # ``for k in ["epoch", "lr"]: d[k]``
        out: list[frozenset[Value]] = []
        for v in base:
            if v.kind in (Kind.TUPLE, Kind.LIST):
                if is_slice:
                    out.append(frozenset({v.with_(elts=None, elem=self.iterate(
                        frozenset({v}), d))}))
                elif v.elts is not None and isinstance(key, int) and -len(v.elts) <= key < len(
                        v.elts):
                    out.append(v.elts[key])
                else:
                    out.append(self.iterate(frozenset({v}), d))
            elif v.kind is Kind.DICT:
                items = dict(v.items or ())
                if isinstance(key, str) and key in items:
                    out.append(items[key])
                elif keys is not None and items:
                    out.extend(items.get(k, v.elem if v.elem is not None else UNKNOWN_SET)
                               for k in keys)
                elif isinstance(key, str) and items:
                    # a constant key the dict does not hold by name: one of its other values
                    out.append(v.elem if v.elem is not None else UNKNOWN_SET)
                else:
                    out.append(join(*items.values(), v.elem or EMPTY) if (items or v.elem)
                               else UNKNOWN_SET)
            elif v.kind is Kind.TENSOR:
                out.append(frozenset({v.with_(flags=v.flags - {"param"})}))
            elif v.kind is Kind.HOST:
                out.append(_host_item(v))
            elif v.kind is Kind.MODULE:
                out.append(frozenset({v.with_(node=None, flags=frozenset())}))
            elif v.kind is Kind.DATASET and v.has("stream") and isinstance(key, str):
                # ``load_dataset(..., streaming=True)["train"]``: a split of the
                # IterableDatasetDict, the same stream
                out.append(frozenset({v}))
            elif v.kind is Kind.DATASET and isinstance(key, str) and \
                    key.lower().replace("-", "_").split("_")[0] in SPLIT_NAMES:
                # ``tokenized["train"]``: a split of a DatasetDict (a column of a dataset
                # is read by its column name), of a size not known here
                out.append(frozenset({v.with_(text=None)}))
            elif v.kind in (Kind.ITERATOR, Kind.LOADER, Kind.PROGRESS, Kind.DATASET):
                out.append(self.iterate(frozenset({v}), d))
            else:
                out.append(UNKNOWN_SET)
        return join(*out) if out else UNKNOWN_SET

    # ------------------------------------------------------------------ iteration
    def iterate(self, vs: frozenset[Value], d: int = 0) -> frozenset[Value]:
        """The value of one element of an iterable."""
        out: list[frozenset[Value]] = []
        for v in vs:
            k = v.kind
            if k is Kind.LOADER and v.has("xla") and v.bound:
                # a loader that moves another's batches to the device (MpDeviceLoader,
                # accelerate's prepare): that loader's batches, on the device
                out.append(self._batches(v, d))
            elif v.elem is not None and k in (Kind.ITERATOR, Kind.LIST, Kind.PROGRESS,
                                              Kind.LOADER):
                out.append(v.elem)
            elif k in (Kind.TUPLE, Kind.LIST):
                out.append(join(*v.elts) if v.elts else (EMPTY if v.elts == () else UNKNOWN_SET))
            elif k is Kind.LOADER:
                out.append(self._batches(v, d))
            elif k is Kind.DICT:
                out.append(V.host("str"))
            elif k is Kind.TENSOR:
                out.append(frozenset({v.with_(flags=v.flags - {"param"})}))
            elif k is Kind.HOST:
                out.append(V.host("int") if v.qual == "range" else _host_item(v))
            elif k is Kind.DATASET:
                out.append(V.tensor("cpu"))
            elif k is Kind.MODULE:
                out.append(frozenset({v.with_(node=None, flags=frozenset())}))
            elif k is Kind.OBJECT and isinstance(v.node, nodes.ClassDef):
                out.append(self._object_elements(v, d))
            elif k is Kind.FRAMEWORK:
                out.append(UNKNOWN_SET)
            else:
                out.append(UNKNOWN_SET)
        return join(*out) if out else UNKNOWN_SET

    def _batches(self, v: Value, d: int) -> frozenset[Value]:
        if v.has("custom") and isinstance(v.node, nodes.ClassDef):
            inner = self._object_elements(v, d)
            if V.is_known(inner):
                return inner
        if v.has("xla"):
            # Batches of a loader it wraps whose collate_fn's structure is known: the same
            # structure, its tensors moved to the device (Python values stay on the host).
            inner = [b.elem for b in v.bound or () if b.kind is Kind.LOADER]
            batch = V.move_device(join(*inner), "xla") if inner and len(inner) == len(
                v.bound) and all(e is not None for e in inner) else V.tensor("xla")
            if v.has("indexed"):
                return one(Kind.TUPLE, elts=(V.host("int"), batch))
            return batch
        if v.has("plain"):
            return V.tensor("cpu")
        return UNKNOWN_SET

    def _object_elements(self, v: Value, d: int) -> frozenset[Value]:
        """Elements of an instance whose class defines ``__iter__`` (a custom loader)."""
        klass = v.node
        method = self.method_of(klass, "__iter__")
        if method is None:
            method = self.method_of(klass, "__getitem__")
            if method is None:
                return UNKNOWN_SET
            return self.returns(method, self.bind_self(method, v, None), d)
        result = self.returns(method, self.bind_self(method, v, None), d)
        return self.iterate(result, d)

    # ------------------------------------------------------------------ operators
    def _binop(self, node: nodes.BinOp, ctx: Ctx | None, d: int) -> frozenset[Value]:
        if node.op == "%" and const_str(node.left) is not None:
            return V.host("str")
        left = self.value(node.left, ctx, d)
        right = self.value(node.right, ctx, d)
        return self._arith(left, right, node.op)

    def _arith(self, left: frozenset[Value], right: frozenset[Value], op: str
               ) -> frozenset[Value]:
        if not left:
            return right
        if not right:
            return left
        both = left | right
        read = frozenset({"read"}) if any(v.has("read") for v in both) else frozenset()
        if V.any_kind(both, Kind.TENSOR):
            flags = frozenset({"bool"}) if op in ("&", "|", "^") and all(
                v.has("bool") for v in both if v.kind is Kind.TENSOR) else frozenset()
            return V.tensor(V.tensor_device(both), flags=flags | read)
        if V.all_kind(both, Kind.HOST):
            folded = _fold_ints(left, right, op) if not read else None
            if folded is not None:
                return V.host("int", text=str(folded))  # ``2 * args.test_bs``
            return frozenset({Value(Kind.HOST, flags=read)}) if read else V.host()
        if op in ("+", "*") and V.all_kind(both, Kind.LIST, Kind.TUPLE, Kind.HOST):
            lists = V.of_kind(both, Kind.LIST, Kind.TUPLE)
            return one(Kind.LIST, elem=self.iterate(frozenset(lists)))
        if V.all_kind(both, Kind.HOST, Kind.UNKNOWN):
            # each side may be a host number or unknown (``mel_len = min(n_read,
            # max_len // 2)`` with ``max_len`` from a config): the numbers combine as
            # numbers, a pair with an unknown side stays unknown
            hosts_l, hosts_r = V.of_kind(left, Kind.HOST), V.of_kind(right, Kind.HOST)
            if hosts_l and hosts_r:
                return self._arith(frozenset(hosts_l), frozenset(hosts_r), op) | UNKNOWN_SET
            if read:
                # ``self.cur_len + self.cfg.prefix_len``: whatever the unknown side is, the
                # result is computed from a number read from the device
                return frozenset({Value(Kind.HOST, flags=read)}) | UNKNOWN_SET
        return UNKNOWN_SET

    def _boolop(self, node: nodes.BoolOp, ctx: Ctx | None, d: int) -> frozenset[Value]:
        """``a and b`` / ``a or b``: the operand Python stops at, where the truth of the
        operands before it is known (``cfg.amp and cfg.dtype == torch.float16`` with
        ``amp = True`` and a bfloat16 dtype is False); else every operand's value."""
        values = [self.value(v, ctx, d) for v in node.values]
        stop = node.op == "or"  # the truth at which Python stops and returns the operand
        for i, vs in enumerate(values):
            truth = _host_truth(vs)
            if i == len(values) - 1 or truth is stop:
                return vs
            if truth is None:
                break
        return join(*values)

    def _compare(self, node: nodes.Compare, ctx: Ctx | None, d: int) -> frozenset[Value]:
        if all(op in ("is", "is not", "in", "not in") for op, _ in node.ops):
            return V.host("bool")
        if len(node.ops) == 1 and node.ops[0][0] in ("==", "!=") and any(
                isinstance(n, nodes.Const) and n.value is None
                for n in (node.left, node.ops[0][1])):
            # ``if self.c == None:``: ``Tensor.__eq__(None)`` returns NotImplemented, so
            # Python compares identities, a host bool (torch ``_tensor.py``)
            return V.host("bool")
        parts = [self.value(node.left, ctx, d)] + [self.value(n, ctx, d) for _, n in node.ops]
        both = join(*parts)
        if len(node.ops) == 1 and node.ops[0][0] in ("==", "!=") and any(
                isinstance(n, nodes.Const) and isinstance(n.value, str) or
                isinstance(n, nodes.JoinedStr) for n in (node.left, node.ops[0][1])):
            # ``batch["sentiment"][i] == "neutral"``: compared with a string, the other side
            # is a string (a tensor never equals one), never a lazy tensor
            return V.host("bool", _string_equality(node, parts))
        if V.any_kind(both, Kind.TENSOR):
            return V.tensor(V.tensor_device(both), flags=frozenset({"bool"}))
        if V.all_kind(both, Kind.HOST, Kind.DEVICE, Kind.REF):
            return V.host("bool", _string_equality(node, parts))
        return UNKNOWN_SET

    # ------------------------------------------------------------------ calls
    def call_entries(self, call: nodes.Call, ctx: Ctx | None = None, d: int = 0
                     ) -> list[Entry]:
        """The API model entries of what ``call`` calls (several for a union receiver)."""
        func = call.func
        q = self.qualname(func)
        if q is not None:
            e = self.api.call(q)
            return [e] if e is not None else []
        out: list[Entry] = []
        if isinstance(func, nodes.Name):
            for v in self.value(func, ctx, d):
                if v.kind is Kind.REF:
                    e = self.api.call(v.qual)
                    if e is not None:
                        out.append(e)
            return out
        if isinstance(func, nodes.Attribute):
            receivers = self.value(func.expr, ctx, d)
            if func.attrname in TOKENIZER_READS and _named_tokenizer(func.expr) and all(
                    v.kind is Kind.UNKNOWN for v in receivers):
                # ``self.tokenizer.decode(ids)`` with the tokenizer handed in from elsewhere:
                # decoding reads the token ids to the host (a VAE's ``decode`` is not named so)
                e = self.api.method("tokenizer", func.attrname)
                return [e] if e is not None else []
            for v in receivers:
                e = self._method_entry(v, func.attrname)
                if e is not None and e not in out:
                    out.append(e)
        return out

    def _method_entry(self, v: Value, name: str) -> Entry | None:
        if v.kind is Kind.REF:
            return self.api.call(canonical(f"{v.qual}.{name}"))
        kind = v.kind.value
        if v.kind is Kind.MODULE and isinstance(v.node, nodes.ClassDef) and \
                self.method_of(v.node, name) is not None:
            return None
        e = self.api.method(kind, name)
        if e is None and v.kind is Kind.UNKNOWN:
            e = self.api.method("any", name)
        if e is None and v.kind in (Kind.TUPLE, Kind.LIST):
            e = self.api.method("list", name)
        return e

    def call_value(self, call: nodes.Call, ctx: Ctx | None, d: int) -> frozenset[Value]:
        """The value a call returns."""
        func = call.func
        q = self.qualname(func)
        if q == "functools.partial" and call.args:
            return self._partial(call, ctx, d)
        if q is not None:
            return self._apply(self.api.call(q), q, call, None, ctx, d)
        if isinstance(func, nodes.Attribute):
            receivers = self.value(func.expr, ctx, d)
            out = [self._method_call(v, func.attrname, call, ctx, d) for v in receivers]
            return join(*out) if out else UNKNOWN_SET
        callee = self.value(func, ctx, d)
        out = [self._call_of(v, call, ctx, d) for v in callee]
        return join(*out) if out else UNKNOWN_SET

    def _partial(self, call: nodes.Call, ctx: Ctx | None, d: int) -> frozenset[Value]:
        """``functools.partial(fn, *args, **keywords)``: ``fn``'s function values, each
        holding the arguments bound into it (positional in ``elts``, keywords in
        ``items``, flag ``"partial"``), which a call of it passes before its own
        (:meth:`_partial_arguments`). Anything else ``fn`` may be passes through."""
        bound = self.call_arguments(call, ctx, d)
        if bound.starred or bound.star_kwargs:
            return self.value(call.args[0], ctx, d)
        out = []
        for v in self.value(call.args[0], ctx, d):
            if v.kind is Kind.FUNCTION and v.node is not None:
                elts = (v.elts or ()) + bound.positional[1:]
                items = (v.items or ()) + bound.keywords
                v = v.with_(elts=elts, items=items, flags=v.flags | {"partial"})
            out.append(frozenset({v}))
        return join(*out) if out else UNKNOWN_SET

    @staticmethod
    def _partial_arguments(v: Value | None, passed: CallArgs) -> CallArgs:
        """``passed`` after the arguments a ``functools.partial`` value ``v`` bound: its
        positional ones first, its keywords unless the call passes the same keyword."""
        if v is None or not v.has("partial"):
            return passed
        given = {name for name, _ in passed.keywords}
        return CallArgs(tuple(v.elts or ()) + passed.positional,
                        tuple((n, vs) for n, vs in v.items or () if n not in given) +
                        passed.keywords, passed.starred, passed.star_kwargs)

    def _call_of(self, v: Value, call: nodes.Call, ctx: Ctx | None, d: int
                 ) -> frozenset[Value]:
        k = v.kind
        if k is Kind.REF:
            return self._apply(self.api.call(v.qual), v.qual, call, None, ctx, d)
        if k is Kind.FUNCTION and v.node is not None:
            return self.call_function(v.node, call, ctx, d, self_v=v.bound,
                                      partial=v if v.has("partial") else None)
        if k is Kind.CLASS and isinstance(v.node, nodes.ClassDef):
            return self._construct(v.node, call, ctx, d)
        if k is Kind.MODULE:
            return self.module_call(frozenset({v}), call, ctx, d)
        if k is Kind.OBJECT and isinstance(v.node, nodes.ClassDef):
            method = self.method_of(v.node, "__call__")
            if method is not None:
                return self.call_function(method, call, ctx, d, self_v=frozenset({v}))
            return UNKNOWN_SET
        if k is Kind.TOKENIZER:
            return V.tensor("cpu")
        if k is Kind.COLLATOR:
            return V.tensor("cpu")
        return self._unknown_call(call, ctx, d)

    def _unknown_call(self, call: nodes.Call, ctx: Ctx | None, d: int) -> frozenset[Value]:
        """A call of something unknown: a tensor when it is handed lazy tensors.

        (Not a CPU tensor when handed CPU tensors only: an unknown model run on a batch
        of a plain DataLoader would then make its loop CPU training, see
        ``Steps.cpu_training``.)"""
        args = [self.value(a, ctx, d) for a in call.args]
        args += [self.value(k.value, ctx, d) for k in call.keywords or ()]
        if any(V.holds_lazy(a) for a in args):
            return V.tensor(V.tensor_device(join(*args)) or None)
        return UNKNOWN_SET

    def _method_call(self, v: Value, name: str, call: nodes.Call, ctx: Ctx | None, d: int
                     ) -> frozenset[Value]:
        k = v.kind
        if k is Kind.REF:
            q = canonical(f"{v.qual}.{name}")
            return self._apply(self.api.call(q), q, call, None, ctx, d)
        if k in (Kind.OBJECT, Kind.MODULE, Kind.LOADER, Kind.DATASET, Kind.OPTIMIZER,
                 Kind.SAMPLER) and isinstance(v.node, nodes.ClassDef):
            method = self.method_of(v.node, name)
            hooks_ = self._hooks(v.has("open"), v.node, name, method)
            if hooks_:
                return join(*(self.call_function(m, call, ctx, d,
                                                 self_v=self._instance_anywhere(c))
                              for m, c in hooks_))
            if method is not None:
                found = self.call_function(method, call, ctx, d, self_v=frozenset({v}))
                if v.has("open"):
                    # ``self.train_dataloader()`` in a base class's loop: ``self`` may be
                    # an instance of a subclass that overrides it (as call resolution
                    # takes it, see _dispatched)
                    overrides = [(m, c) for m, c in self.subclass_methods(v.node, name)
                                 if m is not method]
                    if overrides:
                        found = join(found, *(
                            self.call_function(m, call, ctx, d,
                                               self_v=self._instance_anywhere(c))
                            for m, c in overrides))
                return found
            member = self._class_member(v, v.node, name, ctx, d)
            if member is not None:
                # self.criterion(...), self.model(...): call what the attribute holds
                out = [self._call_of(m, call, ctx, d) for m in member]
                return join(*out) if out else UNKNOWN_SET
            if k is Kind.OBJECT:
                return self._unknown_call(call, ctx, d)
        if k is Kind.FUNCTION and name in ("__call__",):
            return self._call_of(v, call, ctx, d)
        if k is Kind.CLASS and isinstance(v.node, nodes.ClassDef):
            method = self.method_of(v.node, name)
            if method is not None and not is_classmethod(method):
                # ``UNet3DTrainer.get_optimizer(params, flags)``: a static method through
                # its class (or a plain one handed its instance explicitly)
                return self.call_function(method, call, ctx, d)
        if k is Kind.CLASS and name in CLASS_CONSTRUCTORS and isinstance(v.node, nodes.ClassDef) \
                and self.method_of(v.node, name) is None and \
                self.class_kind(v.node) is Kind.MODULE:
            # ``XLAMixtral.from_pretrained(...)``: the library's constructor builds an
            # instance of the project's subclass, whose methods it has
            return self.instance(v.node)
        if k is Kind.DICT and v.items and name in ("get", "pop", "setdefault") and \
                call.args and const_str(call.args[0]) is not None:
            # ``info.get("epoch", 0)``: that key's entry, else the default
            items = dict(v.items)
            held = items.get(const_str(call.args[0]))
            if held is None:  # (a dict whose keys are all known does not hold it)
                held = v.elem if v.elem is not None else EMPTY
            default = self.value(call.args[1], ctx, d) if len(call.args) > 1 else \
                V.host("none")
            return join(held, default) if name != "pop" or len(call.args) > 1 else (
                held or UNKNOWN_SET)
        entry = self._method_entry(v, name)
        if entry is not None and entry.returns is not None:
            return self._apply(entry, None, call, v, ctx, d)
        if k is Kind.TENSOR:
            # A forward pass's dict of outputs holds what the forward computed on the
            # module's device (``{"loss": loss, "acc": acc}``), the XLA device or one not
            # known here (a loss module's metrics: lazy in a step that runs on XLA); a
            # batch dict's entry may be a tensor or host data.
            entry_v = frozenset({v.with_(flags=frozenset({"output"}))}) if \
                v.has("output") and v.device in ("xla", V.ANY_DEVICE, None) else UNKNOWN_SET
            if name in ("get", "pop", "setdefault"):
                return entry_v
            if name in ("items", "values", "keys"):
                elem = entry_v if name != "keys" else V.host("str")
                if name == "items":
                    elem = one(Kind.TUPLE, elts=(V.host("str"), entry_v))
                return one(Kind.ITERATOR, elem=elem)
            kept = v.flags & {"bool"} if name in DTYPE_KEEPING_METHODS else frozenset()
            return frozenset({v.with_(flags=v.flags - {"param", "bool"} | kept)})
        if k is Kind.MODULE and name not in ("__init__",):
            return self._unknown_call(call, ctx, d)
        if k is Kind.HOST:
            return V.host()
        if k is Kind.UNKNOWN:
            if name in ("to", "cuda"):
                # x.to(device) of an unknown x: a tensor (or a batch) on that device.
                from flake8_xla.analysis.specs import device_value
                if name == "cuda":
                    return V.tensor("cuda")
                dev = keyword(call, "device") or (call.args[0] if call.args else None)
                is_dev, which = device_value(self, dev, ctx, d)
                if not is_dev:
                    return UNKNOWN_SET
                if self._module_like(call):
                    return one(Kind.MODULE, device=which)
                return V.tensor(which)
            if name == "cpu" and not call.args and not call.keywords:
                # ``teacher.cpu()``, ``x.cpu()`` of an unknown value: on the host now
                return one(Kind.MODULE, device="cpu") if self._module_like(call) \
                    else V.tensor("cpu")
            out = self._unknown_call(call, ctx, d)
            if out == UNKNOWN_SET and name in TENSOR_ONLY_METHODS and \
                    not _defines_method(call.root(), name):
                # ``output.topk(k)`` of an unknown output: a tensor, of no known device
                # (unless a class of the module has a method of that name: its object)
                return V.tensor(V.ANY_DEVICE)
            return out
        return UNKNOWN_SET

    def _construct(self, klass: nodes.ClassDef, call: nodes.Call, ctx: Ctx | None, d: int
                   ) -> frozenset[Value]:
        value = self.instance(klass)
        made = next(iter(value))
        if made.kind is Kind.LOADER:
            value = frozenset({made.with_(node=klass)})
        elif made.kind is Kind.DATASET and made.text is None and not made.has("iterable"):
            size = self._constructed_len(klass, call, value, ctx, d)
            if size is not None:
                value = frozenset({made.with_(text=size)})
            else:
                factors = self._constructed_multiple(klass, call, value, ctx, d)
                if factors:
                    from flake8_xla.analysis.specs import MULT
                    value = frozenset({made.with_(
                        flags=made.flags | frozenset(MULT + f for f in factors))})
        return value

    def _len_and_init(self, klass: nodes.ClassDef) -> tuple[
            Evaluator, nodes.FunctionDef, nodes.FunctionDef, Evaluator] | None:
        """``(owner, __len__, __init__, home of __init__)`` of a dataset class whose
        ``__len__`` and ``__init__`` (its own or inherited) both take ``self`` and are in
        modules of the project; else None."""
        owner = self.home_of(klass)
        if owner is None:
            return None
        method = owner.method_of(klass, "__len__")
        init = owner.method_of(klass, "__init__")
        if method is None or init is None or not method.args.args or not init.args.args:
            return None
        home = self.home_of(init)
        if home is None or self.home_of(method) is None:
            return None
        return owner, method, init, home

    def _constructed_multiple(self, klass: nodes.ClassDef, call: nodes.Call,
                              made: frozenset[Value], ctx: Ctx | None, d: int
                              ) -> frozenset[str] | None:
        """The factors of the number that the dataset ``call`` constructs is cut to a
        multiple of (see :func:`~flake8_xla.analysis.specs.multiple_factors`), when its
        class's ``__len__`` returns ``len(self.rows)`` and the last store of ``self.rows``
        in the ``__init__`` it runs is ``self.rows = self.rows[:keep]`` with ``keep = n //
        m * m`` (under ``if`` tests that this call makes true: ``if shuffle:`` with
        ``shuffle=True`` passed), nothing changes ``self.rows`` after it, and nothing else
        stores that attribute (as for :meth:`_constructed_len`). The factors are given as
        what they stand for (:func:`~flake8_xla.analysis.specs.factor_key`: the number
        they have for this call, ``batch_size`` passed as 16 giving ``"16"``, or one
        command line's attribute, or a module-level name). None otherwise."""
        from flake8_xla.analysis.specs import cut_multiple, factor_key, product_keys
        found = self._len_and_init(klass)
        if found is None:
            return None
        owner, method, init, home = found
        rets = self.own_nodes(method, nodes.Return)
        me_len = method.args.args[0].name
        if len(rets) != 1 or not (
                isinstance(ret := rets[0].value, nodes.Call) and
                isinstance(ret.func, nodes.Name) and ret.func.name == "len" and
                len(ret.args) == 1 and isinstance(ret.args[0], nodes.Attribute) and
                isinstance(ret.args[0].expr, nodes.Name) and ret.args[0].expr.name == me_len):
            return None
        attr = ret.args[0].attrname
        me = init.args.args[0].name

        def on_self(node: nodes.NodeNG) -> bool:
            return isinstance(node, nodes.Attribute) and node.attrname == attr and \
                isinstance(node.expr, nodes.Name) and node.expr.name == me

        stores = [a for a in self.own_nodes(init, nodes.AssignAttr)
                  if a.attrname == attr and isinstance(a.expr, nodes.Name) and
                  a.expr.name == me]
        if not stores:
            return None
        last = max(stores, key=lambda a: (a.lineno, a.col_offset))
        stmt = last.parent
        if not isinstance(stmt, nodes.Assign) or stmt.targets != [last] or \
                not isinstance(stmt.value, nodes.Subscript) or not on_self(stmt.value.value):
            return None
        part = stmt.value.slice
        if not isinstance(part, nodes.Slice) or part.lower is not None or part.step is not None:
            return None
        m = cut_multiple(home, part.upper, stmt.value.value)  # (from the rows' own length)
        if m is None:
            return None
        evs = {id(e): e for e in (home, owner, self.home_of(method), self) if e is not None}
        # nothing grows, shrinks or replaces the rows after the cut: in __init__ after it,
        # or anywhere in these modules (``self.rows.extend(extra)`` in another method,
        # ``ds.rows.append(x)`` in the script)
        changing = MUTATORS | {"pop", "remove", "clear"}
        for ev in evs.values():
            for node in ev.module_nodes(nodes.Call):
                f = node.func
                if isinstance(f, nodes.Attribute) and f.attrname in changing and \
                        isinstance(f.expr, nodes.Attribute) and f.expr.attrname == attr and \
                        not (node.frame() is init and node.lineno < stmt.lineno):
                    return None
            if any(isinstance(n.target, nodes.AssignAttr) and n.target.attrname == attr
                   for n in ev.module_nodes(nodes.AugAssign)):
                return None
        elsewhere = [a for ev in evs.values() for a in ev.module_nodes(nodes.AssignAttr)
                     if a.attrname == attr and a not in stores]
        if any(not _another_construction(ev, a, call) for ev in evs.values()
               for a in elsewhere if a.root() is ev.module) or \
                self._spelled_nearby(attr, list(evs.values())):
            return None
        inner = self.ctx_for_call(init, call, ctx, d, self_v=made)
        if inner is None:
            return None
        # the cut runs for this call: every ``if`` around it tests true (or, for its
        # ``else``, false) with what the call passes
        child, cur = stmt, stmt.parent
        while cur is not init:
            if isinstance(cur, nodes.If):
                truth = V.known_bool(home.value(cur.test, inner, d + 1))
                if truth is None or truth != (child in cur.body):
                    return None
            elif not isinstance(cur, nodes.With):
                return None
            child, cur = cur, cur.parent
        params = set(self._params(init))

        def passed(factor: nodes.NodeNG) -> str | None:
            # ``mult = 2 * batch_size * world`` of parameters: what the call passes for
            # them, as the constructing code writes it
            if not isinstance(factor, nodes.Name) or factor.name not in params or \
                    call.root() is not self.module:
                return None
            arg = self.site_argument(init, call, factor.name, True)
            return factor_key(self, arg, ctx, d + 1) if isinstance(arg, nodes.NodeNG) else None

        return product_keys(home, m, inner, d + 1, within=init, fallback=passed) or None

    def _constructed_len(self, klass: nodes.ClassDef, call: nodes.Call,
                         made: frozenset[Value], ctx: Ctx | None, d: int) -> str | None:
        """The size of the dataset that ``call`` constructs (``made``, the new instance),
        as digits, when the ``__len__`` it has (its own or inherited, in a module of the
        project) returns an attribute that the ``__init__`` it runs sets in a statement of
        its own body from what this call passes (``return self.num_samples`` with
        ``self.num_samples = num_samples``, called with ``num_samples=8000`` or
        positionally), and nothing else may store an attribute of that name on it: no
        other statement of the modules of the class, its ``__init__`` and ``__len__``, or
        of the constructing module (but ``val_ds.num_samples = ...`` of another
        construction of the class), and no module that either imports spells the name.
        Each construction has its own size. None otherwise."""
        found = self._len_and_init(klass)
        if found is None:
            return None
        owner, method, init, home = found
        rets = self.own_nodes(method, nodes.Return)  # (syntax: any module's tree)
        names = {r.value.attrname for r in rets if isinstance(r.value, nodes.Attribute) and
                 isinstance(r.value.expr, nodes.Name) and
                 r.value.expr.name == method.args.args[0].name}
        if len(names) != 1 or len(rets) != 1:
            return None
        (attr,) = names
        me = init.args.args[0].name
        evs = {id(e): e for e in (home, owner, self.home_of(method), self) if e is not None}
        stores = [(ev, a) for ev in evs.values()
                  for a in ev.module_nodes(nodes.AssignAttr) if a.attrname == attr]
        sets = [a for _, a in stores if isinstance(a.expr, nodes.Name) and a.expr.name == me and
                isinstance(a.parent, nodes.Assign) and a.parent.parent is init and
                a.parent.targets == [a]]
        if len(sets) != 1 or any(a is not sets[0] and not _another_construction(ev, a, call)
                                 for ev, a in stores) or \
                self._spelled_nearby(attr, list(evs.values())):
            return None
        inner = self.ctx_for_call(init, call, ctx, d, self_v=made)
        if inner is None:
            return None
        text = V.single_text(home.value(sets[0].parent.value, inner, d + 1))
        return text if text is not None and text.isdigit() else None

    def _spelled_nearby(self, attr: str, checked: list[Evaluator]) -> bool:
        """A project module that one of the ``checked`` modules imports or is imported by,
        or the file being checked, other than those, spells ``attr`` (its syntax facts), or
        its facts are not known: it may store the attribute on an object handed to it or
        returned to it (``limit_samples(ds, n)`` in ``utils.py``; ``val_ds =
        build_dataset(8000)`` then ``val_ds.num_samples = 1000`` in ``train.py``)."""
        link = self.link
        if link is None:
            return False
        rels = {found[0] for ev in checked if (found := link._importer(ev)) is not None}
        index = link.index
        near = {link.rel} | {t for rel in rels for t in (
            *index.import_targets(rel), *index.direct_importers(rel))}
        for rel in sorted(near - rels):
            facts = index.facts(rel)
            if facts is None or attr in facts.idents:
                return True
        return False

    def call_function(self, func: nodes.NodeNG, call: nodes.Call | None, ctx: Ctx | None,
                      d: int, self_v: frozenset[Value] | None = None,
                      partial: Value | None = None) -> frozenset[Value]:
        """The value returned by a module function called at ``call`` under ``ctx``
        (through ``partial``, a ``functools.partial`` value of it, when given)."""
        callee_ctx = self.ctx_for_call(func, call, ctx, d, self_v, partial)
        if callee_ctx is None:
            return UNKNOWN_SET
        result = self.returns(func, callee_ctx, d)
        if self.link is not None and call is not None:
            self.link.arrived(func, call, result)  # values made in another module
        return result

    def _parent_ctx(self, func: nodes.NodeNG, ctx: Ctx | None) -> Ctx | None:
        outer = enclosing_function(func)
        if outer is None or ctx is None:
            return None
        return ctx.lookup(outer)

    def call_arguments(self, call: nodes.Call | None, ctx: Ctx | None, d: int,
                       only: tuple[int | None, str] | None = None) -> CallArgs:
        """The abstract values a call passes, evaluated in this module under ``ctx``.

        ``only``: ``(position, keyword)`` of the one parameter the caller asks about; every
        other argument is left unknown, not evaluated (all of them are when ``*args`` or
        ``**kwargs`` is passed, which may bind that parameter)."""
        if call is None:
            return CallArgs((), (), False, False)
        if only is not None and (any(isinstance(a, nodes.Starred) for a in call.args) or
                                 any(kw.arg is None for kw in call.keywords or ())):
            only = None
        positional: list[frozenset[Value]] = []
        starred = False
        for i, arg in enumerate(call.args):
            if isinstance(arg, nodes.Starred):
                spread = [v for v in self.value(arg.value, ctx, d)]
                if len(spread) == 1 and spread[0].kind in (Kind.TUPLE, Kind.LIST) and \
                        spread[0].elts is not None:
                    # ``fn(*args)`` of ``def every(step, n, fn, *args)``: the values the
                    # caller passed in those positions
                    positional.extend(spread[0].elts)
                    continue
                starred = True
                break
            positional.append(self.value(arg, ctx, d) if only is None or i == only[0]
                              else UNKNOWN_SET)
        keywords = []
        star_kwargs = False
        spread_values: list[frozenset[Value]] | None = []
        for kw in call.keywords or ():
            if kw.arg is None:
                spread = self.value(kw.value, ctx, d) if only is None else UNKNOWN_SET
                if len(spread) == 1 and (sv := next(iter(spread))).kind is Kind.DICT and \
                        sv.items is not None and sv.elem is None:
                    # ``build_loader(ds, **loader_kwargs)`` of ``loader_kwargs =
                    # dict(batch_size=64, num_workers=4)``: those keywords, by name
                    keywords.extend(sv.items)
                    continue
                star_kwargs = True
                if spread_values is not None and spread and all(
                        v.kind is Kind.DICT for v in spread):
                    # ``**reduce_dict(losses)``: a dict of these values or a comprehension
                    # of them, whose keys are not known
                    spread_values.extend(vs for v in spread for _, vs in v.items or ())
                    spread_values.extend(v.elem for v in spread if v.elem is not None)
                else:
                    spread_values = None
            else:
                keywords.append((kw.arg, self.value(kw.value, ctx, d)
                                 if only is None or kw.arg == only[1] else UNKNOWN_SET))
        star_values = join(*spread_values) if star_kwargs and spread_values else None
        if star_values is not None and not V.is_known(star_values):
            star_values = None
        return CallArgs(tuple(positional), tuple(keywords), starred, star_kwargs, star_values)

    def ctx_for_call(self, func: nodes.NodeNG, call: nodes.Call | None, ctx: Ctx | None,
                     d: int, self_v: frozenset[Value] | None = None,
                     partial: Value | None = None) -> Ctx | None:
        """The context of ``func`` called at ``call`` (args evaluated under ``ctx``;
        ``partial``: the ``functools.partial`` value called, whose bound arguments come
        first)."""
        depth = (ctx.depth + 1) if ctx is not None else 1
        if depth > MAX_CALL_DEPTH:
            return None
        passed = self._partial_arguments(partial, self.call_arguments(call, ctx, d))
        if self.link is not None and self.link.multi and func.root() is not self.module:
            # A function of another module: the arguments are evaluated here, and bound by
            # its own module's Evaluator.
            owner = self.link.evaluator_of(func)
            if owner is None:
                return None
            return owner.ctx_for_values(func, passed, None, depth, d, self_v)
        return self.ctx_for_values(func, passed, ctx, depth, d, self_v)

    def ctx_for_values(self, func: nodes.NodeNG, passed: CallArgs, ctx: Ctx | None,
                       depth: int, d: int, self_v: frozenset[Value] | None = None) -> Ctx:
        """The context of ``func`` (a function of this module) given the values a caller
        passes, possibly from another module of the project."""
        params = self._params(func)
        args: dict[str, frozenset[Value]] = {}
        positional = list(params)
        if self_v is not None and positional and not is_staticmethod(func):
            # (``self.rmse(x)`` of a staticmethod: ``x`` is its first parameter)
            args[positional[0]] = self_v
            positional = positional[1:]
        a = func.args
        kwonly = [k.name for k in a.kwonlyargs or []]
        for i, value in enumerate(passed.positional):
            if i < len(positional):
                args[positional[i]] = value
        if passed.starred:
            for p in positional:
                args.setdefault(p, UNKNOWN_SET)
        if passed.star_kwargs:
            for p in params + kwonly:
                args.setdefault(p, UNKNOWN_SET)
        for name, value in passed.keywords:
            if name in params or name in kwonly:
                args[name] = value
        for p in params + kwonly:
            if p not in args:
                args[p] = self._default(func, p, d)
        if a.vararg:
            # ``def log(*values)`` called as ``log(loss, acc)``: the positions past the
            # named parameters
            extra_pos = tuple(passed.positional[len(positional):])
            args.setdefault(a.vararg, one(Kind.TUPLE, elts=extra_pos) if not passed.starred
                            else one(Kind.LIST, elem=UNKNOWN_SET))
        if a.kwarg:
            # ``def update(self, **kwargs)`` called as ``update(loss=loss)``: the keywords
            # that no parameter takes, by name.
            extra = tuple((name, value) for name, value in passed.keywords
                          if name not in params and name not in kwonly)
            args.setdefault(a.kwarg, one(Kind.DICT, items=extra, elem=(
                passed.star_values or UNKNOWN_SET) if passed.star_kwargs else None))
        return Ctx(func, args, self._parent_ctx(func, ctx), depth)

    def returns(self, func: nodes.NodeNG, ctx: Ctx | None, d: int) -> frozenset[Value]:
        """What ``func`` returns under ``ctx`` (a generator: an iterator of its yields)."""
        if isinstance(func, nodes.Lambda):
            return self.value(func.body, ctx, d)
        gens = self.own_nodes(func, (nodes.Yield, nodes.YieldFrom))
        if gens:
            # (astroid's YieldFrom is a Yield: ``yield from loader`` hands on the loader's
            # items, never the loader)
            yields = [self.value(y.value, ctx, d) if y.value is not None else V.host("none")
                      for y in gens if not isinstance(y, nodes.YieldFrom)]
            delegated = [self.value(y.value, ctx, d)
                         for y in gens if isinstance(y, nodes.YieldFrom)]
            yields += [self.iterate(vs, d) for vs in delegated]
            # What it iterates (``for batch in loader: yield batch.to(device)``, ``yield
            # from loader``): the source of its items, as for iter(loader).
            sources = [self.value(loop.iter, ctx, d) for loop in self.own_nodes(func, nodes.For)]
            sources += delegated
            # (``it = iter(self.loader)`` ... ``yield next(it)``: a prefetcher's source)
            sources += [self.value(src, ctx, d) for c in self.own_nodes(func, nodes.Call)
                        if (src := iter_argument(c)) is not None]
            # (the generator function as its node: one that runs a barrier per yield is
            # a device loader, see Steps.loader_kind)
            return one(Kind.ITERATOR, elem=join(*yields), bound=join(*sources) or None,
                       node=func if isinstance(func, nodes.FunctionDef) else None)
        rets = self.own_nodes(func, nodes.Return)
        if not rets:
            return V.host("none")
        if len(rets) > 1:
            # ``if config.USE_TPU: return DataLoader(ds, sampler=...)`` / ``else: return
            # DataLoader(ds, shuffle=True)``: a return the XLA path never reaches adds nothing
            from flake8_xla.analysis.paths import off_xla_path
            rets = [r for r in rets if not off_xla_path(r, self)] or rets
        return join(*(self.value(r.value, ctx, d) if r.value is not None else V.host("none")
                      for r in rets))

    def module_call(self, mods: frozenset[Value], call: nodes.Call, ctx: Ctx | None, d: int
                    ) -> frozenset[Value]:
        """What calling a module (a forward pass) returns: tensors on its device."""
        args = [self.value(a, ctx, d) for a in call.args]
        args += [self.value(k.value, ctx, d) for k in call.keywords or ()]
        from flake8_xla.analysis.specs import _tensors_in
        arg_dev = V.tensor_device(_tensors_in(join(*args))) if args else V.ANY_DEVICE
        devs = {m.device for m in mods}
        if "xla" in devs or arg_dev == "xla":
            device: str | None = "xla"
        elif None in devs or arg_dev is None:
            device = None  # a module moved to a device, or inputs on the XLA data path
        elif devs == {"cpu"} or arg_dev == "cpu":
            device = "cpu"
        elif devs == {"cuda"}:
            device = "cuda"  # noqa: XLA501 - an abstract value's device label
        else:
            device = V.ANY_DEVICE  # a module never moved, run on unknown inputs
        out = V.tensor(device, flags=frozenset({"output"}))
        return self._structured_output(mods, call, ctx, d, out) or out

    def _structured_output(self, mods: frozenset[Value], call: nodes.Call, ctx: Ctx | None,
                           d: int, out: frozenset[Value]) -> frozenset[Value] | None:
        """The structure a project module's forward returns, when it returns dicts or tuples:
        ``result["positions"] = (start, start + k)`` in a forward that returns ``result``
        holds Python ints, not tensors. Only entries known to hold host values alone
        keep their value; every other entry is the forward's output ``out`` (a tensor on
        the module's device), as is the whole call when the forward returns anything but
        dicts and tuples, or when any module of ``mods`` is not a class of the project.
        None when the call's value is ``out`` itself."""
        if d > MAX_DEPTH - 4 or not mods or not all(
                m.has("custom") and isinstance(m.node, nodes.ClassDef) for m in mods):
            return None
        shaped: list[Value] = []
        for m in mods:
            forward = self.method_of(m.node, "forward")
            if forward is None:
                return None
            found = self.call_function(forward, call, ctx, d + 1, self_v=frozenset({m}))
            if not found or len(found) > 4:
                return None
            for r in found:
                # (an entry a dict does not hold is a KeyError: unknown, when its keys
                # are all known)
                if r.kind is Kind.DICT and r.items:
                    kept = [vs if _host_only(vs) else out for _, vs in r.items]
                    shaped.append(Value(Kind.DICT, items=tuple(
                        (k, vs) for (k, _), vs in zip(r.items, kept)),
                        elem=out if r.elem is not None else None))
                elif r.kind is Kind.TUPLE and r.elts:
                    kept = [vs if _host_only(vs) else out for vs in r.elts]
                    shaped.append(Value(Kind.TUPLE, elts=tuple(kept)))
                else:
                    return None
        if all(vs is out for v in shaped for vs in
               (v.elts or ()) + tuple(vs for _, vs in v.items or ())):
            return None  # nothing but tensors: the output as before
        return frozenset(shaped)

    # ------------------------------------------------------------------ specs
    def _apply(self, entry: Entry | None, q: str | None, call: nodes.Call,
               receiver: Value | None, ctx: Ctx | None, d: int) -> frozenset[Value]:
        from flake8_xla.analysis import specs
        if entry is not None and q is not None and self.link is not None and \
                not self.api.exact(q) and self.link.shadows_library(self, q) and \
                self.link.resolve(self, q, None, d) is not None:
            # (a project package named like a library the model knows by prefix only:
            # ``datasets.shapes.ShapesDataset`` of the project's own ``datasets/``; a name
            # it does not define stays the library's)
            found = self.link.call(self, q, call, ctx, d)
            if found is not None:
                return found
        if entry is None or entry.returns is None:
            if q is not None and entry is None:
                if self.link is not None:
                    found = self.link.call(self, q, call, ctx, d)  # a project function
                    if found is not None:
                        return found
                return self._unknown_library_call(q, call, ctx, d)
            return UNKNOWN_SET
        result = specs.apply(self, entry, q, call, receiver, ctx, d)
        if entry.sync in ("scalar", "transfer"):
            # ``.item()``, ``int(t)``, ``.cpu()`` of a lazy tensor (or of what such a read
            # returned): a host value or CPU tensor whose content came from the device's
            # data (flag ``"read"``), so a shape built from it changes with the data.
            subject = frozenset({receiver}) if receiver is not None else (
                self.value(call.args[0], ctx, d) if call.args else EMPTY)
            if any(V.lazy_value(v) or (v.kind in (Kind.TENSOR, Kind.HOST) and v.has("read"))
                   for v in subject):
                result = frozenset(v.with_(flags=v.flags | {"read"})
                                   if v.kind in (Kind.HOST, Kind.TENSOR) else v for v in result)
        if entry.does("dynamic_shape") or q == "torch.where" and len(call.args) == 1 and \
                not call.keywords:
            # nonzero()/unique()..., ``torch.where(cond)`` (``nonzero(as_tuple=True)``): a
            # tensor whose length is known only after execution
            result = frozenset(v.with_(flags=v.flags | {"dynamic"}) if v.kind is Kind.TENSOR
                               else v for v in result)
        return result

    def _unknown_library_call(self, q: str, call: nodes.Call, ctx: Ctx | None, d: int
                              ) -> frozenset[Value]:
        """An imported callable the API model does not list.

        A class (a capitalised name: ``TrainerState(...)``, ``SummaryWriter(...)``) makes
        an object, never a tensor; a function handed lazy tensors returns one.
        """
        last = q.rsplit(".", 1)[-1]
        if last[:1].isupper():
            return UNKNOWN_SET
        if q.startswith("torch.") and last.startswith(_TORCH_STATE_PREFIXES) and \
                "device" not in last:
            # ``torch.get_autocast_gpu_dtype()``, ``torch.is_grad_enabled()``,
            # ``torch.set_float32_matmul_precision(...)``: the library's state (a dtype, a
            # flag, None), a host value, not a new tensor
            return V.host()
        if q.startswith("torch."):
            # torch.<op>(tensors): a tensor on the device of its tensor arguments; with
            # none, a new tensor on its device= argument, else on the default (CPU) device.
            from flake8_xla.analysis.specs import _tensors_in
            args = join(*(self.value(a, ctx, d) for a in call.args))
            deep = _tensors_in(args)
            dev_node = keyword(call, "device")
            if dev_node is not None:
                from flake8_xla.analysis.specs import device_value
                return V.tensor(device_value(self, dev_node, ctx, d)[1])
            if not call.args or (V.is_known(args) and not V.any_kind(
                    args, Kind.TENSOR, Kind.LIST, Kind.TUPLE)):
                return V.tensor("cpu")  # a new tensor on the default device
            if deep and last in JOINING_FUNCTIONS and all(
                    v.has("bool") for v in deep):
                # ``torch.cat(masks)``: joined boolean masks are a boolean mask
                return V.tensor(V.tensor_device(deep), flags=frozenset({"bool"}))
            return V.tensor(V.tensor_device(deep))
        return self._unknown_call(call, ctx, d)

    # ------------------------------------------------------------------ helpers
    def names_bound(self, name: str) -> list[nodes.NodeNG]:
        """Every AssignName of the module binding ``name`` (for usage scans)."""
        if self._by_name is None:
            table: dict[str, list[nodes.NodeNG]] = {}
            for an in self.module_nodes(nodes.AssignName):
                table.setdefault(an.name, []).append(an)
            self._by_name = table
        return self._by_name.get(name, [])

    def _foreign_method(self, f: nodes.Attribute, ctx: Ctx | None) -> bool:
        """``meter.add(...)`` where ``meter`` is an instance of a class another module of
        the project defines, and that class has the method."""
        for v in self.value(f.expr, ctx):
            if v.kind in (Kind.OBJECT, Kind.MODULE, Kind.LOADER, Kind.DATASET,
                          Kind.OPTIMIZER) and isinstance(v.node, nodes.ClassDef) and \
                    v.node.root() is not self.module and \
                    self.method_of(v.node, f.attrname) is not None:
                return True
        return False

    def properties_read(self, node: nodes.Attribute, ctx: Ctx | None
                        ) -> list[tuple[nodes.NodeNG, Ctx | None]]:
        """The ``@property`` getters of project classes that reading ``node`` runs
        (``tracker.mean`` on a ``LossTracker``), each with ``self`` bound to the instance
        read; empty for any other attribute (memoised per node and context)."""
        key = (id(node), ctx, "property")
        found = self._called_memo.get(key)
        if found is not None:
            return found
        found = []
        if node.attrname not in HOST_TENSOR_ATTRS and isinstance(
                node.expr, (nodes.Name, nodes.Attribute)):
            for v in self.value(node.expr, ctx):
                if v.kind is Kind.CLASS or not isinstance(v.node, nodes.ClassDef):
                    continue
                home = self.home_of(v.node)
                method = home.method_of(v.node, node.attrname) if home is not None else None
                if method is None or not _is_property(method) or any(
                        f is method for f, _ in found):
                    continue
                found.append((method, home.ctx_for_values(
                    method, CallArgs((), (), False, False), None, 1, 0, frozenset({v}))))
        if not self.spent:
            self._called_memo[key] = found
        return found

    def functions_called(self, call: nodes.Call, ctx: Ctx | None
                         ) -> Iterator[tuple[nodes.NodeNG, Ctx | None]]:
        """Module functions a call runs, each with the context it runs under (memoised per
        call and context: the step questions ask it of the same call again and again)."""
        key = (id(call), ctx)
        found = self._called_memo.get(key)
        if found is None:
            found = list(self._functions_called(call, ctx))
            if not self.spent:
                self._called_memo[key] = found
        return iter(found)

    def _functions_called(self, call: nodes.Call, ctx: Ctx | None
                          ) -> Iterator[tuple[nodes.NodeNG, Ctx | None]]:
        seen: set[int] = set()
        f = call.func
        if isinstance(f, nodes.Name) and f.name in _TEXT_METHODS and call.args and \
                self.qualname(f) == f.name:
            # ``str(meter)``, ``print(meter)``: the object's ``__str__`` runs (a meter
            # that formats the loss it holds)
            for arg in call.args if f.name == "print" else call.args[:1]:
                for v in self.value(arg, ctx):
                    if v.kind is not Kind.OBJECT or not isinstance(v.node, nodes.ClassDef):
                        continue
                    for dunder in _TEXT_METHODS[f.name]:
                        method = self.method_of(v.node, dunder)
                        if method is None or method.root().name == "builtins":
                            continue  # (``object.__str__`` of astroid's real builtins)
                        if id(method) not in seen:
                            seen.add(id(method))
                            # (the object is ``self``; ``format(x, spec)`` hands the spec
                            # to ``__format__``)
                            yield method, self.ctx_for_call(method, call, ctx, 0,
                                                            frozenset({v}))
                        break
            return
        for func, bound in self.callees(call, ctx):
            if id(func) in seen:
                continue
            seen.add(id(func))
            self_v = None
            if bound:
                self_v = self._receiver_of(call, func, ctx)
            yield func, self.ctx_for_call(func, call, ctx, 0, self_v)
        if call.args and "step" in self._method_names() and not seen and any(
                e.does("optimizer_step") for e in self.call_entries(call)):
            # ``xm.optimizer_step(opt)`` / ``scaler.step(opt)`` runs ``opt.step()``: the
            # module's own optimizer class's step method.
            for v in self.value(call.args[0], ctx):
                if v.kind in (Kind.OBJECT, Kind.OPTIMIZER) and isinstance(v.node, nodes.ClassDef):
                    method = self.method_of(v.node, "step")
                    if method is not None and id(method) not in seen:
                        seen.add(id(method))
                        yield method, self.ctx_for_call(method, call, ctx, 0, frozenset({v}))
            return
        f = call.func
        stored = isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and \
            f.expr.name == "self" and not seen and self._stored_callable(f)
        if isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and \
                f.expr.name == "self" and not seen and not stored:
            return  # self.<attribute>(...) that is not a method: a submodule's forward
        if isinstance(f, nodes.Attribute) and not stored and \
                f.attrname not in self._method_names() and \
                f.attrname != "__call__" and not (self.link is not None and (
                    self.qualname(f) or self._foreign_method(f, ctx))):
            return  # x.name(...): no class of the module (nor module of the project) defines it
        if isinstance(call.func, (nodes.Name, nodes.Attribute, nodes.Subscript)) and not seen:
            # (a subscript: a table of handlers, ``self.handlers[name](step, metrics)``)
            for v in self.value(call.func, ctx):
                if v.kind is Kind.FUNCTION and v.node is not None and id(v.node) not in seen:
                    seen.add(id(v.node))
                    # (``@timed``: the wrapper its decorator returns runs in its place)
                    target = (self.wrapper_of(v.node) if v.bound is None and
                              not v.has("raw") else None) or v.node
                    yield target, self.ctx_for_call(
                        target, call, ctx, 0, v.bound,
                        v if v.has("partial") and target is v.node else None)
                elif v.kind is Kind.OBJECT and isinstance(v.node, nodes.ClassDef):
                    # A callable object (a collator, a meter). A module's forward is not
                    # followed: every module class's forward is checked on its own.
                    method = self.method_of(v.node, "__call__")
                    if method is not None and id(method) not in seen:
                        seen.add(id(method))
                        yield method, self.ctx_for_call(method, call, ctx, 0, frozenset({v}))

    def _receiver_of(self, call: nodes.Call, func: nodes.NodeNG, ctx: Ctx | None
                     ) -> frozenset[Value] | None:
        f = call.func
        if isinstance(f, nodes.Attribute):
            return self.value(f.expr, ctx)
        klass = enclosing_class(func)
        if klass is not None and func.name == "__init__":
            return self.instance(klass)
        if klass is not None and func.name == "__call__":
            # ``es(score, model)`` of ``es = EarlyStopping(...)``: self is the object called
            return frozenset(v for v in self.value(f, ctx)
                             if v.kind is Kind.OBJECT and v.node is klass) or \
                self.instance(klass)
        return None
