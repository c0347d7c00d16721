"""Abstract values: what an expression of a training script *is*, not how it is spelled.

The analysis gives every expression a :data:`VSet`, a small set of :class:`Value` s, one
per way the expression may have been computed (its reaching definitions, the branches
of a conditional). A value has a :class:`Kind` (a tensor, a host value, a module, a
loader, ...) and, where it matters, a device (``"xla"``, ``"cpu"``, ``"cuda"`` or None
for "not known"), the qualified name of the class or factory that made it, its
elements (tuple positions, constant dict keys) and flags such as ``"syncfree"`` or
``"drop_last"``.

An empty set means "no value reaches here" (an unreachable path or a cycle being
followed); :data:`UNKNOWN_SET` means the analysis could not tell. Rules ask questions
such as :func:`is_lazy` and never guess: an unknown value answers False.

Source of the device model: PyTorch/XLA "PyTorch on XLA Devices" (tensors and modules
live on the device they were created on or moved to with ``.to(device)``; a lazy XLA
tensor has no value until its graph runs).
"""

from __future__ import annotations

import enum
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

MAX_SET = 12  # more members than this: the value is unknown
#: values nested deeper than this (a tuple of lists of dicts ...): the innermost parts are
#: unknown. Equal values built apart are compared part by part, and a part shared by
#: several positions is compared once per position: past a few levels that cost doubles
#: with each level (a tuple grown by ``t = t + (x,)`` around a loop, in a 5,000-line
#: module, took minutes to compare).
MAX_NEST = 8


class Kind(str, enum.Enum):
    """What a value is."""

    TENSOR = "tensor"          # a torch.Tensor (or a model output holding tensors)
    HOST = "host"              # a Python number, bool, str, None, a NumPy array, a file
    MODULE = "module"          # a torch.nn.Module (a model, a layer, a wrapper)
    OPTIMIZER = "optimizer"    # a torch.optim / syncfree / transformers optimizer
    SCHEDULER = "scheduler"    # an LR scheduler
    SCALER = "scaler"          # an AMP GradScaler
    LOADER = "loader"          # a DataLoader, an XLA loader, or another batch iterable
    DATASET = "dataset"        # a torch Dataset / datasets.Dataset
    SAMPLER = "sampler"        # a torch Sampler
    DEVICE = "device"          # a torch.device or a device string
    TOKENIZER = "tokenizer"    # a Hugging Face tokenizer
    COLLATOR = "collator"      # a data collator
    PROGRESS = "progress"      # a tqdm progress bar (iterates what it wraps)
    FRAMEWORK = "framework"    # accelerate.Accelerator, Lightning Fabric/Trainer, ignite Engine
    ITERATOR = "iterator"      # iter(x), a generator: its element is ``elem``
    TUPLE = "tuple"            # elements by position in ``elts``
    LIST = "list"              # a list or set; ``elts`` when positions are known, else ``elem``
    DICT = "dict"              # constant keys in ``items``, other values in ``elem``
    FUNCTION = "function"      # a FunctionDef / Lambda of the module (``node``)
    CLASS = "class"            # a ClassDef of the module (``node``)
    OBJECT = "object"          # an instance of a ClassDef of the module (``node``)
    REF = "ref"                # an imported name, its qualified name in ``qual``
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Value:
    """One abstract value. Equality is structural; ``node`` compares by identity.

    Attributes:
        kind: what the value is.
        device: ``"xla"``, ``"cpu"``, ``"cuda"`` or None (not known): for tensors, modules
            and devices.
        qual: qualified name of the class or factory that made it (``torch.optim.AdamW``),
            of a REF, or of a host subtype (``"int"``, ``"str"``, ``"none"``, ``"numpy"``).
        text: the value of a short string constant (``"longest"``, ``"cuda:0"``).
        node: the astroid node of a FUNCTION/CLASS/OBJECT, or where a loader, optimizer or
            scaler was built (its origin, for messages).
        elts: element sets by position (TUPLE, LIST).
        items: ``(key, VSet)`` pairs of constant dict keys (DICT).
        elem: the element set of an ITERATOR/LIST/LOADER/PROGRESS, or other DICT values.
        flags: facts such as ``"syncfree"``, ``"drop_last"``, ``"ragged"``, ``"xla_loader"``,
            ``"managed"``, ``"param"``, ``"disabled"``.
        bound: the receiver of a bound method (FUNCTION of a method).
    """

    kind: Kind
    device: str | None = None
    qual: str | None = None
    text: str | None = None
    node: Any = field(default=None, compare=False, hash=False)
    elts: tuple[frozenset[Value], ...] | None = None
    items: tuple[tuple[str, frozenset[Value]], ...] | None = None
    elem: frozenset[Value] | None = None
    flags: frozenset[str] = frozenset()
    bound: frozenset[Value] | None = None
    node_id: int = 0

    def __post_init__(self) -> None:
        parts: list[frozenset[Value]] = []
        if self.elts is not None:
            parts.extend(self.elts)
        if self.items is not None:
            parts.extend(vs for _, vs in self.items)
        if self.elem is not None:
            parts.append(self.elem)
        if self.bound is not None:
            parts.append(self.bound)
        nest = 1 + max((v.nest for vs in parts for v in vs), default=0)
        if nest > MAX_NEST:
            unknown = frozenset({Value(Kind.UNKNOWN)})
            if self.elts is not None:
                object.__setattr__(self, "elts", tuple(unknown for _ in self.elts))
            if self.items is not None:
                object.__setattr__(self, "items", tuple((k, unknown) for k, _ in self.items))
            if self.elem is not None:
                object.__setattr__(self, "elem", unknown)
            if self.bound is not None:
                object.__setattr__(self, "bound", unknown)
            nest = 2
        object.__setattr__(self, "nest", nest)

    def with_(self, **changes: Any) -> Value:
        """A copy with ``changes`` (``node`` keeps its identity key)."""
        data = {f: getattr(self, f) for f in self.__dataclass_fields__}
        data.update(changes)
        if "node" in changes:
            data["node_id"] = id(changes["node"]) if changes["node"] is not None else 0
        return Value(**data)

    def has(self, flag: str) -> bool:
        """True when ``flag`` is one of the value's flags."""
        return flag in self.flags

    def __hash__(self) -> int:
        """A hash that is the same in every process (computed once per value).

        Python's own hash of a string changes with ``PYTHONHASHSEED`` and that of an
        object (or of None, before Python 3.12) with its address; the order in which a
        set of values is iterated follows the hashes, and the analysis's answers around
        a cycle, or at its budget, follow that order. Built from the strings' CRC-32 and
        the node's position instead, the same code gets the same answers in every run
        (equality is unchanged: ``node_id`` still tells nodes apart).
        """
        found = self.__dict__.get("_hash")
        if found is None:
            node = self.node
            where = (getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0,
                     _stable(type(node).__name__)) if node is not None else (0, 0, 0)
            found = hash((_stable(self.kind.value), _stable(self.device), _stable(self.qual),
                          _stable(self.text), self.elts if self.elts is not None else 0,
                          tuple((_stable(k), v) for k, v in self.items)
                          if self.items is not None else 0,
                          self.elem if self.elem is not None else 0,
                          frozenset(_stable(f) for f in self.flags),
                          self.bound if self.bound is not None else 0, where,
                          1 if self.node_id else 0))
            object.__setattr__(self, "_hash", found)
        return found


_STABLE: dict[str, int] = {}


def _stable(text: str | None) -> int:
    """The CRC-32 of ``text`` (0 for None), remembered: the same in every process."""
    if text is None:
        return 0
    found = _STABLE.get(text)
    if found is None:
        if len(_STABLE) > 50_000:
            _STABLE.clear()
        found = _STABLE[text] = zlib.crc32(text.encode("utf-8", "surrogatepass"))
    return found


VSet = frozenset  # frozenset[Value]

UNKNOWN = Value(Kind.UNKNOWN)
UNKNOWN_SET: frozenset[Value] = frozenset({UNKNOWN})
EMPTY: frozenset[Value] = frozenset()


def make(kind: Kind, node: Any = None, **kw: Any) -> Value:
    """A Value of ``kind``; ``node`` (an astroid node) is kept with its identity."""
    return Value(kind, node=node, node_id=id(node) if node is not None else 0, **kw)


def one(kind: Kind, node: Any = None, **kw: Any) -> frozenset[Value]:
    """A VSet holding one new value."""
    return frozenset({make(kind, node, **kw)})


def tensor(device: str | None = None, **kw: Any) -> frozenset[Value]:
    """A VSet of one tensor on ``device``."""
    return frozenset({Value(Kind.TENSOR, device=device, **kw)})


def host(qual: str | None = None, text: str | None = None) -> frozenset[Value]:
    """A VSet of one host value (``qual``: ``int``, ``float``, ``str``, ``bool``, ``none``...)."""
    return frozenset({Value(Kind.HOST, qual=qual, text=text)})


HOST_SET = host()


def join(*sets: Iterable[Value]) -> frozenset[Value]:
    """The union of value sets; past :data:`MAX_SET` members, :data:`UNKNOWN_SET`."""
    out: set[Value] = set()
    for s in sets:
        out.update(s)
    if len(out) > MAX_SET:
        return UNKNOWN_SET
    return frozenset(out)


def kinds(vs: Iterable[Value]) -> set[Kind]:
    """The kinds present in ``vs``."""
    return {v.kind for v in vs}


def is_known(vs: frozenset[Value]) -> bool:
    """True when ``vs`` is not empty and holds no UNKNOWN."""
    return bool(vs) and all(v.kind is not Kind.UNKNOWN for v in vs)


def known_bool(vs: frozenset[Value]) -> bool | None:
    """True (False) when every value of ``vs`` is the host constant True (False), else
    None (unknown, mixed, or empty)."""
    if vs and all(v.kind is Kind.HOST and v.text == "True" for v in vs):
        return True
    if vs and all(v.kind is Kind.HOST and v.text == "False" for v in vs):
        return False
    return None


def single_text(vs: frozenset[Value]) -> str | None:
    """The text of the one host value in ``vs`` (``batch_size=32``), else None."""
    if len(vs) == 1:
        v = next(iter(vs))
        if v.kind is Kind.HOST and v.text is not None:
            return v.text
    return None


def on_host(vs: frozenset[Value]) -> bool:
    """``vs`` is not empty and holds host data only: Python values or CPU tensors."""
    return bool(vs) and all(
        v.kind is Kind.HOST or v.kind is Kind.TENSOR and v.device == "cpu" for v in vs)


def known_strings(vs: frozenset[Value]) -> set[str] | None:
    """The texts of ``vs`` when it is not empty and every member is a host string whose
    text is known (``x`` of ``for x in ["train", "val"]``), else None."""
    if not vs or not all(v.kind is Kind.HOST and v.qual == "str" and v.text is not None
                         for v in vs):
        return None
    return {v.text for v in vs if v.text is not None}


def all_kind(vs: frozenset[Value], *wanted: Kind) -> bool:
    """True when ``vs`` is not empty and every member is of one of ``wanted``."""
    return bool(vs) and all(v.kind in wanted for v in vs)


def any_kind(vs: Iterable[Value], *wanted: Kind) -> bool:
    """True when some member of ``vs`` is of one of ``wanted``."""
    return any(v.kind in wanted for v in vs)


def of_kind(vs: Iterable[Value], *wanted: Kind) -> list[Value]:
    """The members of ``vs`` of one of ``wanted``."""
    return [v for v in vs if v.kind in wanted]


#: The device of a tensor computed only from values the analysis knows nothing about
#: (a torch op on an unknown parameter): a tensor, but not one known to be on the XLA
#: data path, so never reported as lazy.
ANY_DEVICE = "?"


def lazy_value(v: Value, strong: bool = False) -> bool:
    """A tensor that may be a lazy XLA tensor: on the XLA device, or on no known device.

    The rules only ask inside XLA code, where a tensor of unknown device on the XLA data
    path (a model output, a batch moved with ``.to(device)``, a module's forward input)
    is the XLA one unless shown otherwise (``.cpu()``, a CPU factory, a plain
    DataLoader's batch). A tensor computed only from unknown values (:data:`ANY_DEVICE`)
    is not, unless ``strong``: in a step loop with a barrier, a training step or a step
    function, where every tensor the step computes is on the XLA device.
    """
    if v.kind is not Kind.TENSOR or v.device in ("cpu", "cuda"):
        return False
    return strong or v.device != ANY_DEVICE


def is_lazy(vs: Iterable[Value], strong: bool = False) -> bool:
    """Some member of ``vs`` is a lazy XLA tensor (see :func:`lazy_value`)."""
    return any(lazy_value(v, strong) for v in vs)


def parts(v: Value) -> list[frozenset[Value]]:
    """The value sets ``v`` holds: its elements by position, its values by key, and its
    element of unknown position (``elts``, ``items``, ``elem``)."""
    found: list[frozenset[Value]] = list(v.elts or ())
    found += [s for _, s in v.items or ()]
    if v.elem is not None:
        found.append(v.elem)
    return found


def holds_lazy(vs: Iterable[Value], depth: int = 0, strong: bool = False) -> bool:
    """``vs`` is, or contains (tuple, list, dict elements), a lazy XLA tensor."""
    if depth > 4:
        return False
    for v in vs:
        if lazy_value(v, strong):
            return True
        if v.kind in (Kind.TUPLE, Kind.LIST, Kind.DICT) and any(
                holds_lazy(p, depth + 1, strong) for p in parts(v)):
            return True
    return False


def device_params(v: Value) -> bool:
    """``v`` is ``model.parameters()`` (or ``named_parameters()``) of a module on the XLA
    device: an iterator whose elements hold lazy tensors."""
    return v.kind is Kind.ITERATOR and v.has("params") and v.elem is not None and \
        holds_lazy(v.elem)


def is_host_only(vs: frozenset[Value]) -> bool:
    """Every member of ``vs`` is a host value (never a tensor, never unknown)."""
    return all_kind(vs, Kind.HOST)


def texts(vs: Iterable[Value]) -> set[str | None]:
    """The string constants of the HOST members (None for a non-constant member)."""
    return {v.text for v in vs if v.kind is Kind.HOST}


def devices(vs: Iterable[Value]) -> set[str | None]:
    """The devices of the DEVICE/TENSOR/MODULE members."""
    return {v.device for v in vs if v.kind in (Kind.DEVICE, Kind.TENSOR, Kind.MODULE)}


def device_of_text(text: str | None) -> str | None:
    """``'xla'``/``'xla:0'`` -> ``'xla'``, ``'cuda:1'`` -> ``'cuda'``, ``'cpu'`` -> ``'cpu'``."""
    if not text:
        return None
    head = text.split(":", 1)[0].strip().lower()
    if head in ("xla", "cpu", "cuda", "tpu", "neuron"):
        return "xla" if head in ("tpu", "neuron") else head
    return None


def move_device(vs: frozenset[Value], device: str | None) -> frozenset[Value]:
    """``vs`` with every tensor/module moved to ``device`` (containers element-wise)."""
    out = []
    for v in vs:
        if v.kind in (Kind.TENSOR, Kind.MODULE):
            out.append(v.with_(device=device) if v.device != device else v)
        elif v.kind in (Kind.TUPLE, Kind.LIST) and v.elts is not None:
            out.append(v.with_(elts=tuple(move_device(e, device) for e in v.elts)))
        elif v.kind is Kind.DICT:
            out.append(v.with_(items=tuple((k, move_device(s, device)) for k, s in v.items or ()),
                               elem=move_device(v.elem, device) if v.elem is not None else None))
        else:
            out.append(v)
    return frozenset(out)


def tensor_device(vs: Iterable[Value]) -> str | None:
    """The device of an op's result from its tensor operands: xla wins, then a tensor of
    unknown device on the data path, then cpu (a CPU operand makes the others CPU too),
    then :data:`ANY_DEVICE` (only unknown operands, or none at all)."""
    found = {v.device for v in vs if v.kind is Kind.TENSOR}
    if "xla" in found:
        return "xla"
    if None in found:
        return None
    if "cpu" in found:
        return "cpu"
    if "cuda" in found:
        return "cuda"
    return ANY_DEVICE


def describe(vs: Iterable[Value]) -> str:
    """A short human description of ``vs`` for messages and debugging."""
    parts = []
    for v in sorted(vs, key=lambda x: (x.kind.value, x.qual or "", x.device or "")):
        bits = v.kind.value
        if v.device:
            bits += f"@{v.device}"
        if v.qual:
            bits += f"<{v.qual}>"
        if v.text is not None:
            bits += f"={v.text!r}"
        if v.flags:
            bits += "[" + ",".join(sorted(v.flags)) + "]"
        parts.append(bits)
    return " | ".join(parts) or "nothing"
