"""XLA1xx: dynamic shapes that make XLA compile a new graph."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import ClassVar

from astroid import nodes

from flake8_xla.analysis import Analyzer, Ctx, Kind, argument, has_star_kwargs, keyword
from flake8_xla.analysis import values as V
from flake8_xla.analysis.flows import enclosing_function, is_param_of, is_staticmethod
from flake8_xla.analysis.hooks import callback_sites, is_partial
from flake8_xla.analysis.names import callee_name, const_str, is_none, runs_before
from flake8_xla.analysis.paths import enclosing_loop, xla_truth
from flake8_xla.analysis.specs import device_value, factory_shape, partial_batching_call
from flake8_xla.analysis.steps import LOOPS, single_pass
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.context import Finding
from flake8_xla.filefacts import FileFacts, may_have_step_region, may_update, words
from flake8_xla.project.xlause import tpu_trainer_keyword
from flake8_xla.rules.base import Rule

TOKENIZER_METHODS = frozenset({"pad", "batch_encode_plus", "encode_plus", "prepare_seq2seq_batch",
                               "__call__", "encode", "batch_encode", "apply_chat_template"})
TOKENIZER_KEYWORDS = frozenset({"truncation", "return_tensors", "max_length",
                                "return_attention_mask"})
PADDING_COLLATORS = frozenset({"transformers.DataCollatorWithPadding",
                               "transformers.DataCollatorForSeq2Seq",
                               "transformers.DataCollatorForTokenClassification"})
#: Collators that always pad each batch to its longest item (``tokenizer.pad`` at its
#: default, or ``_torch_collate_batch``): dynamic only when the items differ in length.
LM_COLLATORS = frozenset({"transformers.DataCollatorForLanguageModeling",
                          "transformers.DataCollatorForWholeWordMask"})
PAD_SEQUENCE = "torch.nn.utils.rnn.pad_sequence"
NOT_TOKENIZERS = ("torch.", "torchvision.", "tensorflow", "keras", "numpy.", "jax", "PIL.",
                  "timm.", "cv2")
TRAINING_ARGUMENTS = frozenset({"transformers.TrainingArguments",
                                "transformers.Seq2SeqTrainingArguments"})


def _pads_to_max_length(an, call: nodes.Call) -> bool:
    """A tokenizer call that pads every text to one length: ``padding='max_length'`` (or
    ``PaddingStrategy.MAX_LENGTH``) on every path, truncating longer texts to it."""
    pad = keyword(call, "padding")
    trunc = keyword(call, "truncation")
    if pad is None or trunc is None or has_star_kwargs(call):
        return False
    vs = an.value(pad)
    return bool(vs) and all(v.kind is Kind.HOST and v.text == "max_length" or
                            v.kind is Kind.REF and (v.qual or "").endswith(
                                "PaddingStrategy.MAX_LENGTH") for v in vs) and \
        not any(v.kind is Kind.HOST and v.text in ("False", "do_not_truncate")
                for v in an.value(trunc))


def _strategy_is_dynamic(vs: frozenset[V.Value]) -> bool:
    """The padding strategy may be 'longest' (``True``, ``'longest'``, LONGEST)."""
    for v in vs:
        if v.kind is Kind.HOST and v.text in ("longest", "True"):
            return True
        if v.kind is Kind.REF and (v.qual or "").endswith("PaddingStrategy.LONGEST"):
            return True
    return False


#: The smallest ``pad_to_multiple_of`` taken to bound the lengths to a few shapes: the 8
#: or 16 that suit GPU tensor cores leave one graph per multiple (64 of them up to 512).
MIN_BOUNDING_MULTIPLE = 64


def _bounded(an, node: nodes.NodeNG | None) -> bool:
    """``pad_to_multiple_of`` bounds the shapes: known, never None, and not a literal
    multiple under :data:`MIN_BOUNDING_MULTIPLE`."""
    if node is None:
        return False
    vs = an.value(node)
    return V.is_known(vs) and all(
        v.kind is Kind.HOST and v.qual != "none" and not (
            v.text is not None and v.text.isdigit() and int(v.text) < MIN_BOUNDING_MULTIPLE)
        for v in vs)


#: Factories of filled tensors: concatenated to a sequence, they pad it.
_FILLERS = frozenset({"torch.full", "torch.zeros", "torch.ones", "torch.empty", "numpy.full",
                      "numpy.zeros", "numpy.ones", "numpy.empty",
                      # the legacy typed constructors: ``torch.LongTensor(B, max_len)`` is an
                      # uninitialised tensor of that shape (VITS-style collates zero it)
                      "torch.LongTensor", "torch.FloatTensor", "torch.IntTensor",
                      "torch.ByteTensor", "torch.BoolTensor", "torch.DoubleTensor",
                      "torch.HalfTensor", "torch.Tensor"})
_FILLER_METHODS = frozenset({"new_full", "new_zeros", "new_ones", "new_empty"})
#: ``what`` of an input tokenized on its own (see ``DynamicPadding._unpadded``).
UNPADDED = "tokenizing each input without padding"
#: ``what`` of a dataset item tokenized on its own (see ``DynamicPadding._unpadded_item``).
UNPADDED_ITEM = ("tokenizing each dataset item without padding, loaded one item per "
                 "batch (batch_size=1),")


_FILLER_NAMES = frozenset({"full", "zeros", "ones", "empty"} |
                          {q.rsplit(".", 1)[-1] for q in _FILLERS}) | _FILLER_METHODS


def _from_frame(expr: nodes.NodeNG, frame: nodes.NodeNG) -> bool:
    """``expr`` reads a name of ``frame`` itself (a parameter or a local, not ``self``): the
    batch a collate function was given, not a module constant or a closure's dataset."""
    for n in [expr, *nodes_of(expr, nodes.Name)]:
        if not isinstance(n, nodes.Name) or n.name in ("self", "cls"):
            continue
        try:
            scope = n.lookup(n.name)[0]
        except Exception:  # noqa: BLE001, S112 - astroid cannot resolve it: not known
            continue
        while scope is not None and not isinstance(scope, nodes.Module):
            if scope is frame:
                return True
            parent = scope.parent
            scope = parent.scope() if parent is not None else None
    return False


#: Words that name an item's length where a dataset stored it (``item["question_len"]``,
#: ``sample["length"]``, ``ex.seq_len``).
_LENGTH_WORDS = frozenset({"len", "length", "lens", "lengths"})


def _names_length(name: str) -> bool:
    """A key or attribute named for an item's own length (``question_len``, ``length``),
    not for a bound on it (``max_len``, ``pad_length``)."""
    words = set(name.lower().split("_"))
    return bool(words & _LENGTH_WORDS) and not words & {"max", "min", "pad", "padded"}


def _length_expr(node: nodes.NodeNG) -> bool:
    """``len(x)`` / ``x.size(0)`` / ``x.shape[1]``: the length of one item; or the length
    the dataset stored in it, by a key or attribute named for one (``item["input_len"]``,
    ``ex.length``)."""
    if isinstance(node, nodes.Subscript) and isinstance(node.slice, nodes.Const) and \
            isinstance(node.slice.value, str) and _names_length(node.slice.value):
        return True
    if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and \
            node.expr.name not in ("self", "cls") and _names_length(node.attrname):
        return True
    return any(isinstance(n, nodes.Name) and n.name == "len"
               for n in [node, *nodes_of(node, nodes.Name)]) or any(
        n.attrname in ("shape", "size") for n in nodes_of(node, nodes.Attribute))


def _lengths(items: nodes.NodeNG) -> bool:
    """``[len(s) for s in seqs]`` / ``map(len, seqs)`` / ``(x.size(0) for x in xs)`` /
    ``[b[0].shape[1] for b in batch]``: the lengths of the items of a sequence of the
    function's own (its batch, or a list built from it); or the rows' real lengths that an
    attention mask's row sums give (:func:`_mask_row_sums`)."""
    frame = items.frame()
    if isinstance(items, (nodes.GeneratorExp, nodes.ListComp)):
        return _length_expr(items.elt) and bool(items.generators) and \
            _from_frame(items.generators[0].iter, frame)
    if isinstance(items, nodes.Call) and isinstance(items.func, nodes.Name) and \
            items.func.name == "map" and len(items.args) == 2:
        return _length_expr(items.args[0]) and _from_frame(items.args[1], frame)
    return _mask_row_sums(items)


def _slice_upper(index: nodes.NodeNG) -> nodes.NodeNG | None:
    """The stop of a ``[:n]`` slice that starts at 0 (alone, or in a tuple of slices such as
    ``[:, :n]``, the last one with a stop), else None."""
    parts = index.elts if isinstance(index, nodes.Tuple) else [index]
    stops = [p.upper for p in parts if isinstance(p, nodes.Slice) and p.upper is not None and
             (p.lower is None or isinstance(p.lower, nodes.Const) and p.lower.value == 0)
             and p.step is None]
    return stops[-1] if len(stops) == 1 else None


def _crop_extent(index: nodes.NodeNG) -> nodes.Call | None:
    """The ``min(...)`` of the items' lengths that a ``[start:start + n]`` slice (alone, or
    the last of a tuple of slices) cuts to: every item cropped to the batch's shortest, a
    length that varies from batch to batch; else None."""
    parts = index.elts if isinstance(index, nodes.Tuple) else [index]
    slices = [p for p in parts if isinstance(p, nodes.Slice) and p.upper is not None and
              p.step is None]
    if len(slices) != 1:
        return None
    lower, upper = slices[0].lower, slices[0].upper
    if lower is None or not (isinstance(upper, nodes.BinOp) and upper.op == "+"):
        return None
    start = lower.as_string()
    for a, b in ((upper.left, upper.right), (upper.right, upper.left)):
        if a.as_string() == start:
            found = _longest_of(b, shortest=True)
            if found is not None and callee_name(found.func) == "min":
                return found
    return None


def _mask_row_sums(node: nodes.NodeNG) -> bool:
    """``attention_mask.sum(dim=1)`` / ``mask.sum(-1)``: an attention (padding) mask summed
    over its sequence dimension, the real length of each row (syntax: a name or attribute
    spelled with ``mask``, summed over dimension 1 or -1)."""
    if not (isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and
            node.func.attrname == "sum"):
        return False
    dim = node.args[0] if node.args else keyword(node, "dim")
    if not (isinstance(dim, nodes.Const) and dim.value in (1, -1) or
            isinstance(dim, nodes.UnaryOp) and dim.op == "-" and
            isinstance(dim.operand, nodes.Const) and dim.operand.value == 1):
        return False
    holder = node.func.expr
    spelled = holder.name if isinstance(holder, nodes.Name) else (
        holder.attrname if isinstance(holder, nodes.Attribute) else "")
    return "mask" in spelled.lower()


def _bindings_in_frame(name: nodes.Name) -> list[nodes.AssignName] | None:
    """The assignments of ``name`` in its own function (or module), all plain ``name =
    value`` / ``name: T = value`` statements; None when another kind binds it (a parameter,
    a loop target, a tuple target) or it is bound elsewhere."""
    try:
        scope, binds = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid cannot resolve it: unknown
        return None
    if not binds or scope is not name.frame():
        return None
    out: list[nodes.AssignName] = []
    for b in scope.locals.get(name.name, []):
        if not isinstance(b, nodes.AssignName) or not (
                isinstance(b.parent, nodes.Assign) and len(b.parent.targets) == 1 or
                isinstance(b.parent, nodes.AnnAssign) and b.parent.value is not None):
            return None
        out.append(b)
    return out or None


def _bound_once(name: nodes.Name) -> nodes.NodeNG | None:
    """The value of the one plain assignment ``name = value`` of its own function that
    binds it, else None (a parameter, a loop variable, a name bound twice or elsewhere)."""
    binds = _bindings_in_frame(name)
    return binds[0].parent.value if binds is not None and len(binds) == 1 else None


def _appended_lengths(name: nodes.Name) -> bool:
    """``lengths = []`` then ``lengths.append(len(ids))`` in the function."""
    frame = name.frame()
    return any(isinstance(c.func, nodes.Attribute) and c.func.attrname == "append" and
               isinstance(c.func.expr, nodes.Name) and c.func.expr.name == name.name and
               len(c.args) == 1 and _length_expr(c.args[0])
               for c in nodes_of(frame, nodes.Call))


def _unzipped_lengths(name: nodes.Name) -> bool:
    """``motions, lengths, texts = zip(*batch)`` in a function given ``batch``: a field of
    the items, named for their lengths (:func:`_names_length`), that the dataset stored."""
    if not _names_length(name.name):
        return False
    try:
        scope, binds = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid cannot resolve it: unknown
        return False
    if scope is not name.frame() or not binds:
        return False
    binds = scope.locals.get(name.name, [])  # (every binding, not only the reaching one)
    # (``lengths = [min(n, MAX_LEN) for n in lengths]`` after the unzip: the same lengths,
    # each clipped: the batch's longest of them still varies)
    zipped = [b for b in binds if not _clips_itself(b)]
    if len(zipped) != 1:
        return False
    target = zipped[0]
    assign = target.parent.parent if isinstance(target.parent, nodes.Tuple) else None
    if not (isinstance(target, nodes.AssignName) and isinstance(assign, nodes.Assign) and
            len(assign.targets) == 1 and assign.targets[0] is target.parent):
        return False
    value = assign.value
    return isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name) and \
        value.func.name == "zip" and len(value.args) == 1 and \
        isinstance(value.args[0], nodes.Starred) and _from_frame(value.args[0].value, name.frame())


def _clips_itself(bind: nodes.NodeNG) -> bool:
    """``lengths = [min(n, MAX_LEN) for n in lengths]``: ``bind`` rebinds a name to a
    comprehension over that same name, item by item."""
    assign = bind.parent
    if not (isinstance(bind, nodes.AssignName) and isinstance(assign, nodes.Assign) and
            len(assign.targets) == 1 and assign.targets[0] is bind and
            isinstance(assign.value, (nodes.ListComp, nodes.GeneratorExp)) and
            len(assign.value.generators) == 1):
        return False
    it = assign.value.generators[0].iter
    return isinstance(it, nodes.Name) and it.name == bind.name


#: Calls that hold what they are given: a list, or a tensor or array of the lengths.
_LENGTH_HOLDERS = frozenset({"list", "tuple", "sorted", "tensor", "LongTensor", "IntTensor",
                             "array", "asarray", "as_tensor"})


def _holds_lengths(node: nodes.NodeNG, depth: int = 0) -> bool:
    """The lengths of the items (see :func:`_lengths`), possibly bound to a name first and
    made a tensor or an array (``lengths = torch.tensor([len(x) for x in batch])``), or
    collected by ``lengths.append(len(x))``."""
    if depth > 2:
        return False
    if isinstance(node, nodes.Name):
        value = _bound_once(node)
        if isinstance(value, nodes.List) and not value.elts:
            return _appended_lengths(node)
        if value is None:
            return _unzipped_lengths(node)
        return _holds_lengths(value, depth + 1)
    if isinstance(node, nodes.Call) and len(node.args) == 1 and \
            callee_name(node.func) in _LENGTH_HOLDERS:
        # ``list(map(len, seqs))``, ``torch.tensor([...])``, ``np.array([...])``
        return _holds_lengths(node.args[0], depth + 1)
    return _lengths(node)


def _rebound_longest(name: nodes.Name) -> nodes.Call | None:
    """A name bound more than once in its function, always to the longest length: a
    running maximum (``max_len = 0``, then ``max_len = max(max_len, len(ids))`` in a loop)
    or a cap set by a second statement (``n = max(lengths)``, then ``n = min(n, MAX_LEN)``).
    The ``max(...)`` call, else None."""
    binds = _bindings_in_frame(name)
    if binds is None or len(binds) < 2:
        return None
    found = None
    for b in binds:
        value = b.parent.value
        own = isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name) and \
            len(value.args) == 2 and any(isinstance(a, nodes.Name) and a.name == name.name
                                         for a in value.args)
        if isinstance(value, nodes.Const) and isinstance(value.value, int):
            continue
        if own and value.func.name == "max" and any(
                _length_expr(a) for a in value.args if not isinstance(a, nodes.Name)):
            found = found or value  # the running maximum
            continue
        if own and value.func.name == "min":
            continue  # the cap
        longest = _longest_of(value, 1)
        if longest is None:
            return None
        found = found or longest
    return found


def _longest_of(node: nodes.NodeNG, depth: int = 0, shortest: bool = False
                ) -> nodes.Call | None:
    """The call that takes the longest length of the batch's items when ``node`` is, or
    is bound in its function to, that length: ``max(len(s) for s in batch)``,
    ``max(lengths)`` of lengths taken first, ``lengths.max()`` / ``torch.max(lengths)`` /
    ``np.max(lengths)`` of a tensor or array of them, a running ``max(max_len, len(x))``,
    through ``int(...)``, ``.item()`` and a cap ``min(..., MAX_LEN)`` (a capped longest
    length still varies from batch to batch); with ``shortest``, also the shortest length
    (``min(len(w) for w in wavs)``, what a crop to the shortest item cuts to); else None."""
    if depth > 4:
        return None
    if isinstance(node, nodes.Name):
        value = _bound_once(node)
        if value is not None:
            return _longest_of(value, depth + 1, shortest)
        return _rebound_longest(node) if depth == 0 else None
    if isinstance(node, nodes.Subscript) and isinstance(node.value, nodes.Attribute) and \
            node.value.attrname == "shape":
        return _longest_item(node.value.expr)  # ``longest.shape[0]``
    if not isinstance(node, nodes.Call):
        return None
    f = node.func
    name = callee_name(f)
    if isinstance(f, nodes.Attribute) and name == "size" and len(node.args) == 1:
        return _longest_item(f.expr)  # ``max(batch, key=seq_len)[0].size(0)``
    if isinstance(f, nodes.Name) and name == "len" and len(node.args) == 1 and \
            (found := _longest_item(node.args[0])) is not None:
        return found  # ``len(max(batch, key=target_len)[1])``
    if name == "max" and len(node.args) == 1 and not node.keywords and \
            _holds_lengths(node.args[0]):
        return node  # ``max(lengths)``, ``torch.max(lengths)``, ``np.max(lengths)``
    if isinstance(f, nodes.Attribute) and name == "max" and not node.args and \
            _holds_lengths(f.expr):
        return node  # ``lengths.max()``
    if name == "min" and shortest and len(node.args) == 1 and not node.keywords and \
            _holds_lengths(node.args[0]):
        return node  # ``min(w.shape[-1] for w in wavs)``: the shortest item, cropped to
    if isinstance(f, nodes.Attribute) and name == "item" and not node.args:
        return _longest_of(f.expr, depth + 1, shortest)
    if isinstance(f, nodes.Name) and name == "int" and len(node.args) == 1:
        return _longest_of(node.args[0], depth + 1, shortest)
    if isinstance(f, nodes.Name) and name == "min" and len(node.args) == 2:
        for arg in node.args:
            found = _longest_of(arg, depth + 1, shortest)
            if found is not None:
                return found
    return None


def _longest_item(node: nodes.NodeNG, depth: int = 0) -> nodes.Call | None:
    """The ``max(batch, key=...)`` call when ``node`` is, or is bound once to, the batch's
    longest item or a field of it (``max(batch, key=lambda s: len(s[0]))[0]``), else
    None: its size is the batch's longest length."""
    if depth > 3:
        return None
    if isinstance(node, nodes.Name):
        value = _bound_once(node)
        return _longest_item(value, depth + 1) if value is not None else None
    if isinstance(node, nodes.Subscript) and isinstance(node.slice, nodes.Const):
        return _longest_item(node.value, depth + 1)
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and \
            node.func.name == "max" and len(node.args) == 1 and \
            any(k.arg == "key" for k in node.keywords or ()):
        return node
    return None


def _bucketed(expr: nodes.NodeNG) -> bool:
    """``(n + 63) // 64 * 64`` / ``math.ceil(n / 64) * 64`` / ``-(-n // 64) * 64``: a length
    rounded up to a multiple of at least 64 (or of a named size), a bounded set of shapes
    as ``pad_to_multiple_of`` (a frame count ``n // HOP + 1`` still varies)."""
    if not (isinstance(expr, nodes.BinOp) and expr.op == "*"):
        return False
    for rounded, size in ((expr.left, expr.right), (expr.right, expr.left)):
        if (isinstance(rounded, nodes.BinOp) and rounded.op == "//") or (
                isinstance(rounded, nodes.UnaryOp) and rounded.op == "-") or (
                isinstance(rounded, nodes.Call) and callee_name(rounded.func) == "ceil"):
            return not (isinstance(size, nodes.Const) and isinstance(size.value, int) and
                        size.value < 64)
    return False


#: Arithmetic a length passes through and still varies with it.
_LENGTH_OPS = frozenset({"+", "-", "*", "//", "/"})


def _longest_in(expr: nodes.NodeNG | None, depth: int = 0) -> nodes.Call | None:
    """The longest length of the items (see :func:`_longest_of`) that ``expr`` is or
    computes by arithmetic (``max_len - len(x)``, ``max_len + 2``, ``(B, max_len)``, a
    name bound to one), else None. A length rounded up to a bucket, looked up in a table
    or otherwise mapped into a fixed set of sizes is not followed."""
    if expr is None or depth > 4 or _bucketed(expr):
        return None
    found = _longest_of(expr)
    if found is not None:
        return found
    if isinstance(expr, nodes.BinOp) and expr.op in _LENGTH_OPS:
        return _longest_in(expr.left, depth + 1) or _longest_in(expr.right, depth + 1)
    if isinstance(expr, nodes.UnaryOp) and expr.op == "-":
        return _longest_in(expr.operand, depth + 1)
    if isinstance(expr, nodes.Call) and len(expr.args) == 1 and \
            callee_name(expr.func) in ("ceil", "floor", "int", "round"):
        return _longest_in(expr.args[0], depth + 1)  # ``math.ceil(max_len / HOP)``
    if isinstance(expr, (nodes.Tuple, nodes.List)):
        for e in expr.elts:
            found = _longest_in(e, depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(expr, nodes.Name):
        value = _bound_once(expr)
        if value is None:
            return _nested_param_longest(expr, depth)
        return _longest_in(value, depth + 1)
    return None


def _nested_param_longest(name: nodes.Name, depth: int) -> nodes.Call | None:
    """``name`` is a parameter of a padding helper that is called only with the batch's
    longest length (see :func:`_longest_in`): a function nested in another (``def pad(x,
    max_len)`` inside ``pad_2D``), called by the enclosing function, which may also hand
    it a parameter of its own that defaults to None (``pad(x, maxlen)`` under ``if
    maxlen:``: a length of None is never padded to); or a private helper of the module
    (``_pad_time(x, length)``, a function or method whose name starts with ``_``), every
    call of which in the module passes that length. The ``max(...)`` of the first such
    call, else None. A public function's parameter, which any caller may set, is not
    followed."""
    func = name.frame()
    if not isinstance(func, nodes.FunctionDef) or func.parent is None:
        return None
    outer = func.parent.frame()
    nested = isinstance(outer, nodes.FunctionDef)
    if not nested and not func.name.startswith("_") or func.name.startswith("__"):
        return None
    names = [a.name for a in [*(func.args.posonlyargs or ()), *(func.args.args or ())]]
    if name.name not in names or func.args.vararg or func.args.kwarg:
        return None
    try:
        if name.lookup(name.name)[0] is not func:
            return None
    except Exception:  # noqa: BLE001 - astroid cannot resolve it: unknown
        return None
    bound = _bound_method(func)
    none_params = _none_default_params(outer) if nested else set()
    scope = outer if nested else func.root()
    found = None
    # (``pad(x, n)`` by name; a method through ``self.``/``cls.``: ``np.pad`` is no call
    # of a nested ``def pad``)
    calls = [c for c in nodes_of(scope, nodes.Call)
             if isinstance(c.func, nodes.Name) and c.func.name == func.name and not bound or
             not nested and isinstance(c.func, nodes.Attribute) and
             c.func.attrname == func.name and isinstance(c.func.expr, nodes.Name) and
             c.func.expr.name in ("self", "cls")]
    for call in calls:
        params = _positional_params(func, call)
        if name.name not in params:
            return None  # (the receiver)
        arg = argument(call, params.index(name.name), name.name)
        if arg is None:
            return None
        if isinstance(arg, nodes.Name) and arg.name in none_params and \
                arg.lookup(arg.name)[0] is outer:
            continue  # (the enclosing function's ``maxlen=None``, tested before the call)
        longest = _longest_in(arg, depth + 1)
        if longest is None:
            return None
        found = found or longest
    return found


def _bound_method(func: nodes.FunctionDef) -> bool:
    """``func`` is a method that a call through an attribute hands its receiver first
    (its first parameter ``self`` or ``cls``; not a ``staticmethod``)."""
    first = [*(func.args.posonlyargs or ()), *(func.args.args or ())][:1]
    return isinstance(func.parent, nodes.ClassDef) and \
        [a.name for a in first] in (["self"], ["cls"]) and \
        not is_staticmethod(func)  # (syntax: decoratornames() infers, needing builtins)


def _positional_params(func: nodes.FunctionDef, call: nodes.Call) -> list[str]:
    """The names of ``func``'s positional parameters in the order ``call``'s positional
    arguments fill them (``padder.pad(ids, MAX_LEN)``: the receiver is bound first)."""
    names = [a.name for a in [*(func.args.posonlyargs or ()), *(func.args.args or ())]]
    if isinstance(call.func, nodes.Attribute) and _bound_method(func):
        return names[1:]
    return names


def _filled_default_longest(func: nodes.FunctionDef, name: str) -> nodes.Call | None:
    """The batch's longest length (see :func:`_longest_in`) that ``func`` gives its
    parameter ``name`` when the caller leaves it at None: ``if length is None: length =
    max(s.size(0) for s in seqs)`` as a statement of its body; else None."""
    for stmt in func.body:
        if not isinstance(stmt, nodes.If) or stmt.orelse or len(stmt.body) != 1:
            continue
        test, fill = stmt.test, stmt.body[0]
        if isinstance(test, nodes.Compare) and len(test.ops) == 1 and \
                test.ops[0][0] == "is" and is_none(test.ops[0][1]) and \
                isinstance(test.left, nodes.Name) and test.left.name == name and \
                isinstance(fill, nodes.Assign) and len(fill.targets) == 1 and \
                isinstance(fill.targets[0], nodes.AssignName) and \
                fill.targets[0].name == name:
            return _longest_in(fill.value)
    return None


def _none_default_params(func: nodes.FunctionDef) -> set[str]:
    """The parameters of ``func`` whose default is ``None``."""
    args = func.args
    positional = [*(args.posonlyargs or ()), *(args.args or ())]
    out = {a.name for a, d in zip(positional[len(positional) - len(args.defaults or ()):],
                                  args.defaults or ())
           if isinstance(d, nodes.Const) and d.value is None}
    out |= {a.name for a, d in zip(args.kwonlyargs or (), args.kw_defaults or ())
            if isinstance(d, nodes.Const) and d.value is None}
    return out


#: Calls that keep the shape of the tensor they are called on (a dtype, a copy, a move).
_SHAPE_KEEPING = frozenset({"float", "long", "int", "half", "double", "contiguous", "clone",
                            "detach", "to", "numpy", "squeeze", "unsqueeze"})


def _item_independent(node: nodes.NodeNG, depth: int = 0) -> bool:
    """``node`` is the same for every item of a dataset: an int constant, a module-level
    name (``SEGMENT = 2 * SAMPLE_RATE``), an attribute of ``self`` (``self.num_samples``),
    or arithmetic of those."""
    if depth > 4:
        return False
    if isinstance(node, nodes.Const):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, nodes.Name):
        try:
            scope, binds = node.lookup(node.name)
        except Exception:  # noqa: BLE001 - astroid cannot resolve it: unknown
            return False
        return bool(binds) and isinstance(scope, nodes.Module)
    if isinstance(node, nodes.Attribute):
        return isinstance(node.expr, nodes.Name) and node.expr.name == "self"
    if isinstance(node, nodes.BinOp):
        return _item_independent(node.left, depth + 1) and \
            _item_independent(node.right, depth + 1)
    return False


def _length_kind(node: nodes.NodeNG, depth: int = 0) -> str | None:
    """How ``node``, a value ``__getitem__`` returns, gets one length whatever the item:
    ``"fixed"`` for the item padded up to a fixed length (``F.pad(wav, (0, SEGMENT -
    n))``), resized to a fixed size (``F.interpolate(mel, size=FRAMES)``), or a name bound
    so on some arm (``if n >= SEGMENT: wav = wav[s:s + SEGMENT]`` / ``else: wav =
    F.pad(...)``); ``"made"`` for a new tensor of a fixed size (``torch.randn(SEGMENT)``,
    a ``torch.zeros(SEGMENT)`` fallback), fixed but no padding of the item; ``"crop"`` for
    a crop of a fixed extent without an arm that pads (``wav[start:start + SEGMENT]``,
    which leaves an item shorter than its extent as it is); through indexing, dtype or
    device changes and scaling by a number. None otherwise."""
    if depth > 6:
        return None
    if isinstance(node, nodes.Name):
        values = _reaching_values(node)
        kinds = [_length_kind(v, depth + 1) for v in values or ()]
        if not kinds or None in kinds:
            return None
        return _joined_kind(kinds)
    if isinstance(node, nodes.Subscript):
        parts = node.slice.elts if isinstance(node.slice, nodes.Tuple) else [node.slice]
        slices = [p for p in parts if isinstance(p, nodes.Slice)]
        if not slices:
            return _length_kind(node.value, depth + 1)  # ``interpolate(m[None], ...)[0]``
        last = slices[-1]
        if len(slices) != 1 or last.lower is None or last.step is not None or not (
                isinstance(last.upper, nodes.BinOp) and last.upper.op == "+"):
            return None
        start = last.lower.as_string()
        upper = last.upper
        return "crop" if any(a.as_string() == start and _item_independent(b) for a, b in (
            (upper.left, upper.right), (upper.right, upper.left))) else None
    if isinstance(node, nodes.BinOp) and node.op == "+":
        # ``ids + [PAD] * (MAX_LEN - len(ids))`` of ``ids = tokens[:MAX_LEN]``
        for head, fill in ((node.left, node.right), (node.right, node.left)):
            bound = _list_fill_to(fill)
            if bound is not None and _capped_at(head, bound):
                return "fixed"
    if isinstance(node, nodes.BinOp) and node.op in ("+", "-", "*", "/"):
        # ``torch.randn(SEGMENT) * self.scale``, ``clip / 32768.0``: a tensor scaled or
        # shifted by a number the same for every item keeps its length (and its kind)
        for t, o in ((node.left, node.right), (node.right, node.left)):
            if isinstance(o, nodes.Const) and isinstance(o.value, float) or \
                    _item_independent(o):
                kind = _length_kind(t, depth + 1)
                if kind is not None:
                    return kind
        return None
    if not isinstance(node, nodes.Call):
        return None
    f = node.func
    name = callee_name(f)
    if name in ("randn", "rand", "zeros", "ones", "empty", "full") and node.args:
        sizes = node.args[0].elts if isinstance(node.args[0], (nodes.Tuple, nodes.List)) \
            else node.args[:1] if name == "full" else node.args
        # ``torch.randn(SEGMENT)``
        return "made" if all(_item_independent(e) for e in sizes) else None
    if name == "interpolate":
        size = keyword(node, "size") or (node.args[1] if len(node.args) > 1 else None)
        return "fixed" if size is not None and (_item_independent(size) or isinstance(
            size, (nodes.Tuple, nodes.List)) and all(_item_independent(e) for e in size.elts)
        ) else None
    if name == "pad" and len(node.args) >= 2 and isinstance(node.args[1], (nodes.Tuple,
                                                                           nodes.List)):
        # ``F.pad(wav, (0, SEGMENT - n))``: up to SEGMENT (not ``hop - n % hop``: up to a
        # multiple of the hop, which varies)
        return "fixed" if any(isinstance(e, nodes.BinOp) and e.op == "-" and
                              _item_independent(e.left) and not any(
                                  b.op == "%" for b in [e.right, *nodes_of(e.right, 
                                      nodes.BinOp)] if isinstance(b, nodes.BinOp))
                              for e in node.args[1].elts) else None
    if isinstance(f, nodes.Attribute) and f.attrname in _SHAPE_KEEPING:
        return _length_kind(f.expr, depth + 1)
    return None


def _joined_kind(kinds: list[str]) -> str:
    """The :func:`_length_kind` of a value bound (or returned) in several ways: a crop is
    fixed only beside an arm that pads or resizes the item (``"fixed"``); beside fresh
    tensors alone (a ``torch.zeros(C)`` fallback) it still leaves short items short."""
    if "crop" in kinds:
        return "fixed" if "fixed" in kinds else "crop"
    return "fixed" if "fixed" in kinds else "made"


def _reaching_values(name: nodes.Name) -> list[nodes.NodeNG] | None:
    """The values of the assignments of ``name`` that reach it (astroid's, less those a
    later ``if``/``else`` rebinds on every path: :func:`_past_full_branches`); None when
    one is not a plain ``name = value`` or astroid cannot tell."""
    try:
        _, binds = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid cannot resolve it: unknown
        return None
    binds = _past_full_branches(list(binds))
    values = [b.parent.value for b in binds
              if isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign) and
              len(b.parent.targets) == 1 and b.parent.targets[0] is b]
    return values if binds and len(values) == len(binds) else None


def _block_of(stmt: nodes.NodeNG) -> list[nodes.NodeNG] | None:
    """The statement list that holds ``stmt`` (its parent's body, else, handlers...)."""
    parent = stmt.parent
    for field in ("body", "orelse", "handlers", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    return None


def _binds_on_every_path(block: list[nodes.NodeNG], name: str) -> bool:
    """Some statement of ``block`` binds ``name`` whichever way it runs: a plain
    assignment, or an ``if`` with an ``else`` whose every arm does (``elif`` chains
    included)."""
    for st in block:
        if isinstance(st, nodes.Assign) and any(
                isinstance(t, nodes.AssignName) and t.name == name for t in st.targets):
            return True
        if isinstance(st, nodes.If) and st.orelse and \
                _binds_on_every_path(st.body, name) and _binds_on_every_path(st.orelse, name):
            return True
    return False


def _past_full_branches(binds: list[nodes.NodeNG]) -> list[nodes.NodeNG]:
    """``binds`` (the bindings astroid finds reaching a use) less each one that a later
    ``if``/``else`` of the same statement list rebinds on every path (both arms bind the
    name: ``wav = wav.mean(0)`` then ``if n >= SEG: wav = crop else: wav = pad``)."""
    out = list(binds)
    for b in binds:
        stmt = b.statement()
        block = _block_of(stmt)
        name = getattr(b, "name", None)
        if block is None or name is None:
            continue
        later = block[block.index(stmt) + 1:]
        if any(isinstance(st, nodes.If) and st.orelse and
               _binds_on_every_path([st], name) for st in later):
            out = [o for o in out if o is not b]
    return out


def _list_fill_to(fill: nodes.NodeNG) -> str | None:
    """The bound ``C`` (as written) of ``[PAD] * (C - len(x))``, when ``C`` is the same
    for every item; else None."""
    if not (isinstance(fill, nodes.BinOp) and fill.op == "*"):
        return None
    for seq, count in ((fill.left, fill.right), (fill.right, fill.left)):
        if isinstance(seq, (nodes.List, nodes.Tuple)) and isinstance(count, nodes.BinOp) and \
                count.op == "-" and _item_independent(count.left):
            return count.left.as_string()
    return None


def _capped_at(node: nodes.NodeNG, bound: str) -> bool:
    """``node`` is, or is a name bound once to, a slice ``x[:bound]`` (no longer than
    ``bound``)."""
    if isinstance(node, nodes.Name):
        values = _reaching_values(node)
        return values is not None and len(values) == 1 and _capped_at(values[0], bound)
    if isinstance(node, nodes.Subscript) and isinstance(node.slice, nodes.Slice):
        sl = node.slice
        return sl.lower is None and sl.step is None and sl.upper is not None and \
            sl.upper.as_string() == bound
    return False


def _item_key(name: nodes.Name) -> int | str | None:
    """Which part of each item of the batch a collate function's ``name`` collects: a
    tuple position (``wavs, labels = zip(*batch)``, ``[b[0] for b in batch]``, ``[x for
    x, _ in batch]``) or a dict key (``[b["wav"] for b in batch]``); None otherwise."""
    binds = _bindings_in_frame(name)
    if binds is None:
        try:
            _, found = name.lookup(name.name)
        except Exception:  # noqa: BLE001 - astroid cannot resolve it: unknown
            return None
        binds = found
    if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName):
        return None
    bind = binds[0]
    stmt = bind.parent
    if isinstance(stmt, nodes.Tuple) and isinstance(stmt.parent, nodes.Assign):
        value = stmt.parent.value
        if isinstance(value, nodes.Call) and callee_name(value.func) == "zip" and \
                len(value.args) == 1 and isinstance(value.args[0], nodes.Starred) and \
                not any(isinstance(e, nodes.Starred) for e in stmt.elts):
            return stmt.elts.index(bind)
        return None
    if not isinstance(stmt, nodes.Assign):
        return None
    value = stmt.value
    if isinstance(value, nodes.Call) and callee_name(value.func) in ("list", "tuple") and \
            len(value.args) == 1:
        value = value.args[0]
    return _comp_key(value)


def _comp_key(comp: nodes.NodeNG) -> int | str | None:
    """The item part a comprehension over the batch collects (see :func:`_item_key`)."""
    if not isinstance(comp, (nodes.ListComp, nodes.GeneratorExp)) or \
            len(comp.generators) != 1:
        return None
    gen = comp.generators[0]
    elt = comp.elt
    if isinstance(gen.target, nodes.AssignName) and isinstance(elt, nodes.Subscript) and \
            isinstance(elt.value, nodes.Name) and elt.value.name == gen.target.name and \
            isinstance(elt.slice, nodes.Const) and isinstance(elt.slice.value, (int, str)):
        return elt.slice.value
    if isinstance(gen.target, nodes.Tuple) and isinstance(elt, nodes.Name):
        names = [t.name if isinstance(t, nodes.AssignName) else None for t in gen.target.elts]
        return names.index(elt.name) if elt.name in names else None
    return None


def _names_param(name: nodes.Name) -> bool:
    """``name`` is a parameter of its function (a collate function's ``batch``)."""
    try:
        scope, binds = name.lookup(name.name)
    except Exception:  # noqa: BLE001 - astroid cannot resolve it: unknown
        return False
    return any(is_param_of(b, scope) for b in binds)


def _padded_part(node: nodes.NodeNG) -> int | str | None:
    """The item part whose longest length a collate function pads to, from what it pads
    (``pad_sequence(list(wavs))``) or the ``max(...)`` of the lengths (``max(m.shape[-1]
    for m in mels)``, ``max(len(x[0]) for x in batch)``); None when not known."""
    if isinstance(node, nodes.Call) and callee_name(node.func) in ("list", "tuple") and \
            len(node.args) == 1:
        node = node.args[0]
    if isinstance(node, nodes.Call) and callee_name(node.func) == "max" and \
            len(node.args) == 1:
        node = node.args[0]
        if isinstance(node, nodes.Name):
            value = _bound_once(node)
            node = value if value is not None else node
        if isinstance(node, (nodes.ListComp, nodes.GeneratorExp)) and \
                len(node.generators) == 1:
            gen = node.generators[0]
            if isinstance(gen.iter, nodes.Name) and isinstance(gen.target, nodes.AssignName):
                subs = [s for s in nodes_of(node.elt, nodes.Subscript)
                        if isinstance(s.value, nodes.Name) and
                        s.value.name == gen.target.name and isinstance(s.slice, nodes.Const)]
                if subs and _names_param(gen.iter):
                    return subs[0].slice.value  # ``max(len(x[0]) for x in batch)``
                return _padded_part(gen.iter)
            return None
    if isinstance(node, nodes.Name):
        return _item_key(node)
    return None


def _collated_datasets(an: Analyzer, collate: nodes.NodeNG) -> list[nodes.ClassDef] | None:
    """The Dataset classes whose items reach ``collate``: those of the module's
    ``DataLoader(dataset, collate_fn=collate)`` calls, when the module builds one with it
    (None when one of their datasets is not a class of the project's); else every class
    of the module."""
    datasets: list[nodes.ClassDef] = []
    built = False
    name = getattr(collate, "name", None)
    builders = [an]
    if an.link is not None and isinstance(collate, nodes.FunctionDef) and \
            isinstance(collate.parent, nodes.Module):
        # (``DataLoader(MelClips(...), collate_fn=collate_mels)`` in train.py)
        builders += list(an.link._spellers(an.ev, collate.name))
    for owner in builders:
        for call in owner.calls_named("DataLoader"):
            fn = keyword(call, "collate_fn")
            if fn is None:
                continue
            hands = any(v.kind is Kind.FUNCTION and v.node is collate
                        for v in owner.value(fn))
            if not hands and name is not None and any(
                    n.name == name for n in nodes_of(fn, nodes.Name)):
                return None  # (``collate_fn=lambda b: collate(b, ...)``: not followed)
            if not hands:
                continue
            built = True
            data = argument(call, 0, "dataset")
            classes = _dataset_classes(owner, owner.value(data) if data is not None
                                       else frozenset())
            if classes is None:
                return None
            datasets += [c for c in classes if c not in datasets]
    return datasets if built else list(an.module_nodes(nodes.ClassDef))


#: Datasets whose items are those of the datasets they are built from (their first
#: argument: one dataset, or a list of them).
_ITEM_WRAPPERS = ("torch.utils.data.ConcatDataset", "torch.utils.data.Subset")


def _dataset_classes(an: Analyzer, vs: frozenset[V.Value], depth: int = 0
                     ) -> list[nodes.ClassDef] | None:
    """The project's Dataset classes whose items a loader over ``vs`` yields: instances of
    them, and the datasets a ``ConcatDataset([...])`` or ``Subset(ds, idx)`` takes its
    items from (built in ``an``'s module or, through the project link, in another).
    None when some item source is not such a class (or not known)."""
    if not vs or depth > 3:
        return None
    found: list[nodes.ClassDef] = []
    for v in vs:
        ev = None
        if v.kind is Kind.DATASET and v.qual in _ITEM_WRAPPERS and isinstance(v.node, nodes.Call):
            ev = an.ev if v.node.root() is an.module else (
                an.link.evaluator_of(v.node) if an.link is not None else None)
        if v.kind is Kind.DATASET and isinstance(v.node, nodes.ClassDef):
            inner: list[nodes.ClassDef] | None = [v.node]
        elif ev is not None:
            arg = argument(v.node, 0, "datasets" if v.qual.endswith("ConcatDataset")
                           else "dataset")
            held = ev.value(arg, None) if arg is not None else frozenset()
            if v.qual.endswith("ConcatDataset"):
                # (a list or tuple of datasets: the values of its elements)
                if any(x.kind not in (Kind.LIST, Kind.TUPLE) for x in held):
                    return None
                held = frozenset().union(*(p for x in held for p in V.parts(x)))
            inner = _dataset_classes(an, held, depth + 1)
        else:
            inner = None
        if inner is None:
            return None
        found += [c for c in inner if c not in found]
    return found


def _items_fixed(an: Analyzer, pad: nodes.NodeNG) -> bool:
    """The collate function padding ``pad`` (what it pads, or the ``max(...)`` it pads
    to) gets items whose padded part has one length already: every Dataset class of its
    module returns that part (a tuple position or dict key) cropped, padded or resized to
    a fixed length in ``__getitem__`` (an audio clip cut to ``SEGMENT`` samples, a mel
    spectrogram resized to ``FRAMES`` frames). False when the module defines no dataset,
    the part is not known, or some dataset returns it otherwise."""
    key = _padded_part(pad)
    if key is None:
        return False
    classes = _collated_datasets(an, pad.frame())
    if classes is None:
        return False
    found = False
    for klass in classes:
        if an.ev.class_kind(klass) is not Kind.DATASET:
            continue
        methods = {m.name: m for m in klass.body if isinstance(m, nodes.FunctionDef)}
        getitem = methods.get("__getitem__")
        if getitem is None:
            if "__iter__" in methods:
                return False  # (an IterableDataset's items: not followed)
            continue
        rets = [r for r in nodes_of(getitem, nodes.Return) if r.frame() is getitem]
        if not rets:
            return False
        parts = []
        for r in rets:
            part = None
            if isinstance(r.value, (nodes.Tuple, nodes.List)) and isinstance(key, int) and \
                    key < len(r.value.elts):
                part = r.value.elts[key]
            elif isinstance(r.value, nodes.Dict) and isinstance(key, str):
                part = next((v for k, v in r.value.items
                             if isinstance(k, nodes.Const) and k.value == key), None)
            kind = _length_kind(part) if part is not None else None
            if kind is None:
                return False
            parts.append(kind)
        if _joined_kind(parts) == "crop":
            # (a crop alone leaves a shorter item as it is; beside a return that pads or
            # resizes, ``if n <= C: return F.pad(...)``, it only cuts the longer ones)
            return False
        found = True
    return found


def _pad_widths_longest(call: nodes.Call) -> nodes.Call | None:
    """``F.pad(x, (0, max_len - len(x)))`` / ``np.pad(a, (0, pad_len))`` whose widths come
    from the batch's longest length: the ``max(...)`` that gives it, else None."""
    return _longest_in(argument(call, 1, "pad") or keyword(call, "pad_width"))


def _filler(an: Analyzer, call: nodes.Call) -> bool:
    """A tensor filled to a computed size (``torch.full((1, n - len), pad)``,
    ``ids.new_zeros(1, pad_len)``): a padding, not the one-token step of a growing mask
    (``torch.ones((1, 1))``) nor a block as wide as a constant for each row of the batch
    (``torch.ones((bs, 2))``)."""
    f = call.func
    name = f.attrname if isinstance(f, nodes.Attribute) and f.attrname in _FILLER_METHODS \
        else an.qualname(f) or ""
    if name not in _FILLERS and name not in _FILLER_METHODS:
        return False
    if call.args and isinstance(call.args[0], (nodes.Tuple, nodes.List)):
        sizes = call.args[0].elts  # ``torch.zeros((1, n))``
    elif name in ("torch.full", "new_full"):
        sizes = call.args[:1]  # the size, then the fill value
    else:
        sizes = call.args  # ``torch.zeros(1, n)``
    computed = [i for i, e in enumerate(sizes) if not isinstance(e, nodes.Const)]
    first = sizes[0] if sizes else None
    if isinstance(first, nodes.Name):
        first = _bound_once(first) or first  # (``n_pad = MAX_LEN - ids.size(0)``)
    if computed == [0] and len(sizes) > 1 and not (
            isinstance(first, nodes.BinOp) and first.op == "-"):
        # ``torch.ones((bs, 2))``: a block of one batch's rows and a fixed width (two
        # special tokens' mask prepended), not a padding to a computed length
        return False
    return bool(computed)


def _mentions(args: Iterable[nodes.NodeNG], names: set[str]) -> bool:
    """One of ``args`` uses one of ``names``."""
    return any(n.name in names for a in args for n in nodes_of(a, nodes.Name))


def _no_padding(vs: frozenset[V.Value]) -> bool:
    """The padding strategy is none at all (``False``, ``'do_not_pad'``)."""
    return bool(vs) and all(
        v.kind is Kind.HOST and v.text in ("False", "do_not_pad") or
        v.kind is Kind.REF and (v.qual or "").endswith("PaddingStrategy.DO_NOT_PAD")
        for v in vs)


def _root_name(node: nodes.NodeNG) -> str | None:
    """The name a chain of subscripts, attributes and moves starts from
    (``enc["input_ids"].to(device)`` gives ``enc``)."""
    while True:
        if isinstance(node, nodes.Subscript):
            node = node.value
        elif isinstance(node, nodes.Attribute):
            node = node.expr
        elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
                node.func.attrname in ("to", "cuda", "long", "int", "unsqueeze"):
            node = node.func.expr
        else:
            return node.name if isinstance(node, nodes.Name) else None


def _bound_names(call: nodes.Call) -> set[str]:
    """The names the statement holding ``call`` binds (``inputs = tokenizer(...)``)."""
    stmt = call.statement()
    if not isinstance(stmt, nodes.Assign):
        return set()
    return {t.name for target in stmt.targets for t in nodes_of(target, nodes.AssignName)}


def runs_once(an: Analyzer, node: nodes.NodeNG, depth: int = 0) -> bool:
    """``node`` runs once per run of the program (per process): in no loop or
    comprehension of its function, and that function runs once too: called only from such
    places (up to three calls up, to module level) and handed, if at all, only to a
    launcher (``xmp.spawn``, ``torch_xla.launch``) or to a ``functools.partial`` of a
    module function that runs one; and where another module of the project names it
    (:meth:`~flake8_xla.project.link.Session.named_elsewhere`), each of its calls there runs
    once too (:func:`_remote_calls_by_name`). A function with no known
    caller, a callback (a collate function, a ``dataset.map`` function), a lambda, or a
    dunder method other than ``__init__`` (``__getitem__``, ``__call__``) is not known to
    run once."""
    frame = node.frame()
    cur = node.parent
    while cur is not None and cur is not frame:
        if isinstance(cur, (*LOOPS, nodes.Comprehension)):
            return False
        cur = cur.parent
    if isinstance(frame, nodes.Module):
        return True
    if not isinstance(frame, nodes.FunctionDef) or depth >= 3 or (
            frame.name.startswith("__") and frame.name != "__init__"):
        return False
    ev = an.ev
    sites = [(an, site) for site, _ in ev.call_sites(frame)]
    handed = callback_sites(ev).get(id(frame), [])
    if ev.link is not None and ev.link.named_elsewhere(ev, frame):
        remote = _remote_calls_by_name(an, frame)
        if remote is None:
            return False
        sites += remote
    if not sites and not handed:
        return False
    for _, call, pos in handed:
        # (a launcher runs the program's processes: it is never called per batch)
        if not (_launches(an, call) or (pos >= 1 and is_partial(ev, call) and
                                        _runs_launcher(an, call.args[0]))):
            return False
    return all(runs_once(home, site, depth + 1) for home, site in sites)


def _remote_calls_by_name(an: Analyzer, func: nodes.FunctionDef
                          ) -> list[tuple[Analyzer, nodes.Call]] | None:
    """The calls of a top-level function ``func`` in the other modules of the project that
    spell its name (``build_dataset(...)`` after ``from data import build_dataset``), each
    with its module's analyzer; None when one of those modules cannot be analysed, when
    the name is handed on rather than called there, or for a method."""
    link = an.ev.link
    owner = link.rel_of(an) if link is not None else None
    if owner is None or not isinstance(func.parent, nodes.Module):
        return None
    found: list[tuple[Analyzer, nodes.Call]] = []
    for rel in link.index.callers(owner, [func.name], every_module=True):
        other = link.analyzer(rel)
        if other is None:
            return None
        spelled = [n for n in other.module_nodes((nodes.Name, nodes.Attribute))
                   if getattr(n, "name", getattr(n, "attrname", None)) == func.name]
        for n in spelled:
            if isinstance(n.parent, nodes.Call) and n.parent.func is n:
                found.append((other, n.parent))
            elif not isinstance(n.parent, nodes.Attribute):
                return None  # (handed on, stored or returned: its calls are not known)
    return found


def _launches(an: Analyzer, call: nodes.Call) -> bool:
    """``call`` starts processes that run a function once each (``xmp.spawn(fn)``)."""
    return any(e.does("launch") for e in an.ev.call_entries(call))


def _runs_launcher(an: Analyzer, func: nodes.NodeNG) -> bool:
    """``func`` names a module function whose own body calls a launcher
    (``run_parallel(fn, args)`` that runs ``xmp.spawn(fn, ...)``)."""
    if not isinstance(func, nodes.Name):
        return False
    return any(isinstance(b, nodes.FunctionDef) and any(
        _launches(an, c) for c in an.ev.own_nodes(b, nodes.Call))
        for b in an.ev.bindings(func))


class DynamicPadding(Rule):
    """XLA101: padding to the longest sequence of each batch, or batches of varying length.

    Source: PyTorch/XLA "Known performance caveats" (dynamic shapes cause
    recompilation), the transformers docs on ``padding`` / data collators
    (``'longest'`` is the default of ``DataCollatorWithPadding``) and fairseq's
    ``data_utils.batch_by_size`` (token-budget batches of varying shape).
    """

    code = "XLA101"
    fix = "unsafe"
    name = "dynamic-padding"
    message = ("dynamic padding: {what} gives each batch the length of its longest sequence, "
               "so every new length is a new graph shape and XLA recompiles; use "
               "padding='max_length' with max_length=N (or a pad_to_multiple_of of 64 or more "
               "to bound the shapes)")
    migrate_message = ("dynamic padding: {what} gives each batch the length of its longest "
                       "sequence; with "
                       "TorchTPU every new length is a new shape, which torch.compile "
                       "(dynamic=False on the TPU backend) and the deferred eager ops compile "
                       "again; use padding='max_length' with max_length=N (or a "
                       "pad_to_multiple_of of 64 or more to bound the shapes)")
    UNPADDED_MESSAGE = ("dynamic padding: each input of the step loop is tokenized without "
                        "padding, so it keeps the length of its own text, a new input shape "
                        "for which XLA compiles the graphs again; pad to a fixed length "
                        "(padding='max_length', max_length=N, truncation=True)")
    CROP_MESSAGE = ("dynamic padding: cropping every item to the batch's shortest one "
                    "(min(...)) in the collate function gives each batch the length of its "
                    "shortest item, so every new length is a new graph shape and XLA "
                    "recompiles; crop every item to one fixed length (pad the shorter ones)")
    PAD_SEQUENCE_MESSAGE = ("dynamic padding: pad_sequence pads each batch to the length of "
                            "its longest sequence, so every new length is a new graph shape "
                            "and XLA recompiles; pad every item to one fixed length instead "
                            "(torch.nn.functional.pad to max_length, truncating longer ones)")
    explanation = """\
Padding to the longest sequence in each batch gives a new input shape whenever that
length changes. XLA traces a graph per shape and compiles every new one, so a
training run compiles again on most steps instead of reusing the cached graph.
Token-budget batching (`batch_by_size(..., max_tokens=N)`) varies both the batch
size and the length, with the same effect. So does tokenizing each input on its own in
the step loop (`tokenizer(prompt, return_tensors="pt")` per prompt of an evaluation or
generation loop): nothing is padded, and every input keeps the length of its text
(unless the loop pads it again, with `F.pad` or by concatenating a filled tensor).
So does a dataset's `__getitem__` that tokenizes its text without padding when a
DataLoader of the module loads it one item per batch (`batch_size=1`, or none given)
with the default collate: each step gets the length of one document.
A collate function that pads by hand (`torch.full((n, max(len(s) for s in batch)), PAD)`)
is reported where it takes the batch's longest length, the `max(...)` (also when a
helper of the module pads to a length it is handed: a function nested in the padding
helper, `def pad(x, max_len)` inside `pad_2D`, or a private `self._pad_time(f, frames)`);
one that calls a padding helper of another module of the project (FastSpeech2's
`pad_1D(texts)`, or `pad_batch(ids)` leaving `length=None` for the helper to fill in with
the longest item) is reported at that call, and the message names the helper's line; one
that crops
every item to the batch's shortest (`w[start:start + crop]` with `crop = min(w.shape[-1]
for w in wavs)`, a speaker-ID or audio-clip loader) where it takes the `min(...)`.
`DataCollatorForLanguageModeling` (and `DataCollatorForWholeWordMask`) always pads each
batch to its longest item: it is reported when every function the script hands to
`dataset.map(...)` tokenizes without padding to `'max_length'` (line-by-line MLM), not
when a mapped step such as `group_texts` cuts the corpus into blocks of one length, nor
with a `pad_to_multiple_of` of 64 or more. Nor is a pad-to-longest collate whose every
Dataset (those its DataLoaders load, also through `ConcatDataset([...])` or `Subset(ds,
idx)`) returns the padded part at one length from `__getitem__`: a crop beside a padding
to a constant, `F.interpolate(size=C)`, or `torch.randn(C)` (also scaled by a number); a
crop beside only a fresh tensor (a `torch.zeros(C)` fallback) still leaves short items
short and is reported.

Measured (checks/XLA101, PJRT_DEVICE=CPU): one uncached compilation per distinct
padded length for the flagged script against at most two for the fixed one.

**Example**
```python
batch = tokenizer(texts, padding="longest", return_tensors="pt")
collator = DataCollatorWithPadding(tokenizer)
```
**Use instead**
```python
batch = tokenizer(texts, padding="max_length", max_length=128, truncation=True,
                  return_tensors="pt")
collator = DataCollatorWithPadding(tokenizer, padding="max_length", max_length=128)
```
A conditional whose XLA branch picks a static strategy
(`"max_length" if use_tpu else "longest"`) is not reported, nor is a
`pad_to_multiple_of` that is never None and at least 64 (the 8 or 16 that suit GPU
tensor cores still leave one graph per multiple: 64 of them up to 512 tokens), nor
`padding=True` in a call that runs once over a whole split
(`train_encodings = tokenizer(train_texts, truncation=True, padding=True)` outside any
loop, in code that runs once per process: every row gets the one longest length).
A collate function that cuts rows padded to a fixed length back to the batch's longest
real length (`input_ids[:, :int(attention_mask.sum(dim=1).max())]`) is reported where
that length is taken.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://huggingface.co/docs/transformers/pad_truncation",
    )
    versions = "all"
    _step_nodes: set[int] | None = None
    _collator_fixed: bool | None = None

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return "padding" in facts.keywords or "pad" in facts.call_attrs or \
            "pad_sequence" in facts.idents or facts.ident_contains("collat") or \
            "batch_by_size" in facts.idents or "return_tensors" in facts.keywords

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None:
            return
        for call in an.rule_nodes(nodes.Call):
            if not self._may_pad(call):
                continue
            found = self._finding_at(call)
            if found is not None and not an.off_xla_path(found[0]):
                if found[1] == UNPADDED:
                    yield Finding(call.lineno, call.col_offset, self.code,
                                  f"{self.code} {self.UNPADDED_MESSAGE}")
                    continue
                if found[1] == "pad_sequence":
                    # (no padding= option to name: the fix is a fixed target length)
                    yield self.finding_text(found[0], f"{self.code} {self.PAD_SEQUENCE_MESSAGE}")
                    continue
                yield self.finding(found[0], what=found[1])
        yield from self._trimmed_batches()
        yield from self._foreign_padders()

    def _foreign_padders(self) -> Iterator[Finding]:
        """A collate function that hands the batch's items to a helper of another module
        of the project which pads them to the longest one (FastSpeech2's ``texts =
        pad_1D(texts)`` from ``utils/tools.py``): reported at the call, which is where the
        collate function chooses that padding, naming where the helper takes the length.
        (A helper of the same module is reported at its ``max(...)``, see
        :meth:`_collates`.)"""
        an = self.an
        link = an.link
        if link is None or "collat" not in self.ctx.source:
            return  # (syntax first: a module with no collate function, by name or keyword)
        collating: dict[int, bool] = {}
        for call in an.rule_nodes(nodes.Call):
            if not call.args or not isinstance(call.func, (nodes.Name, nodes.Attribute)):
                continue
            frame = call.frame()
            if id(frame) not in collating:
                collating[id(frame)] = self._collates(frame, 0)
            if not collating[id(frame)]:
                continue
            for v in an.value(call.func):
                helper = v.node
                if v.kind is not Kind.FUNCTION or not isinstance(helper, nodes.FunctionDef) \
                        or helper.root() is an.module:
                    continue
                other = link.analyzer_of(helper)
                longest = self._pads_to_longest(helper, other, call) \
                    if other is not None else None
                where = link.where(longest) if longest is not None else None
                if where is not None and not an.off_xla_path(call):
                    yield self.finding(call, what=(
                        f"{call.func.as_string()[:40]}(...), which pads every item to the "
                        f"batch's longest one (max(...) at {where}), in the collate function"))
                    break

    def _pads_to_longest(self, helper: nodes.FunctionDef, an: Analyzer,
                         call: nodes.Call) -> nodes.Call | None:
        """The ``max(...)`` by which ``helper`` (a function of ``an``'s module, or a
        function nested in it) sizes a filled tensor or the widths of ``F.pad``/``np.pad``
        to the longest of the items, when ``call`` runs it; None when it pads again to a
        fixed length, or when ``call`` passes a parameter that defaults to None and that
        the helper tests (``pad_2D(mels, maxlen)``: a length given by the caller)."""
        switches = _none_default_params(helper)
        passed: set[str] = set()
        if switches:
            if any(isinstance(a, nodes.Starred) for a in call.args) or \
                    any(k.arg is None for k in call.keywords or ()):
                return None  # (``pad_batch(*args)``: which parameters it sets is unknown)
            passed = {k.arg for k in call.keywords or ()}
            passed |= set(_positional_params(helper, call)[:len(call.args)])
            tested = {n.name for test in nodes_of(helper, nodes.If)
                      for n in nodes_of(test.test, nodes.Name)}
            if passed & switches & tested:
                return None
        # (a length left at its None default and filled in with the longest item's:
        # ``if length is None: length = max(s.size(0) for s in seqs)``)
        defaulted = {name: longest for name in switches - passed
                     if (longest := _filled_default_longest(helper, name)) is not None}
        for c in nodes_of(helper, nodes.Call):
            q = an.qualname(c.func) or ""
            if q in _FILLERS or isinstance(c.func, nodes.Attribute) and not q and \
                    c.func.attrname in _FILLER_METHODS:
                found = self._sized_by_longest(c)
                sizes = [*c.args, *(k.value for k in c.keywords or ())]
            elif q in ("torch.nn.functional.pad", "numpy.pad"):
                found = _pad_widths_longest(c)
                sizes = [a for a in (argument(c, 1, "pad"), keyword(c, "pad_width"))
                         if a is not None]
            else:
                continue
            if found is None and defaulted:
                # (the buffer or the widths take the defaulted length: what a fixed-size
                # buffer would be is here the longest item's size)
                found = next((defaulted[n.name] for size in sizes
                              for n in [size, *nodes_of(size, nodes.Name)]
                              if isinstance(n, nodes.Name) and n.name in defaulted), None)
                if found is not None:
                    return found
            if found is not None:
                return None if self._repads(helper, collate=True, an=an) else found
        return None

    def _trimmed_batches(self) -> Iterator[Finding]:
        """``input_ids[:, :batch_max]`` with ``batch_max = int(mask.sum(dim=1).max())`` in
        a collate function: rows padded to a fixed length, then cut to the batch's longest
        real length, which is dynamic padding again (one graph per length). Reported where
        that length is taken."""
        an = self.an
        seen: set[int] = set()
        for sub in an.rule_nodes(nodes.Subscript):
            crop = _crop_extent(sub.slice)
            if crop is not None and id(crop) not in seen and self._in_collate_fn(sub) and \
                    not an.off_xla_path(crop):
                # ``w[start:start + crop]``, ``crop = min(w.shape[-1] for w in wavs)``
                seen.add(id(crop))
                yield self.finding_text(crop, f"{self.code} {self.CROP_MESSAGE}")
                continue
            upper = _slice_upper(sub.slice)
            longest = _longest_in(upper) if upper is not None else None
            if longest is None or id(longest) in seen or not self._in_collate_fn(sub) or \
                    an.off_xla_path(longest):
                continue
            seen.add(id(longest))
            yield self.finding(longest, what="cutting the rows to the batch's longest item "
                                             "(max(...)) in the collate function")

    def _finding_at(self, call: nodes.Call) -> tuple[nodes.NodeNG, str] | None:
        """(node, what) of the dynamic padding this call asks for, else None."""
        an = self.an
        q = an.qualname(call.func) or ""
        if (q in _FILLERS or isinstance(call.func, nodes.Attribute) and not q and
                call.func.attrname in _FILLER_METHODS) and \
                (longest := self._sized_by_longest(call)) is not None and \
                self._in_collate_fn(call) and not _items_fixed(an, longest):
            # (reported where the length is chosen: the fix is a fixed length there)
            return longest, ("the batch's longest item (max(...)) as the size of a batch "
                             "tensor in the collate function")
        if q in ("torch.nn.functional.pad", "numpy.pad") and \
                (longest := _pad_widths_longest(call)) is not None and \
                self._in_collate_fn(call) and not _items_fixed(an, longest):
            return longest, ("the batch's longest item (max(...)) as the padded length in "
                             "the collate function")
        if q.startswith(NOT_TOKENIZERS) and q != PAD_SEQUENCE:
            return None  # nn.Conv2d(padding=1), F.pad, torchvision transforms
        if q in PADDING_COLLATORS:
            if self._collator_is_dynamic(call, q):
                return call, f"{q.rsplit('.', 1)[-1]} at its default padding"
            return None
        if q in LM_COLLATORS:
            if self._items_vary_in_length(call):
                return call, (f"{q.rsplit('.', 1)[-1]} over items tokenized without padding "
                              "(it pads each batch to its longest item)")
            return None
        if q == PAD_SEQUENCE:
            if self._in_collate_fn(call) and not (call.args and _items_fixed(an, call.args[0])) \
                    or self._in_step(call):
                return call, "pad_sequence"
            return None
        if q.endswith("batch_by_size") and keyword(call, "max_tokens") is not None:
            return call, "token-budget batching (max_tokens)"
        if not self._is_tokenizer_call(call, q):
            return None
        if self._unpadded(call):
            return call, UNPADDED
        if self._unpadded_item(call):
            return call, UNPADDED_ITEM
        if _bounded(an, keyword(call, "pad_to_multiple_of")):
            return None
        pad = keyword(call, "padding")
        if pad is None:
            f = call.func
            if isinstance(f, nodes.Attribute) and f.attrname == "pad" and \
                    not has_star_kwargs(call) and any(
                        v.kind is Kind.TOKENIZER for v in an.value(f.expr)):
                # (``max_length=`` alone changes nothing: padding=True is LONGEST, and
                # transformers' _get_padding_truncation_strategies ignores max_length)
                return call, "tokenizer.pad() at its default padding=True" + (
                    "" if keyword(call, "max_length") is None else
                    " (max_length= is ignored unless padding='max_length')")
            return None
        if _strategy_is_dynamic(an.value(pad)) and not self._repads(call.frame()) and \
                not self._per_example(call) and not runs_once(an, call):
            return pad, f"padding={pad.as_string()[:40]}"
        return None

    def _per_example(self, call: nodes.Call) -> bool:
        """The tokenizer call prepares what a dataset's ``__getitem__`` returns (there, or in
        a function of the module that only such code calls, up to three calls away), and
        a collate function of the module pads every item again to a fixed length (LLaVA's
        ``preprocess_*`` with ``padding="longest"``, then ``F.pad(t, (0, max_len -
        len(t)))`` per item): whatever the item's length, the batch's is fixed. Without
        such a collator the item's own length may reach the step (``batch_size=1``, a
        ``__getitem__`` that returns whole batches), and the call is reported."""
        text = argument(call, 0, "text")
        if text is None or (isinstance(text, nodes.Subscript) and
                            isinstance(text.slice, nodes.Slice)):
            return False  # (``self.texts[i * bs:(i + 1) * bs]``: a batch of texts)
        return self._item_code(call.frame(), 0) and self._fixed_collator()

    def _fixed_collator(self) -> bool:
        """A collate function of the module (handed to ``collate_fn=``, or a collator
        class's ``__call__``, or named like one) pads every batch to a fixed length."""
        if self._collator_fixed is None:
            an = self.an
            handed = callback_sites(an.ev)
            found = False
            for func in an.module_nodes(nodes.FunctionDef):
                klass = func.parent
                collate = "collat" in func.name.lower() or any(
                    kw == "collate_fn" for kw, _, _ in handed.get(id(func), [])) or (
                    func.name == "__call__" and isinstance(klass, nodes.ClassDef) and
                    "collat" in klass.name.lower())
                if collate and self._repads(func, collate=True):
                    found = True
                    break
            self._collator_fixed = found
        return self._collator_fixed

    def _item_code(self, func: nodes.NodeNG, depth: int) -> bool:
        if not isinstance(func, nodes.FunctionDef):
            return False
        if func.name == "__getitem__" and isinstance(func.parent, nodes.ClassDef):
            return True
        if depth >= 3:
            return False
        sites = self.an.ev.call_sites(func)
        return bool(sites) and not callback_sites(self.an.ev).get(id(func)) and all(
            self._item_code(site.frame(), depth + 1) for site, _ in sites)

    def _unpadded(self, call: nodes.Call) -> bool:
        """``tokenizer(prompt, return_tensors="pt")`` (no padding, or ``padding=False``)
        for each input of the step loop, moved to a device there and not padded again:
        every input keeps the length of its own text (``pad_to_multiple_of`` pads nothing
        without a padding strategy)."""
        if keyword(call, "return_tensors") is None or has_star_kwargs(call) or (
                isinstance(call.func, nodes.Attribute) and call.func.attrname == "pad"):
            return False
        pad = keyword(call, "padding")
        if pad is not None and not _no_padding(self.an.value(pad)):
            return False
        if not self._in_step(call):
            return False
        loop, names = enclosing_loop(call), _bound_names(call)
        return self._moved(call, loop, names) and not self._repadded(call, loop, names)

    def _unpadded_item(self, call: nodes.Call) -> bool:
        """``tokenizer(self.texts[i], truncation=True, max_length=N, return_tensors="pt")``
        in a dataset's ``__getitem__`` (no padding, or ``padding=False``), not padded again
        there, for a DataLoader of this module that loads one item per batch
        (``batch_size=1``, or no batch size) with the default collate: each batch keeps
        the length of its text (long-document training with gradient accumulation)."""
        func = call.frame()
        if not (isinstance(func, nodes.FunctionDef) and func.name == "__getitem__" and
                isinstance(func.parent, nodes.ClassDef)) or has_star_kwargs(call) or (
                isinstance(call.func, nodes.Attribute) and call.func.attrname == "pad"):
            return False
        pad = keyword(call, "padding")
        if pad is not None and not _no_padding(self.an.value(pad)):
            return False
        if self._repads(func):
            return False
        klass = func.parent
        if any(self._loads_one_item(self.an, loader, klass)
               for loader in self.an.plain_loader_calls()):
            return True
        if self.an.link is None or not isinstance(klass.parent, nodes.Module):
            return False
        # (a dataset class of ``data.py`` whose loader ``train.py`` builds)
        return any(self._loads_one_item(other, loader, klass)
                   for other in self.an.link.iter_neighbour_analyzers(hops=2)
                   if other is not self.an for loader in other.plain_loader_calls())

    @staticmethod
    def _loads_one_item(an: Analyzer, loader: nodes.Call, klass: nodes.ClassDef) -> bool:
        """``loader`` (a plain DataLoader call of ``an``'s module) loads instances of
        ``klass`` one item per batch with the default collate."""
        if any(keyword(loader, k) is not None for k in ("collate_fn", "batch_sampler")) \
                or has_star_kwargs(loader):
            return False
        batch = argument(loader, 1, "batch_size")
        if batch is not None and not (isinstance(batch, nodes.Const) and batch.value == 1):
            return False
        data = argument(loader, 0, "dataset")
        return data is not None and any(v.kind is Kind.DATASET and v.node is klass
                                        for v in an.value(data))

    def _repads(self, func: nodes.NodeNG, names: set[str] | None = None,
                an: Analyzer | None = None, *, collate: bool = False) -> bool:
        """The function pads again, with ``F.pad`` or by concatenating a tensor filled to a
        computed size (``torch.cat([torch.full((1, n - len), pad_id), ids], dim=1)``), to a
        fixed length, as the padded length is only known at run time otherwise. With
        ``names``, only a padding of one of those names counts (not the generated
        tokens padded for a gather, nor a mask grown by one each decode step). With
        ``collate`` (a collate function's batch), also a copy into a buffer of fixed size
        or a helper of the module that pads."""
        if not isinstance(func, (nodes.FunctionDef, nodes.Lambda)):
            return False
        an = an or self.an
        calls = list(nodes_of(func, nodes.Call))
        if collate and (self._fills_fixed_buffer(func, calls, an) or any(
                isinstance(f, nodes.FunctionDef) and f is not func and
                f.root() is an.module and self._repads_alone(f, an)
                for c in calls for f, _ in an.ev.functions_called(c, None))):
            # a fixed-size buffer the batch is copied into, or a helper of the module
            # that pads to a fixed length (``ids = pad_to_length(ids, MAX_LEN)``)
            return True
        filled = {c.parent.targets[0].name for c in calls
                  if _filler(an, c) and isinstance(c.parent, nodes.Assign) and
                  len(c.parent.targets) == 1 and isinstance(c.parent.targets[0], nodes.AssignName)}
        for c in calls:
            if names is not None and not _mentions(c.args, names):
                continue
            q = an.qualname(c.func) or ""
            if q == "torch.nn.functional.pad" and _pad_widths_longest(c) is None:
                return True
            if q == "torch.cat" and c.args and isinstance(c.args[0], (nodes.List, nodes.Tuple)) \
                    and any(isinstance(e, nodes.Name) and e.name in filled or
                            isinstance(e, nodes.Call) and _filler(an, e) and
                            self._sized_by_longest(e) is None
                            for e in c.args[0].elts) and not any(
                        isinstance(e, nodes.Call) and _filler(an, e) and
                        self._sized_by_longest(e) is not None for e in c.args[0].elts):
                # (a mask ``cat([ones(len(ids)), zeros(max_len - len(ids))])`` has a part
                # sized by the batch's longest item: the padding itself, not a re-padding)
                return True
        return False

    def _handed_over(self, func: nodes.FunctionDef) -> bool:
        """The module names ``func`` other than to call it (``for fn in (collate, ...)``,
        ``partial(collate, ...)``, ``collate_fn=collate``; for a method, also as an
        attribute: ``collate_fn=dataset.collate_fn``)."""
        uses: list[nodes.NodeNG] = list(self.an.ev.name_uses(func.name))
        if isinstance(func.parent, nodes.ClassDef):
            uses += [n for n in self.an.module_nodes(nodes.Attribute)
                     if n.attrname == func.name]
        return any(not (isinstance(n.parent, nodes.Call) and n.parent.func is n)
                   for n in uses)

    def _repads_alone(self, func: nodes.FunctionDef, an: Analyzer) -> bool:
        """``func`` itself pads with ``F.pad`` or a filled tensor (:meth:`_repads` without
        following its own calls, memoised)."""
        memo = self.__dict__.setdefault("_repads_memo", {})
        if id(func) not in memo:
            memo[id(func)] = False
            calls = list(nodes_of(func, nodes.Call))
            memo[id(func)] = any(
                (an.qualname(c.func) or "") == "torch.nn.functional.pad" and
                _pad_widths_longest(c) is None for c in calls) or \
                self._fills_fixed_buffer(func, calls, an)
        return memo[id(func)]

    def _fills_fixed_buffer(self, func: nodes.NodeNG, calls: list[nodes.Call],
                            an: Analyzer) -> bool:
        """``out = ids.new_full((B, MAX_LEN), pad)`` (a filler whose size is not the batch's
        longest item) that the function then writes into by slice (``out[i, :n] = x``):
        the batch leaves at that fixed size."""
        fillers = [c for c in calls
                   if an.qualname(c.func) in _FILLERS or isinstance(c.func, nodes.Attribute)
                   and c.func.attrname in _FILLER_METHODS]
        if any(self._sized_by_longest(c) is not None for c in fillers):
            return False  # (a batch sized by its longest item is the hazard itself)
        filled = {c.parent.targets[0].name for c in fillers
                  if isinstance(c.parent, nodes.Assign) and len(c.parent.targets) == 1 and
                  isinstance(c.parent.targets[0], nodes.AssignName)}
        return bool(filled) and any(
            isinstance(t, nodes.Subscript) and isinstance(t.value, nodes.Name) and
            t.value.name in filled and any(True for _ in nodes_of(a.value, nodes.Name))
            for a in nodes_of(func, nodes.Assign) for t in a.targets)

    def _moved(self, call: nodes.Call, loop: nodes.NodeNG | None, names: set[str]) -> bool:
        """What ``call`` returns (bound to ``names``) is moved to a device other than the
        CPU in its ``loop`` (``tokenizer(p, return_tensors="pt").to(device)``,
        ``inputs = tokenizer(...)`` then ``inputs.to(device)`` or ``v.to(device) for v
        in inputs.values()``): model input, not a text kept on the host for a metric or a
        CPU scorer."""
        from flake8_xla.analysis.specs import device_value

        def to_device(move: nodes.Call) -> bool:
            target = keyword(move, "device") or (move.args[0] if move.args else None)
            if isinstance(move.func, nodes.Attribute) and move.func.attrname == "cuda":
                return True
            if target is None:
                return False
            is_dev, which = device_value(self.an.ev, target, None, 0)
            return not (is_dev and which == "cpu")

        def moves(node: nodes.NodeNG) -> bool:
            cur, parent = node, node.parent
            while isinstance(parent, (nodes.Subscript, nodes.Attribute, nodes.Call)):
                if isinstance(parent, nodes.Call) and parent.func is not cur:
                    break
                if isinstance(parent, nodes.Attribute) and parent.expr is cur and \
                        parent.attrname in ("to", "cuda") and \
                        isinstance(parent.parent, nodes.Call):
                    return to_device(parent.parent)
                cur, parent = parent, parent.parent
            if isinstance(parent, nodes.Comprehension) and parent.iter is cur:
                # ``{k: v.to(device) for k, v in inputs.items()}``
                return any(isinstance(c.func, nodes.Attribute) and
                           c.func.attrname in ("to", "cuda") and to_device(c)
                           for c in nodes_of(parent.parent, nodes.Call))
            return False

        if moves(call):
            return True
        # (in a helper that the step calls per input, its own body: ``inputs =
        # tokenizer(text, ...)`` then ``inputs.to(device)`` in ``summarize(text)``)
        holder = loop if loop is not None else enclosing_function(call)
        return holder is not None and any(
            n.name in names and moves(n)
            for n in nodes_of(holder, nodes.Name, skip_klass=(nodes.FunctionDef,
                                                                   nodes.ClassDef)))

    def _repadded(self, call: nodes.Call, loop: nodes.NodeNG | None, names: set[str]
                  ) -> bool:
        """What ``call`` tokenizes (bound to ``names`` in ``loop``) is padded again to a
        fixed length: in its own function, or in a function of the project that its loop
        hands it to (``generate(ids)`` that left-pads the prompt to ``MAX_PROMPT``
        first)."""
        names = set(names)
        if loop is not None:
            # ... and the names the loop takes from them (``ids = inputs["input_ids"]``,
            # ``ids = enc.input_ids.to(device)``; not what a model returns for them)
            for stmt in nodes_of(loop, nodes.Assign, skip_klass=(nodes.FunctionDef,
                                                                       nodes.ClassDef)):
                values = stmt.value.elts if isinstance(stmt.value, nodes.Tuple) else [
                    stmt.value]
                if any(_root_name(v) in names for v in values):
                    names |= {t.name for t in nodes_of(stmt, nodes.AssignName)}
        if self._repads(call.frame(), names):
            return True
        if loop is None:
            return False
        link = self.an.link
        for other in nodes_of(loop, nodes.Call, skip_klass=(nodes.FunctionDef,
                                                                 nodes.ClassDef)):
            if other is call or not _mentions(
                    [*other.args, *(k.value for k in other.keywords or ())], names):
                continue
            for func, _ in self.an.ev.functions_called(other, None):
                home = self.an if func.root() is self.an.module else (
                    link.analyzer_of(func) if link is not None else None)
                if home is not None and self._repads(func, None, home):
                    return True
        return False

    def _in_step(self, call: nodes.Call) -> bool:
        """The call runs once per step (in the step region)."""
        if self._step_nodes is None:
            self._step_nodes = {id(n) for n, _, pp in self.an.steps.step_region() if not pp}
        return id(call) in self._step_nodes

    def _may_pad(self, call: nodes.Call) -> bool:
        """Syntax only: the call passes padding=/max_tokens=, is a .pad(), or names a
        collator, pad_sequence or batch_by_size, also through an import alias (every case
        :meth:`check` reports)."""
        f = call.func
        name = f.attrname if isinstance(f, nodes.Attribute) else (
            f.name if isinstance(f, nodes.Name) else "")
        if isinstance(f, nodes.Name):
            name = (self.an.imports.resolve(name) or name).rsplit(".", 1)[-1]
        if name in ("pad", "pad_sequence", "batch_by_size") or "Collator" in name or \
                name in _FILLER_NAMES:
            return True
        return any(k.arg in ("padding", "max_tokens", "return_tensors")
                   for k in call.keywords or ())

    def _is_tokenizer_call(self, call: nodes.Call, q: str) -> bool:
        an = self.an
        if any(e.tokenizer_call for e in an.entries(call)):
            return True
        if q:
            return False  # an imported callable that is not a tokenizer
        f = call.func
        if isinstance(f, nodes.Attribute) and any(v.kind is Kind.TOKENIZER
                                                  for v in an.value(f)):
            return True  # ``self.tokenizer(texts, padding=True)``: the attribute is one
        if isinstance(f, nodes.Attribute):
            receiver = an.value(f.expr)
            if any(v.kind is Kind.TOKENIZER for v in receiver):
                return f.attrname in TOKENIZER_METHODS
            if V.is_known(receiver):
                return False
            return f.attrname in TOKENIZER_METHODS
        # A callee of unknown value given a padding *strategy* (a tokenizer's signature:
        # layers take padding=1 or 'same', and are resolved by their qualified names).
        callee = an.value(f)
        return not V.is_known(callee) or any(v.kind is Kind.TOKENIZER for v in callee)

    def _collator_is_dynamic(self, call: nodes.Call, q: str) -> bool:
        an = self.an
        if has_star_kwargs(call):
            return False
        pad = keyword(call, "padding")
        if pad is None and q.endswith("WithPadding") and len(call.args) >= 2:
            pad = call.args[1]
        if _bounded(an, keyword(call, "pad_to_multiple_of")):
            return False
        if (pad is None or _strategy_is_dynamic(an.value(pad))) and self._items_one_length(call):
            return False  # every item already has the length the batch would pad to
        if pad is None:
            return True
        return _strategy_is_dynamic(an.value(pad))

    def _items_one_length(self, collator: nodes.Call) -> bool:
        """The dataset items reach ``collator`` all of one length: they are tokenized in
        functions handed to a dataset's ``.map(...)`` (Hugging Face ``datasets``), in the
        collator's own function (else anywhere in the module), and every tokenizer call
        there pads to ``padding='max_length'`` with truncation (``tokenizer(texts,
        truncation=True, max_length=384, padding="max_length")``), so padding to the
        longest item pads nothing and the batch shape is fixed. False when there is no such
        function, or one of them tokenizes another way."""
        an = self.an
        mapped: list[tuple[nodes.NodeNG, nodes.NodeNG]] = [
            (func, call.frame()) for func in an.module_nodes(nodes.FunctionDef)
            for _, call, pos in callback_sites(an.ev).get(id(func), [])
            if pos == 0 and isinstance(call.func, nodes.Attribute) and
            call.func.attrname == "map"]
        here = [func for func, frame in mapped if frame is collator.frame()]
        funcs = here or [func for func, _ in mapped]
        calls = [c for func in funcs for c in nodes_of(func, nodes.Call)
                 if self._is_tokenizer_call(c, an.qualname(c.func) or "")]
        return bool(calls) and all(_pads_to_max_length(an, c) for c in calls)

    def _items_vary_in_length(self, collator: nodes.Call) -> bool:
        """The dataset items reach a language-modeling ``collator`` (which pads every batch
        to its longest item) in lengths of their own: every function the module hands to
        a dataset's ``.map(...)`` tokenizes, and no tokenizer call there pads to
        ``'max_length'`` on any path (``tokenizer(lines, truncation=True,
        max_length=512)``: one length per line); those mapped where the collator is built,
        else anywhere in the module. A mapped function that does not tokenize
        (``group_texts``, cutting the corpus into blocks of one length) leaves the lengths
        unknown, as does a ``pad_to_multiple_of`` of 64 or more bounding them."""
        an = self.an
        if has_star_kwargs(collator) or _bounded(an, keyword(collator, "pad_to_multiple_of")):
            return False
        mapped = [(func, call.frame()) for func in an.module_nodes(nodes.FunctionDef)
                  for _, call, pos in callback_sites(an.ev).get(id(func), [])
                  if pos == 0 and isinstance(call.func, nodes.Attribute) and
                  call.func.attrname == "map"]
        # (those mapped where the collator is built, else the module's)
        funcs = [f for f, frame in mapped if frame is collator.frame()] or \
            [f for f, _ in mapped]
        if not funcs:
            return False
        for func in funcs:
            calls = [c for c in nodes_of(func, nodes.Call)
                     if self._is_tokenizer_call(c, an.qualname(c.func) or "")]
            if not calls:
                return False  # (a mapped step that regroups or cuts the items)
            for c in calls:
                if has_star_kwargs(c):
                    return False
                pad = keyword(c, "padding")
                if pad is None:
                    continue
                vs = an.value(pad)
                if not vs or not (_no_padding(vs) or all(
                        v.kind is Kind.HOST and v.text in ("longest", "True", "False")
                        for v in vs)):
                    return False  # ``padding="max_length"`` on some path, or not known
        return True

    def _sized_by_longest(self, call: nodes.Call) -> nodes.Call | None:
        """The ``max(len(s) for s in seqs)`` that gives a size argument of the factory the
        batch's longest length: written there, or bound once to a name of its function;
        else None."""
        name = callee_name(call.func) or ""
        # (``torch.full(size, fill_value)``: the fill value is no size)
        given = call.args[:1] if name in ("full", "new_full") else call.args
        sizes = [keyword(call, "size"), keyword(call, "shape"), *given]
        for size in (s for s in sizes if s is not None):
            found = _longest_in(size)
            if found is not None:
                return found
        return None

    def _in_collate_fn(self, call: nodes.Call) -> bool:
        """``pad_sequence`` in a collate function whose batches keep the padded length.

        A collate function is handed to ``collate_fn=`` (a def, a lambda, or an instance
        of a class whose ``__call__`` it is) or named like one. Not reported when the
        function pads the result again to a fixed size (``F.pad``).
        """
        return self._collates(call.frame(), 0)

    def _collates(self, func: nodes.NodeNG, depth: int) -> bool:
        """``func`` is a collate function (see :meth:`_in_collate_fn`), or a helper of the
        module that one calls (``collate_fn=collate`` whose body is ``return
        pad_batch(x, vocab)``), up to three calls deep (a collate method, the method
        preparing each batch, a padding helper, the helper nested in it); one that pads
        again is not."""
        an = self.an
        if isinstance(func, nodes.Lambda):
            parent = func.parent
            return isinstance(parent, nodes.Keyword) and parent.arg == "collate_fn"
        if not isinstance(func, nodes.FunctionDef):
            return False
        if self._repads(func, collate=True):
            return False
        if depth < 3 and any(self._collates(site.frame(), depth + 1)
                             for site, _ in an.ev.call_sites(func)):
            return True
        if any(kw == "collate_fn" for kw, _, _ in callback_sites(an.ev).get(id(func), [])):
            return True
        if an.link is not None and an.link.handed_as(an.ev, func, "collate_fn"):
            return True  # ``collate_fn=partial(pad_batch, ...)`` in another module
        if "collate" in func.name.lower() and (depth == 0 or self._handed_over(func) or (
                an.link is not None and an.link.method_named_elsewhere(an.ev, func))):
            # (by its name, for a caller only when it is handed over as a value somewhere,
            # here or, for a method, by a module that imports this one: ``collate_fn=
            # dataset.collate_fn``; a helper of a host-side ``collate_eval_outputs(outputs)``
            # is not in one)
            return True
        klass = func.parent
        if func.name == "__call__" and isinstance(klass, nodes.ClassDef):
            if "collat" in klass.name.lower():
                return True
            for other in an.module_nodes(nodes.Keyword):
                if other.arg == "collate_fn" and any(
                        v.kind is Kind.OBJECT and v.node is klass for v in an.value(other.value)):
                    return True
        return False


class RaggedLastBatch(Rule):
    """XLA102: a DataLoader on the XLA path that yields a smaller last batch.

    Source: PyTorch/XLA "Known performance caveats" (every new input shape is a
    new graph), the torch.utils.data.DataLoader docs (``drop_last``) and accelerate's
    ``data_loader.py`` (prepared loaders even out the batches).
    """

    code = "XLA102"
    fix = "unsafe"
    name = "ragged-last-batch"
    message = ("ragged last batch: {what} yields a smaller final batch, a new input shape for "
               "which XLA compiles the whole step graph again; {fix}")
    migrate_message = ("ragged last batch: {what} yields a smaller final batch, a new input "
                       "shape that TorchTPU compiles again (torch.compile runs with "
                       "dynamic=False on the TPU backend); {fix}")
    FIX_LOADER = ("pass drop_last=True for training (pad the last batch instead where every "
                  "sample must count, as in evaluation)")
    FIX_TRAINER = "set dataloader_drop_last=True"
    FIX_PARTIAL = "pass partial=False to the webdataset pipeline's .batched(...)"
    explanation = """\
A `DataLoader` without `drop_last=True` ends each epoch with a shorter batch when the
dataset size is not a multiple of the batch size. That batch has a new shape, so
XLA traces and compiles the whole step graph again for it (and, in evaluation,
for the smaller eval batch too). The Trainer's `dataloader_drop_last` does the
same for Hugging Face scripts.

Measured (checks/XLA102, PJRT_DEVICE=CPU, 2 epochs of 4 steps): 2 uncached
compilations for the flagged script against 1; the ragged graph compiles once per
process (and per distinct ragged size), then hits the cache.

**Example**
```python
loader = DataLoader(ds, batch_size=32, sampler=sampler)
for x, y in pl.MpDeviceLoader(loader, device): ...
```
**Use instead**
```python
loader = DataLoader(ds, batch_size=32, sampler=sampler, drop_last=True)
```
Reported where the loader is built, when it reaches an XLA loader (`MpDeviceLoader`,
`ParallelLoader`), a training or evaluation step loop, or an ignite engine whose step
runs on the XLA device (`create_supervised_trainer(..., device=<XLA device>)`,
`Engine(train_step)`, then `trainer.run(loader)`), or the `fit` of a Lightning Trainer
built for the TPU (`pl.Trainer(tpu_cores=8).fit(model, train_loader, val_loader)`; not
when its `limit_train_batches`/`limit_val_batches` stops the epoch early, unless that
limit is the literal 1.0 on some path), and
`drop_last` is absent
or literally `False`. That loop may be in another module of the project: a loader
passed to `engine.train_one_epoch(...)`, or returned by a factory whose caller loops over
it, is still reported at its `DataLoader(...)` line, in the module that builds it (or,
when that module is not XLA code, where the loader enters this one: several loaders
entering at one line, `dataset.loaders()` of whichever dataset class a run picks, are one
finding that names the first and counts the rest). A
factory of the module whose every call passes the `drop_last` it hands to its
`DataLoader` (`def make_loader(ds, bs, drop_last): ...` and `val_loader = make_loader(ds,
16, drop_last=False)`) is reported at each ragged call whose loader reaches the step,
where `drop_last=False` is written (calls giving equal loaders, one of which reaches the
step through a parameter, leave it at the factory). Nor is a loader iterated by a loop
(the step loop, or the one whose iterable is the XLA loader call itself) that stops each
pass after a known count, by a statement of its body `if i + 1 == EVAL_BATCHES: break`
(`i` its `enumerate` index or an `n += 1` of its body; `seen += len(x)` counts items),
the count set to 0 where the loop is, or that draws a known count (`zip(range(N),
loader)`, `itertools.islice(loader, N)`): the pass may end before the last batch, unless the
batch and dataset sizes are known and the cap reaches the last batch (a count kept
across epochs or handed in as a parameter stops the last epoch only; a cap under a flag
or in an inner loop stops no pass).
Dataset sizes are followed through `random_split(ds, [8000, 1000, 1000])` (also a
known tuple of sizes, or fractions of a dataset of known size, split as torch splits
them), `ConcatDataset` (the sum of its parts), `Subset(ds, range(n))`
and `TensorDataset` (the rows of any of its tensors, `torch.arange(n)` among them), and
through a project Dataset class whose `__len__` returns a constant, or an attribute that
its `__init__` sets from a constructor argument (`self.num_samples = num_samples`, one
size per construction; not when any other statement stores that attribute). Not
reported for loaders prepared by accelerate (whose loaders
even out the batches across processes), batch size 1, a `batch_sampler`, and a
dataset whose known size is a multiple of the batch size (MNIST's 60,000 by 32; a
batch size given on the command line counts at its argparse default, the run as the
script is configured: `--test_bs` with `default=200` for CIFAR-10's 10,000 test images), or
a sampler with a constant `num_samples` that the batch size divides or that is too large
to run out (`RandomSampler(ds, replacement=True, num_samples=10**10)`; a project sampler
whose `__iter__` yields in a `while True:` loop of its own, as detectron2's
TrainingSampler and StyleGAN's InfiniteSampler do, never runs out), or a multiple of
the loader's own batch size (`num_samples=eval_batches * batch_size`). A loader with
`batch_size=None` over a webdataset pipeline that batches itself (`ds.batched(bs)`, also
in a project function that returns the pipeline, or a `wds.batched(bs)` stage of a
`wds.DataPipeline`) is reported: `.batched` keeps each worker's short final batch unless
given `partial=False`; at that stage when the module being checked builds the pipeline
(where the short batches are made and `partial=False` goes), else at the `DataLoader(...)`.
A loader over a Python iterator (`map(tokenize, rows)`, a
generator expression) has no known last batch and is not reported; neither are
`TrainingArguments` that no Trainer gets (every use reads a setting for the script's own
loaders, which are checked where they are built).

Batches cut by hand are reported too, at the slice: `for begin in range(0, len(ids), bs):
batch = ids[begin:begin + bs]` in a step loop ends with a shorter slice unless the length
is a known multiple of `bs` or the range stops at the last whole slice. A step that
splits the range's own stop into a count of parts (PPO's `mb = batch_size //
num_minibatches`) is not reported: the last slice is short only when the count does not
divide it, which is not known.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://docs.pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader",
    )

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return "TrainingArguments" in facts.idents or "Seq2SeqTrainingArguments" in \
            facts.idents or facts.ident_contains("dataloader") or "auto_dataloader" in \
            facts.idents or ("range" in facts.called_names and may_have_step_region(facts))

    SLICED = ("ragged last batch: {what} over range(0, N, {step}) leaves a shorter final "
              "slice whenever N is no multiple of {step}, a new input shape for which XLA "
              "compiles the whole step graph again; stop at the last whole slice "
              "(range(0, N - N % {step}, {step})) or pad the last slice to {step}")

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None:
            return
        if not self.flag_only:
            yield from self._sliced_batches()
        # (the calls spelled like one, by their last name or an import alias, first:
        # qualifying every call of the module costs more than the rest of the rule)
        spelled = an.spellings(q.rsplit(".", 1)[-1] for q in TRAINING_ARGUMENTS)
        for call in an.rule_nodes(nodes.Call):
            if callee_name(call.func) not in spelled:
                continue
            q = an.qualname(call.func) or ""
            if q in TRAINING_ARGUMENTS:
                unpacked = an.star_keywords(call)
                if unpacked is None or self._settings_only(call):
                    continue  # **kwargs that may hold any setting
                drop = keyword(call, "dataloader_drop_last")
                if drop is not None:
                    ragged = isinstance(drop, nodes.Const) and drop.value is False
                else:  # (unset, or unpacked from a dict of known settings)
                    ragged = {v.text for v in unpacked.get(
                        "dataloader_drop_last", V.host("bool", "False"))} == {"False"}
                if ragged:
                    yield self.finding(call, what=f"{q.rsplit('.', 1)[-1]} without "
                                                  "dataloader_drop_last=True",
                                       fix=self.FIX_TRAINER)
        reported: set[int] = set()
        # (ragged loaders of a factory whose callers pass ``drop_last``, reached through a
        # site that names no one call of it: see below)
        deferred: list[tuple[V.Value, nodes.NodeNG, tuple[nodes.FunctionDef, str]]] = []
        caps: dict[int, tuple[int, bool] | None] = {}
        origins: list[tuple[Finding | None, nodes.NodeNG, str, str]] = []
        for origin, site in self._loaders_on_xla_path():
            if not isinstance(origin.node, nodes.Call):
                continue
            if id(site) not in caps:
                caps[id(site)] = self._cap(site)
            cap = caps[id(site)]
            if cap is not None and not _reaches_last(origin, cap):
                continue  # (each pass stops after a known count, before its last batch)
            factory = self._drop_last_factory(origin.node)
            passing = self._passing_call(factory, site) if factory is not None else None
            if factory is not None and passing is None:
                if self._ragged(origin):
                    deferred.append((origin, site, factory))
                continue
            key = id(passing if passing is not None else origin.node)
            if key in reported:
                continue
            if not self._ragged(origin):
                continue  # (one loader of a helper, not ragged with its call's arguments:
                # another call of the same helper may still give a ragged one)
            reported.add(key)
            if passing is not None and factory is not None:
                # (the factory's caller wrote the ``drop_last`` that makes it ragged)
                yield from self._factory_call_finding(passing, factory[0], origin)
                continue
            origins.extend(self._origin_findings(origin, site))
        for origin, site, factory in deferred:
            # The one call of the factory that gives this very loader (the same value: the
            # same arguments) is reported there; several such calls (one may feed only the
            # host) or none: at the factory, unless every one of them is reported already.
            making = [call for call, _ in an.ev.call_sites(factory[0])
                      if origin in an.value(call)]
            if len(making) == 1:
                if id(making[0]) not in reported:
                    reported.add(id(making[0]))
                    yield from self._factory_call_finding(making[0], factory[0], origin)
            elif making and all(id(call) in reported for call in making):
                continue
            elif id(origin.node) not in reported:
                reported.add(id(origin.node))
                origins.extend(self._origin_findings(origin, site))
        yield from self._one_per_line(origins)

    def _one_per_line(self, found: list[tuple[Finding | None, nodes.NodeNG, str, str]]
                      ) -> Iterator[Finding | None]:
        """The loader findings of ``found`` (each with its node, fix and text), one per
        line and column: several DataLoaders that reach one site in this module from other
        modules (``dataset.loaders()`` of whichever dataset class the run picks) are one
        finding that names the first and counts the others."""
        groups: dict[tuple[int, int], list[tuple[Finding, nodes.NodeNG, str, str]]] = {}
        for f, at, fix, what in found:
            if f is not None:
                groups.setdefault((f.line, f.col), []).append((f, at, fix, what))
        for items in groups.values():
            first, at, fix, what = items[0]
            if len(items) == 1:
                yield first
            else:
                more = len(items) - 1
                yield self.finding(at, fix=fix, what=(
                    f"{what} (and {more} more DataLoader{'s' if more > 1 else ''} that "
                    "reach this line)"))

    def _factory_call_finding(self, call: nodes.Call, factory: nodes.FunctionDef,
                              origin: V.Value) -> Iterator[Finding]:
        """The finding at ``call`` of a loader factory that passes the ``drop_last`` making
        its loader ``origin`` ragged."""
        if not self.an.off_xla_path(call):
            yield self.finding(call, fix=self.FIX_LOADER, what=(
                f"the DataLoader that {factory.name}() builds (line {origin.node.lineno}) "
                "with the drop_last passed here"))

    def _origin_findings(self, origin: V.Value, site: nodes.NodeNG
                         ) -> Iterator[tuple[Finding | None, nodes.NodeNG, str, str]]:
        """The finding of a ragged loader ``origin`` that ``site`` reaches, at the
        DataLoader call (or the webdataset stage that makes the short batches), with the
        node, fix and text it was made from."""
        an = self.an
        link = an.link
        if link is not None and origin.node.root() is not an.module and \
                link.home_is_xla_code(origin.node):
            return  # reported where it is built, when that module is checked
        if not an.off_xla_path(origin.node):
            what = self.origin_text(origin.node, "this DataLoader",
                                    "the DataLoader built at {where}")
            far = link.where(site) if link is not None and \
                site.root() is not an.module else None
            if far is not None:
                what = f"this DataLoader, which {self._site_text(site)} at {far},"
            at: nodes.NodeNG = origin.node
            if origin.has("partial_batches"):
                # (at the pipeline's ``.batched(bs)`` stage, where the short batches
                # are made and ``partial=False`` goes, when this module builds it)
                dataset = argument(origin.node, 0, "dataset")
                stage = partial_batching_call(an.ev, dataset) if dataset is not None \
                    else None
                if stage is not None and stage.root() is an.module and \
                        not an.off_xla_path(stage):
                    # (on the line of ``.batched(``, not where a chained pipeline
                    # expression starts)
                    at = stage.args[0] if stage.args else stage
                    f = stage.func
                    # (``.batched`` of a chained pipeline; ``ds.batched``/``wds.batched``)
                    label = f".{f.attrname}" if isinstance(f, nodes.Attribute) and \
                        not isinstance(f.expr, nodes.Name) else f.as_string()
                    what = f"the webdataset stage {label}(...) feeding this DataLoader"
            fix = self.FIX_PARTIAL if origin.has("partial_batches") else self.FIX_LOADER
            yield self.finding(at, fix=fix, what=what), at, fix, what

    def _cap(self, site: nodes.NodeNG) -> tuple[int, bool] | None:
        """The cap (see :func:`_capped_pass`) of the loop that draws from ``site`` when it
        stops each pass after a known count (``if i + 1 == EVAL_BATCHES: break``,
        ``zip(range(n), loader)``), so the pass may end before the loader's last batch:
        ``site`` itself (a step loop), or the loop whose iterable is ``site``, an XLA loader
        call (``for i, b in enumerate(pl.MpDeviceLoader(loader, device))``). None otherwise:
        a loader call bound to a name may be handed to other loops. A site of another
        module of the project is asked of that module's analysis."""
        an = self.an
        if site.root() is not an.module:
            # (a loop of another module of the project: asked of its own analysis)
            an = an.link.analyzer_of(site) if an.link is not None else None
            if an is None:
                return None
        loop = site if isinstance(site, nodes.For) else None
        sliced: int | None = None
        if isinstance(site, nodes.Call):
            holder = site.parent
            sliced = _drawn_count(an, holder, site)
            if sliced is not None:
                # ``islice(loader, n)``, ``zip(range(n), loader)``: at most n batches a pass
                site, holder = holder, holder.parent
            if isinstance(holder, nodes.Call) and an.is_builtin(holder.func, "enumerate") and \
                    holder.args and holder.args[0] is site:
                site, holder = holder, holder.parent
            if isinstance(holder, nodes.For) and holder.iter is site:
                loop = holder
        if loop is None:
            return None
        if sliced is None and site is loop:
            # (a step loop over ``zip(range(n), loader)`` or ``islice(loader, n)``)
            it = loop.iter
            if isinstance(it, nodes.Call) and an.is_builtin(it.func, "enumerate") and it.args:
                it = it.args[0]
            if isinstance(it, nodes.Call):
                sliced = next((n for a in it.args
                               if (n := _drawn_count(an, it, a)) is not None), None)
        if sliced is not None:
            return sliced - 1, True  # (the cap's last index, as for ``i + 1 == n``)
        return _capped_pass(an, loop)

    def _drop_last_factory(self, loader: nodes.Call) -> tuple[nodes.FunctionDef, str] | None:
        """``(factory, parameter)`` when ``loader``, a DataLoader call of a function of this
        module, takes its ``drop_last`` from a parameter of it that is never rebound
        (``def make_loader(ds, bs, drop_last): return DataLoader(ds, bs,
        drop_last=drop_last)``) and every call of it in the module passes that parameter:
        the caller writes what makes it ragged; else None."""
        an = self.an
        func = loader.frame()
        drop = keyword(loader, "drop_last")
        if not isinstance(func, nodes.FunctionDef) or loader.root() is not an.module or \
                not isinstance(drop, nodes.Name):
            return None
        binds = an.ev.bindings(drop)
        if len(binds) != 1 or not isinstance(binds[0].parent, nodes.Arguments) or \
                binds[0].parent.parent is not func:
            return None  # (not the factory's own parameter, or rebound)
        sites = an.ev.call_sites(func)
        if not sites or not all(isinstance(an.ev.site_argument(func, call, drop.name, bound),
                                           nodes.NodeNG) for call, bound in sites):
            return None  # (a call leaving it to the default: the factory's line decides)
        return func, drop.name

    def _passing_call(self, factory: tuple[nodes.FunctionDef, str], site: nodes.NodeNG
                      ) -> nodes.Call | None:
        """The one call of ``factory`` (see :meth:`_drop_last_factory`) whose loader ``site``
        (a step loop or an XLA loader call) iterates: ``val_loader = make_loader(val_ds,
        16, drop_last=False)`` then ``pl.MpDeviceLoader(val_loader, device)``; None when
        the site's loader is not such a call (a parameter, a container)."""
        an = self.an
        expr = site.iter if isinstance(site, nodes.For) else (
            argument(site, 0, "loader") if isinstance(site, nodes.Call) else None)
        if isinstance(expr, nodes.Call) and an.is_builtin(expr.func, "enumerate") and \
                expr.args:
            expr = expr.args[0]
        made = [expr]
        if isinstance(expr, nodes.Name):
            made = [b.parent.value for b in an.ev.bindings(expr)
                    if isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign)]
        found = [call for call, _ in an.ev.call_sites(factory[0])
                 if any(call is m for m in made)]
        return found[0] if len(found) == 1 else None

    def _sliced_batches(self) -> Iterator[Finding]:
        """``for begin in range(0, len(ids), bs): batch = ids[begin:begin + bs]`` in a step
        loop: batches cut by hand, the last one short unless the length is a known
        multiple of the step (or the range stops at the last whole slice: a stop that
        subtracts the step or floors by it)."""
        an = self.an
        for loop in an.rule_nodes(nodes.For):
            it = loop.iter
            if not (isinstance(it, nodes.Call) and len(it.args) == 3 and not it.keywords and
                    an.is_builtin(it.func, "range") and
                    isinstance(loop.target, nodes.AssignName)):
                continue
            _, stop, step = it.args
            spelled = step.as_string()
            stops = [stop.as_string()]
            if isinstance(stop, nodes.Name):
                # ``whole = n - n % bs`` then ``range(0, whole, bs)``
                stops += [b.parent.value.as_string() for b in an.ev.bindings(stop)
                          if isinstance(b, nodes.AssignName) and
                          isinstance(b.parent, nodes.Assign)]
            if isinstance(step, nodes.Const) or any(spelled in t for t in stops):
                continue  # (a literal step: a fixed stride, not a batch size variable)
            if self._splits_stop(step, stop):
                continue
            cut = self._first_slice(loop, loop.target.name, spelled)
            if cut is None or not an.steps.is_step_loop(loop) or an.off_xla_path(loop):
                continue
            n = V.single_text(an.value(stop))
            size = V.single_text(an.value(step))
            if n is not None and size is not None and n.isdigit() and size.isdigit() and \
                    int(size) > 0 and int(n) % int(size) == 0:
                continue
            yield Finding(cut.lineno, cut.col_offset, self.code, f"{self.code} " +
                          self.SLICED.format(what=f"slicing {cut.as_string()[:40]}",
                                             step=spelled[:30]))

    def _splits_stop(self, step: nodes.NodeNG, stop: nodes.NodeNG) -> bool:
        """The step is the stop floor-divided by a count (``mb = batch_size //
        num_minibatches``, PPO's minibatches of one rollout): the range cuts the stop into
        that many equal slices, and a shorter last one only when the count does not
        divide it, which is not known here."""
        values = [step]
        if isinstance(step, nodes.Name):
            binds = self.an.ev.bindings(step)
            if not binds or not all(isinstance(b, nodes.AssignName) and
                                    isinstance(b.parent, nodes.Assign) for b in binds):
                return False
            values = [b.parent.value for b in binds]
        for value in values:
            while isinstance(value, nodes.Call) and self.an.is_builtin(value.func, "int") and \
                    len(value.args) == 1:
                value = value.args[0]  # ``int(batch_size // num_minibatches)``
            if not (isinstance(value, nodes.BinOp) and value.op == "//" and
                    value.left.as_string() == stop.as_string()):
                return False
        return True

    @staticmethod
    def _first_slice(loop: nodes.For, var: str, step: str) -> nodes.Subscript | None:
        """The first ``x[var:var + step]`` of the loop's body (also through ``end = var +
        step`` then ``x[var:end]``)."""
        ends = {f"{var} + {step}", f"{step} + {var}"}
        for stmt in loop.body:
            for node in nodes_of(stmt, (nodes.Assign, nodes.Subscript)):
                if isinstance(node, nodes.Assign) and len(node.targets) == 1 and \
                        isinstance(node.targets[0], nodes.AssignName) and \
                        node.value.as_string() in ends:
                    ends.add(node.targets[0].name)
                elif isinstance(node, nodes.Subscript) and isinstance(node.slice, nodes.Slice):
                    lower, upper = node.slice.lower, node.slice.upper
                    if isinstance(lower, nodes.Name) and lower.name == var and \
                            upper is not None and upper.as_string() in ends and \
                            node.slice.step is None:
                        return node
        return None

    def _settings_only(self, call: nodes.Call) -> bool:
        """``args = Seq2SeqTrainingArguments(..., per_device_train_batch_size=1)`` whose
        every use reads a setting or calls a method of it (``args.seed``,
        ``batch_size=args.per_device_...``, ``args.get_warmup_steps(n)``), never hands the
        object itself on: no Trainer gets it, so no Trainer builds a loader from it (the script's own
        DataLoaders are checked where they are built)."""
        stmt = call.parent
        if not (isinstance(stmt, nodes.Assign) and stmt.value is call and
                len(stmt.targets) == 1 and isinstance(stmt.targets[0], nodes.AssignName)):
            return False
        name = stmt.targets[0].name
        scope = stmt.scope()
        uses = [n for n in self.an.ev.name_uses(name) if n.scope() is scope]
        return bool(uses) and all(isinstance(n.parent, nodes.Attribute) and
                                  n.parent.expr is n for n in uses)

    @staticmethod
    def _site_text(site) -> str:
        if isinstance(site, nodes.For):
            return "the step loop iterates"
        if isinstance(site, nodes.Call) and isinstance(site.func, nodes.Name) and \
                site.func.name == "next":
            return "the step loop draws batches from with next()"
        return "feeds the XLA loader"

    flag_only: ClassVar[bool] = False

    def _ragged(self, v: V.Value) -> bool:
        if self.flag_only:
            return v.has("drop_last_flag") and v.text != "1"
        if v.has("partial_batches"):
            return True  # webdataset's ``.batched(bs)`` keeps each worker's short batch
        if v.has("drop_last") or v.has("drop_last_unknown") or v.has("iterable") or \
                v.has("endless") or v.has("unbatched") or v.has("whole_batches"):
            return False
        whole = not (v.has("distributed") or v.has("sampler") or v.has("sampler_unknown"))
        if whole and self._guarded_whole(v):
            return False  # (``if len(ds) % bs: raise ValueError(...)`` before the loader)
        if v.text is None:
            # a batch size that is not a literal: any size may leave a remainder, unless
            # every dataset was cut to a multiple of that very batch size (times the
            # replica count a DistributedSampler splits it over)
            if whole:
                return not self._cut_to_batches(v, None, (1,))
            if v.has("distributed") and not (v.has("sampler") or v.has("sampler_unknown")):
                worlds = self._sampler_worlds(v) or self._either_worlds(v)
                return not (worlds and self._cut_to_batches(v, None, worlds))
            return True
        try:
            batch = int(v.text)
        except ValueError:
            return False
        if batch <= 1:
            return False
        if whole:
            # Every sample once, in batches: a known dataset size that the batch divides
            # (each dataset the loader may load: ``FakeData(12_000_000)`` under a debug
            # flag beside an ImageFolder of any size may still leave a remainder).
            sizes = [size.text for size in v.bound or ()]
            if sizes and all(t and t.isdigit() and int(t) % batch == 0 for t in sizes):
                return False
            if self._cut_to_batches(v, batch, (1,)):
                return False
        elif v.has("distributed") and not (v.has("sampler") or v.has("sampler_unknown")):
            sizes = [size.text for size in v.bound or ()]
            worlds = self._sampler_worlds(v)
            if worlds and sizes and all(
                    t and t.isdigit() and all(-(-int(t) // w) % batch == 0 for w in worlds)
                    for t in sizes):
                return False
            worlds = worlds or self._either_worlds(v)
            if worlds and self._cut_to_batches(v, batch, worlds):
                return False
        return True

    def _guarded_whole(self, v: V.Value) -> bool:
        """Before the DataLoader ``v`` (a call of this module), its function stops unless
        the dataset's length is a multiple of the batch size: ``if len(ds) % bs != 0:
        raise ...`` (or ``if n % bs:`` with ``n = len(ds)``), or ``assert len(ds) % bs ==
        0``, in a block that holds the loader call, with the loader's own dataset and
        ``batch_size=`` (as written, or names bound once to them)."""
        call = v.node
        if not isinstance(call, nodes.Call) or call.root() is not self.an.module:
            return False
        ds = argument(call, 0, "dataset")
        bs = argument(call, 1, "batch_size")
        if ds is None or bs is None:
            return False
        frame = call.frame()

        def texts(node: nodes.NodeNG) -> set[str]:
            out = {node.as_string()}
            if isinstance(node, nodes.Name):
                binds = self.an.ev.bindings(node)
                if len(binds) == 1 and isinstance(binds[0], nodes.AssignName) and \
                        isinstance(binds[0].parent, nodes.Assign) and \
                        binds[0].frame() is frame:
                    out.add(binds[0].parent.value.as_string())
            return out

        size_texts = {f"len({t})" for t in texts(ds)}
        batch_texts = texts(bs)

        def remainder(test: nodes.NodeNG) -> bool:
            # ``len(ds) % bs`` (or ``n % bs`` with ``n = len(ds)``)
            return isinstance(test, nodes.BinOp) and test.op == "%" and \
                bool(texts(test.left) & size_texts) and bool(texts(test.right) & batch_texts)

        def compares(test: nodes.NodeNG, op: str) -> bool:
            return isinstance(test, nodes.Compare) and len(test.ops) == 1 and \
                test.ops[0][0] == op and isinstance(test.ops[0][1], nodes.Const) and \
                test.ops[0][1].value == 0 and remainder(test.left)

        for stmt in nodes_of(frame, (nodes.If, nodes.Assert)):
            if not runs_before(stmt, call, frame):
                continue
            if isinstance(stmt, nodes.Assert):
                test = stmt.test
                if compares(test, "==") or isinstance(test, nodes.UnaryOp) and \
                        test.op == "not" and remainder(test.operand):
                    return True
                continue
            if (remainder(stmt.test) or compares(stmt.test, "!=")) and \
                    any(isinstance(b, nodes.Raise) for b in stmt.body):
                return True
        return False

    def _either_worlds(self, v: V.Value) -> tuple[int, ...]:
        """:data:`HOST_WORLDS` when the loader's ``sampler=`` is one of several plain
        samplers, a DistributedSampler among them (``RandomSampler(ds)``, replaced by a
        ``DistributedSampler`` when there are several replicas), each drawing every sample
        once; else empty."""
        call = v.node
        arg = keyword(call, "sampler") if isinstance(call, nodes.Call) else None
        samplers = self.an.value(arg) if arg is not None else frozenset()
        if len(samplers) < 2 or not all(
                s.kind is Kind.SAMPLER and s.flags <= {"distributed"} and
                isinstance(s.node, nodes.Call) and keyword(s.node, "drop_last") is None and
                not has_star_kwargs(s.node) for s in samplers):
            return ()
        return self.HOST_WORLDS

    def _cut_to_batches(self, v: V.Value, batch: int | None, worlds: tuple[int, ...]
                        ) -> bool:
        """Every dataset the loader ``v`` may load was cut to a multiple of a number
        (``x[:len(x) // bs * bs]``; :func:`~flake8_xla.analysis.specs.multiple_factors`)
        that ``batch`` times each replica count of ``worlds`` divides: by its literal
        factors, or, for one replica, because the loader's own ``batch_size=`` expression
        is one of the factors (``batch`` None: that expression is not a literal)."""
        from flake8_xla.analysis.specs import MULT
        bound = list(v.bound or ())
        call = v.node
        if not bound or not isinstance(call, nodes.Call):
            return False
        from flake8_xla.analysis.specs import factor_key
        # (what the loader's ``batch_size=`` and its sampler's ``num_replicas=`` stand for,
        # comparable with the cut's factors: ``args.batch_size``, ``xr.world_size()``)
        ev = self.an.ev
        here = call.root() is self.an.module
        size_arg = argument(call, 1, "batch_size")
        text = factor_key(ev, size_arg, None, 0) if here and size_arg is not None else None
        sampler = keyword(call, "sampler") if here else None
        world_texts = {k for v_s in (self.an.value(sampler) if sampler else ())
                       if isinstance(v_s.node, nodes.Call) and v_s.node.root() is self.an.module
                       if (r := keyword(v_s.node, "num_replicas")) is not None
                       if (k := factor_key(ev, r, None, 0)) is not None}
        for size in bound:
            factors = {f[len(MULT):] for f in size.flags if f.startswith(MULT)}
            if not factors:
                return False
            ints = 1
            for f in factors:
                if f.isdigit():
                    ints *= int(f)
            batch_ok = batch is not None and ints % batch == 0 or \
                text is not None and text in factors
            for w in worlds:
                if batch is not None and ints % (batch * w) == 0:
                    continue
                if batch_ok and (w == 1 or bool(world_texts & factors)):
                    continue
                return False
        return True

    #: The replica counts of one TPU host (a v2/v3-8 runs 8 processes, a v4/v5e host 4
    #: or 8, a single device 1): a DistributedSampler whose num_replicas is unknown is
    #: taken to split the dataset over one of them.
    HOST_WORLDS = (1, 2, 4, 8)

    def _sampler_worlds(self, v: V.Value) -> tuple[int, ...]:
        """The replica counts over which the DistributedSampler of the loader ``v`` (a
        DataLoader call of this module) may split its dataset: its ``num_replicas`` when
        a literal number, else :data:`HOST_WORLDS`. Empty when the sampler is unknown, or
        drops or pads samples in another way (its own ``drop_last``). Each replica then
        draws ``ceil(N / world)`` samples (torch/utils/data/distributed.py pads the last
        ones by repeating), every one of them in whole batches when the batch size
        divides that count for each world: no pass ends in a shorter batch."""
        call = v.node
        if not isinstance(call, nodes.Call) or call.root() is not self.an.module:
            return ()
        arg = keyword(call, "sampler")
        if arg is None:
            return ()
        samplers = self.an.value(arg)
        if len(samplers) != 1:
            return ()
        (sampler,) = tuple(samplers)
        made = sampler.node
        if sampler.kind is not Kind.SAMPLER or not sampler.has("distributed") or \
                not isinstance(made, nodes.Call) or has_star_kwargs(made) or \
                keyword(made, "drop_last") is not None or len(made.args) > 1:
            return ()
        world = keyword(made, "num_replicas")
        replicas = _positive_int(self.an, world) if world is not None else None
        return (replicas,) if replicas is not None else self.HOST_WORLDS

    def _loaders_on_xla_path(self) -> Iterator[tuple[V.Value, nodes.NodeNG]]:
        """Plain DataLoader values that reach an XLA loader or a step loop, each with that
        loop or loader call: in this module, then those built here that reach one in a
        neighbouring module of the project (a loader passed to
        ``engine.train_one_epoch``, a loader factory whose caller loops over what it
        returns)."""
        an = self.an
        here: set[int] = set()
        for v, site in self._loaders_reaching(an):
            here.add(id(v.node))
            yield v, site
        if an.link is None:
            return
        pending = {id(call) for call in an.plain_loader_calls() if id(call) not in here}
        if not pending:
            return  # every DataLoader built here reaches a loop here, or none is built
        # (nearest and likeliest first; no module more is analyzed once every DataLoader
        # built here is found reaching one)
        for other in an.link.iter_neighbour_analyzers(hops=5, rank=_loader_rank):
            for v, site in self._loaders_reaching(other):
                if v.node is not None and v.node.root() is an.module:
                    pending.discard(id(v.node))
                    yield v, site
            if not pending:
                return

    def _loaders_reaching(self, an) -> Iterator[tuple[V.Value, nodes.NodeNG]]:
        for call in an.calls_named("fit"):
            # ``trainer.fit(model, train_loader, val_loader)`` of a Lightning Trainer on
            # the TPU (``Trainer(tpu_cores=8)``, ``accelerator="tpu"``): Lightning runs its
            # steps over those loaders on the XLA device
            trainer = _tpu_trainer_call(an, call.func.expr) \
                if isinstance(call.func, nodes.Attribute) else None
            if trainer is not None:
                # (a loader cut by ``limit_train_batches``/``limit_val_batches`` stops
                # before its ragged last batch)
                limited = {kind for kind in ("train", "val")
                           if _limits_batches(an, keyword(trainer, f"limit_{kind}_batches"))}
                handed = [(arg, "train" if i == 1 else "val")
                          for i, arg in enumerate(call.args) if i >= 1] + [
                    (k.value, "train" if k.arg.startswith("train") else "val")
                    for k in call.keywords or () if k.arg in (
                        "train_dataloaders", "val_dataloaders", "train_dataloader",
                        "val_dataloader")]
                for arg, kind in handed:
                    if kind in limited:
                        continue
                    for inner in self._plain_inside(an.value(arg), 0):
                        yield inner, call
                # (a LightningDataModule, or the LightningModule itself, whose
                # ``train_dataloader()``/``val_dataloader()`` Lightning calls)
                holders = list(call.args[:2]) + [k.value for k in call.keywords or ()
                                                 if k.arg in ("model", "datamodule")]
                hooks = tuple(h for h in _LOADER_HOOKS if h.split("_")[0] not in limited)
                for arg in holders:
                    for inner in self._plain_inside(_hook_loaders(an, an.value(arg), hooks),
                                                    0):
                        yield inner, call
        for call in an.module_nodes(nodes.Call):
            func = call.func
            name = func.name if isinstance(func, nodes.Name) else (
                func.attrname if isinstance(func, nodes.Attribute) else "")
            if "loader" not in name.lower() or not (call.args or call.keywords):
                # XLA loaders (MpDeviceLoader, ParallelLoader, per_device_loader) wrap the
                # loader they are given; a wrapper function of the project is found where
                # it builds one
                continue
            if an.ev.in_dead_function(call):
                continue  # (in a nested function that never runs)
            holder = call.parent
            if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Name) and \
                    holder.func.name == "enumerate" and holder.args and holder.args[0] is call:
                holder = holder.parent
            if isinstance(holder, nodes.For) and holder.iter in (call, call.parent) and \
                    single_pass(holder):
                continue  # ``for x, y in MpDeviceLoader(...): ...; break``: one batch drawn
            for v in an.value(call):
                if v.kind is Kind.LOADER and (v.has("xla") or v.has("parallel")) and \
                        not v.has("managed"):
                    for inner in self._plain_inside(v.bound or frozenset(), 0):
                        yield inner, call
        for loop in an.module_nodes(nodes.For):
            if an.steps.in_unit_test(loop):
                continue  # (never a step loop: no value of its iterable is needed)
            # the loader first: most loops iterate no DataLoader, and is_step_loop costs more
            inner = list(self._plain_inside(an.value(loop.iter), 0))
            if inner and an.steps.is_step_loop(loop):
                for v in inner:
                    yield v, loop
        for call in an.calls_named("run"):
            # ``trainer.run(train_loader, max_epochs=5)``: an ignite engine whose step runs
            # on the XLA device draws every batch of the loader through it
            data = argument(call, 0, "data")
            if data is None or not isinstance(call.func, nodes.Attribute) or \
                    not any(_ignite_engine_on_xla(an, v) for v in an.value(call.func.expr)):
                continue
            for v in self._plain_inside(an.value(data), 0):
                yield v, call
        for call in an.calls_named("next"):
            # ``x, y = next(data_iter)`` per step, ``data_iter = iter(train_loader)``
            # (restarted on StopIteration): each pass over the loader ends with its last batch
            if not call.args or not an.is_builtin(call.func, "next"):
                continue
            arg = call.args[0]
            if isinstance(arg, nodes.Call) and an.is_builtin(arg.func, "iter"):
                continue  # ``next(iter(loader))``: a fresh pass's first batch, always full
            inner = list(self._plain_inside(an.value(call.args[0]), 0))
            if inner and _in_step_loop(an, call):
                for v in inner:
                    yield v, call

    def _plain_inside(self, vs: frozenset[V.Value], depth: int) -> Iterator[V.Value]:
        if depth > 6:
            return
        for v in vs:
            if v.kind is Kind.LOADER:
                if v.has("managed"):
                    continue
                if v.has("plain") and not v.has("custom"):
                    yield v
                elif v.bound:
                    yield from self._plain_inside(v.bound, depth + 1)
            elif v.kind in (Kind.PROGRESS, Kind.ITERATOR) and v.bound:
                yield from self._plain_inside(v.bound, depth + 1)
            elif v.kind is Kind.OBJECT and isinstance(v.node, nodes.ClassDef):
                yield from self._plain_inside(self.an.steps.wrapped_loaders(v), depth + 1)


def _capped_pass(an: Analyzer, loop: nodes.For) -> tuple[int, bool] | None:
    """``(bound, in_batches)`` when each run of ``loop`` stops once a counter of the pass
    reaches a known positive int: a statement of its body (not nested in another
    statement) ``if i + 1 == EVAL_BATCHES: break`` with ``i`` its ``enumerate`` index or a
    ``n += 1`` of the body (``in_batches``), or ``if max_samples and seen >= max_samples:
    break`` with ``seen += len(x)`` of the body (items); the counter set to 0 by an
    assignment where the loop is (not a parameter, not before an enclosing epoch loop: a
    global step count stops the last epoch only). None otherwise."""
    counters: dict[str, bool] = {}
    it = loop.iter
    if isinstance(it, nodes.Call) and an.is_builtin(it.func, "enumerate") and \
            isinstance(loop.target, nodes.Tuple) and loop.target.elts and \
            isinstance(loop.target.elts[0], nodes.AssignName):
        counters[loop.target.elts[0].name] = True
    outer = enclosing_loop(loop)
    for stmt in loop.body:
        if isinstance(stmt, nodes.AugAssign) and stmt.op == "+=" and \
                isinstance(stmt.target, nodes.AssignName) and \
                _set_per_pass(stmt.target, loop, outer):
            counters[stmt.target.name] = isinstance(stmt.value, nodes.Const) and \
                stmt.value.value == 1
    if not counters:
        return None
    for stmt in loop.body:
        if isinstance(stmt, nodes.If) and any(isinstance(b, nodes.Break) for b in stmt.body):
            found = _reaches_bound(an, stmt.test, counters)
            if found is not None:
                return found
    return None


def _reaches_last(origin: V.Value, cap: tuple[int, bool]) -> bool:
    """A pass capped at ``cap`` (see :func:`_capped_pass`) still reaches the last batch of
    the loader ``origin``: its batch size and dataset sizes are known and the cap is not
    below the batches (or items) of a pass. Unknown sizes: False (the cap may stop it)."""
    bound, in_batches = cap
    if origin.text is None or not origin.text.isdigit() or int(origin.text) <= 0 or \
            origin.has("distributed") or origin.has("sampler") or \
            origin.has("sampler_unknown"):
        return False
    sizes = [size.text for size in origin.bound or ()]
    if not sizes or not all(t and t.isdigit() for t in sizes):
        return False
    rows = max(int(t) for t in sizes)  # type: ignore[arg-type]
    batches = -(-rows // int(origin.text))
    return bound + 1 >= batches if in_batches else bound >= rows


def _drawn_count(an: Analyzer, holder: nodes.NodeNG, loader: nodes.Call) -> int | None:
    """The known count of items ``holder`` takes from ``loader`` (an argument of it):
    ``itertools.islice(loader, n)`` (or ``islice(loader, start, n)`` from 0) and ``zip(
    range(n), loader)``; None otherwise."""
    if not isinstance(holder, nodes.Call) or holder.keywords:
        return None
    q = an.qualname(holder.func)
    if q == "itertools.islice" and holder.args and holder.args[0] is loader and \
            2 <= len(holder.args) <= 3:
        stop = holder.args[1] if len(holder.args) == 2 else holder.args[2]
        if len(holder.args) == 3 and V.single_text(an.value(holder.args[1])) not in ("0",):
            return None
        return _positive_int(an, stop)
    if q == "zip" and any(a is loader for a in holder.args):
        for a in holder.args:
            if isinstance(a, nodes.Call) and an.is_builtin(a.func, "range") and \
                    len(a.args) == 1 and not a.keywords:
                n = _positive_int(an, a.args[0])
                if n is not None:
                    return n
    return None


def _positive_int(an: Analyzer, node: nodes.NodeNG) -> int | None:
    """The positive int that ``node`` is known to hold (its one value's text), else None."""
    n = V.single_text(an.value(node))
    return int(n) if n is not None and n.isdigit() and int(n) > 0 else None


def _set_per_pass(target: nodes.AssignName, loop: nodes.For,
                  outer: nodes.NodeNG | None) -> bool:
    """``target``'s name, counted up in ``loop``, starts from a plain assignment of the same
    function (not a parameter) that ``loop``'s enclosing loops also enclose (so it
    restarts each pass)."""
    scope = loop.scope()
    inits = [b for b in nodes_of(scope, nodes.AssignName, skip_klass=(
        nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)) if b.name == target.name and
        not isinstance(b.parent, nodes.AugAssign)]
    if isinstance(scope, (nodes.FunctionDef, nodes.Lambda)) and \
            target.name in scope.argnames():
        return False  # (a count handed in: ``train_one_epoch(..., global_step)``)
    return bool(inits) and all(
        isinstance(b.statement(), nodes.Assign) and b.fromlineno < loop.fromlineno and
        enclosing_loop(b) is outer for b in inits)


def _reaches_bound(an: Analyzer, test: nodes.NodeNG, counters: dict[str, bool]
                   ) -> tuple[int, bool] | None:
    """``(bound, in_batches)`` when ``test`` holds once a counter reaches a known positive
    int: ``i >= N``, ``i + 1 == N``, ``N <= seen``, alone or ``and``-ed with the bound
    itself (``max_samples and seen >= max_samples``); None otherwise."""
    parts = test.values if isinstance(test, nodes.BoolOp) and test.op == "and" else [test]
    found: tuple[nodes.NodeNG, int, bool] | None = None
    for part in parts:
        if isinstance(part, nodes.Compare) and len(part.ops) == 1:
            op, right = part.ops[0]
            left = part.left
            if op in ("<=", "<"):
                left, right, op = right, left, {"<=": ">=", "<": ">"}[op]
            if op not in ("==", ">=", ">") or found is not None:
                return None
            counted = left.left if isinstance(left, nodes.BinOp) and left.op == "+" and \
                isinstance(left.right, nodes.Const) else left
            if not (isinstance(counted, nodes.Name) and counted.name in counters):
                return None
            bound = V.single_text(an.value(right))
            if bound is None or not bound.isdigit() or int(bound) <= 0:
                return None
            found = (right, int(bound), counters[counted.name])
    if found is None or not all(p is found[0] or p.parent is test and
                                p.as_string() == found[0].as_string() or
                                isinstance(p, nodes.Compare) for p in parts):
        return None
    return found[1], found[2]


#: ignite's engine factories whose step moves each batch to their ``device``
#: (``ignite/engine/__init__.py``), and the device of ignite's current backend
#: (``ignite/distributed/utils.py``)
IGNITE_SUPERVISED = frozenset({"ignite.engine.create_supervised_trainer",
                               "ignite.engine.create_supervised_evaluator"})
IGNITE_DEVICE = "ignite.distributed.device"


def _limits_batches(an: Analyzer, limit: nodes.NodeNG | None) -> bool:
    """A Lightning ``limit_train_batches=``/``limit_val_batches=`` value that may stop an
    epoch before its last batch: a number of batches (an int), a fraction below 1.0, or a
    value not known. ``1.0`` (Lightning's default, often the non-debug branch's value:
    ``if args.debug: limit = 100`` / ``else: limit = 1.0``) runs the whole loader: a limit
    that is the literal 1.0 on some path does not hide the ragged last batch there."""
    if limit is None:
        return False
    literals: list[nodes.NodeNG] = [limit]
    if isinstance(limit, nodes.Name):
        literals = [b.parent.value for b in an.ev.bindings(limit)
                    if isinstance(b, nodes.AssignName) and isinstance(b.parent, nodes.Assign)]
    return not any(isinstance(n, nodes.Const) and isinstance(n.value, float) and
                   n.value >= 1.0 for n in literals)


def _ignite_engine_on_xla(an: Analyzer, v: V.Value) -> bool:
    """``v`` is an ignite engine whose step runs on the XLA device: built by
    ``create_supervised_trainer/evaluator(..., device=<the XLA device>)``, or an
    ``Engine(process_fn)`` whose process function is a training or evaluation step of
    this module (XLA code)."""
    if v.kind is not Kind.FRAMEWORK or v.qual != "ignite" or \
            not isinstance(v.node, nodes.Call):
        return False
    call = v.node
    if call.root() is not an.module:
        return False
    q = an.qualname(call.func) or ""
    if q in IGNITE_SUPERVISED:
        device = keyword(call, "device")
        return device is not None and (any(
            d.kind is Kind.DEVICE and d.device == "xla" for d in an.value(device)) or
            _backend_device(an, device))
    if q == "ignite.engine.Engine" and call.args:
        fns = [f.node for f in an.value(call.args[0])
               if f.kind is Kind.FUNCTION and isinstance(f.node, nodes.FunctionDef)]
        return bool(fns) and all(an.steps.is_step_function(f) or
                                 an.steps.is_eval_step_function(f) for f in fns)
    return False


def _backend_device(an: Analyzer, expr: nodes.NodeNG, depth: int = 0) -> bool:
    """``idist.device()`` (or a name bound once to it): the device of ignite's current
    backend, the XLA device on the XLA path (``idist.Parallel(backend="xla-tpu")``) of a
    module that is XLA code."""
    if isinstance(expr, nodes.Call):
        return an.qualname(expr.func) == IGNITE_DEVICE
    if isinstance(expr, nodes.Name) and depth < 2:
        binds = an.ev.bindings(expr)
        return len(binds) == 1 and isinstance(binds[0].parent, nodes.Assign) and \
            _backend_device(an, binds[0].parent.value, depth + 1)
    return False


def _in_step_loop(an: Analyzer, node: nodes.NodeNG) -> bool:
    """``node`` runs per iteration of a step loop of its function (or module), or in a
    function that a step over data calls (``get_batch()`` wrapping ``next(self.it)``)."""
    an.steps.step_region()
    if id(node) in an.steps.data_step_nodes:
        return True
    cur = node.parent
    while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Lambda,
                                                   nodes.Module)):
        if isinstance(cur, LOOPS) and an.steps.is_step_loop(cur):
            return True
        cur = cur.parent
    return False


def _loader_rank(facts: FileFacts) -> int | None:
    """How likely a module is to hold a step loop over a loader, or to wrap one in an XLA
    loader (what :meth:`RaggedLastBatch._loaders_reaching` looks for): 0 for a ``for``
    loop with an update, a barrier or something named as a loader, a call whose name
    has ``loader`` in it, or a Trainer's ``fit``; 1 for any other ``for`` loop (its step
    may be a function of another module); None for a module without either."""
    if any("loader" in name.lower() for name in facts.called_names | facts.call_attrs):
        return 0
    if "fit" in facts.call_attrs and "Trainer" in facts.idents:
        return 0  # ``trainer.fit(model, datamodule)`` of a Lightning Trainer
    if not facts.has_for:
        return None
    if may_update(facts) or facts.ident_contains("loader") or \
            facts.any_ident(words()["barrier"]):
        return 0
    return 1


class RaggedLastBatchFlag(RaggedLastBatch):
    """XLA902: a DataLoader whose ``drop_last`` is a setting of the run (opt-in).

    The noisy variant of XLA102: ``drop_last=args.drop_last`` is ragged when the flag is
    off, and the linter cannot tell the flag's value. Off unless selected.

    Source: as XLA102, the torch.utils.data.DataLoader docs (``drop_last``) and PyTorch/XLA
    "Known performance caveats".
    """

    code = "XLA902"
    name = "ragged-last-batch-flag"
    opt_in = True
    measurable = False
    flag_only = True
    fix = "none"
    message = ("possibly ragged last batch: {what} takes drop_last from a setting, and when it "
               "is off the smaller final batch is a new input shape that XLA compiles again; "
               "{fix}")
    FIX_LOADER = "default the setting to True for training, or pass drop_last=True"
    explanation = """Like XLA102 (measured in checks/XLA102), but `drop_last` comes from a flag
(`drop_last=args.drop_last`) whose value the linter cannot see. Off unless selected:
`flake8 --select=XLA --extend-select=XLA902`.

**Example**
```python
loader = DataLoader(ds, batch_size=32, drop_last=flags.drop_last)
```
**Use instead**
```python
loader = DataLoader(ds, batch_size=32, drop_last=True)
```
"""

    def check(self) -> Iterator[Finding]:
        for f in super().check():
            if "TrainingArguments" not in f.message:
                yield f


#: Last names of the torch factories whose shape XLA104 asks of
#: :func:`flake8_xla.analysis.specs.factory_shape` in the step.
SIZED_FACTORY_NAMES = frozenset({"zeros", "ones", "empty", "full", "randn", "rand",
                                 "randint", "arange"})
DYNAMIC_CALL_NAMES = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive",
                                "argwhere", "where", "pack_padded_sequence",
                                "repeat_interleave", "topk", "kthvalue", "bincount",
                                "one_hot", "split"}) | SIZED_FACTORY_NAMES

#: torch ops whose output size is a Python int argument: ``(method position, function
#: position, keyword)`` of that argument. Passed a tensor, torch reads it on the host
#: (``__index__``) and the output shape follows the value read.
SIZE_ARGUMENTS = {"topk": (0, 1, "k"), "kthvalue": (0, 1, "k")}


def _static_slice(index: nodes.NodeNG) -> bool:
    """A constant index, or a slice whose bounds are constants or absent."""
    if isinstance(index, nodes.Const):
        return True
    return all(b is None or isinstance(b, nodes.Const) or (
        isinstance(b, nodes.UnaryOp) and isinstance(b.operand, nodes.Const))
        for b in (index.lower, index.upper, index.step))


def _may_be_dynamic(node: nodes.NodeNG) -> bool:
    """Syntax only: a call named like a dynamic-shape op, or an index that is not a
    constant or a constant slice (what :meth:`DynamicShapeOp._kind` can report)."""
    if isinstance(node, nodes.Call):
        return callee_name(node.func) in DYNAMIC_CALL_NAMES
    index = node.slice
    return not (isinstance(index, (nodes.Const, nodes.Slice)) and _static_slice(index))


def _runs_per_iteration(binding: nodes.NodeNG, loop: nodes.NodeNG | None,
                        use: nodes.NodeNG) -> bool:
    """``binding`` runs in every iteration of ``loop``, the innermost step loop around
    ``use``: it sits inside that loop (not in an epoch loop around it). Without such a
    loop (a module's forward, a helper), or with the binding in another function, the
    step region alone decides."""
    if loop is None or binding.frame() is not use.frame():
        return True
    return loop.parent_of(binding)


def _holds_read(vs: frozenset[V.Value], depth: int = 0) -> bool:
    """Some value, or some item of a container value (``groups`` holding ``(rows, n)``
    tuples whose ``n`` came from ``counts.tolist()``), was read from the device."""
    return any(v.has("read") or depth < 3 and any(_holds_read(p, depth + 1)
                                                  for p in V.parts(v)) for v in vs)


def _loop_of_target(binding: nodes.NodeNG) -> nodes.For | nodes.Comprehension | None:
    """The ``for`` loop (or comprehension) whose target holds ``binding``; None for any
    other binding."""
    node = binding
    while isinstance(node.parent, (nodes.Tuple, nodes.List, nodes.Starred)):
        node = node.parent
    holder = node.parent
    if isinstance(holder, (nodes.For, nodes.Comprehension)) and holder.target is node:
        return holder
    return None


def _on_xla(vs: frozenset[V.Value]) -> bool:
    """Some member is a tensor known to be on the XLA device (not just of unknown device)."""
    return any(v.kind is Kind.TENSOR and v.device == "xla" for v in vs)


def _named_mask(index: nodes.NodeNG) -> bool:
    """A whole index spelled as a mask (``target_mask``, ``self.mask``): indexing a tensor by
    a tensor so named selects by a boolean mask (an integer tensor of 0/1 would gather rows
    0 and 1, which nobody names a mask), also when its boolean dtype cannot be inferred (a
    parameter, a model output's field, a batch's entry ``batch["mask"]``); its inverse
    ``~mask`` too; and an episode's end flags (``done``, ``dones``: ``returns[done]``,
    ``batch["episode_return"][batch["done"]]`` in a reinforcement-learning step)."""
    if isinstance(index, nodes.UnaryOp) and index.op == "~":
        return _named_mask(index.operand)
    ident = index.name if isinstance(index, nodes.Name) else (
        index.attrname if isinstance(index, nodes.Attribute) else (
            const_str(index.slice) or "" if isinstance(index, nodes.Subscript) else ""))
    ident = ident.lower()
    return ident == "mask" or ident.endswith("_mask") or ident.startswith("mask_") or \
        ident in _DONE_FLAGS


#: Names of the per-step episode-end flags of reinforcement-learning batches (bool).
_DONE_FLAGS = frozenset({"done", "dones"})


#: Marks what DynamicShapeOp._kind finds with a boolean mask on the host (its own message).
HOST_MASK = "host-mask:"


def _bool_mask(vs: frozenset[V.Value], strong: bool = False) -> bool:
    """A lazy boolean tensor (a comparison, ``isnan``, ``&`` of masks ...)."""
    return any(V.lazy_value(v, strong) and v.has("bool") for v in vs)


#: Methods that give a tensor's size on the host.
_SIZE_METHODS = ("numel", "nelement", "size", "dim")


def _dynamic_size(an: Analyzer, node: nodes.NodeNG, ctx: Ctx | None, strong: bool) -> bool:
    """``len(idx)``, ``idx.numel()``, ``idx.size(0)`` or ``idx.shape[0]`` of a lazy tensor
    whose shape depends on its values (``torch.where(out == eos)[0]``, ``nonzero()``): the
    size is known only once the graph that computes it has run, so reading it on the host
    executes the pending graph."""
    subject = None
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and \
            node.func.name == "len" and len(node.args) == 1 and an.is_builtin(node.func, "len"):
        subject = node.args[0]
    elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
            node.func.attrname in _SIZE_METHODS:
        subject = node.func.expr
    elif isinstance(node, nodes.Subscript) and isinstance(node.value, nodes.Attribute) and \
            node.value.attrname == "shape":
        subject = node.value.expr
    return subject is not None and any(
        V.lazy_value(v, strong) and v.kind is Kind.TENSOR and v.has("dynamic")
        for v in an.value(subject, ctx))


class DataDependentControlFlow(Rule):
    """XLA103: Python control flow on the value of a lazy XLA tensor.

    Source: PyTorch/XLA "Known performance caveats" (data-dependent control flow
    forces execution), the PyTorch/XLA dynamic shape notes, and transformers'
    ``generation/utils.py`` (``generate()`` checks its stopping criteria on the host
    after every token).
    """

    code = "XLA103"
    fix = "none"
    name = "data-dependent-control-flow"
    message = ("data-dependent control flow: {what} needs the value of a lazy XLA tensor, so "
               "the pending graph executes and the result is copied to the host each step; keep "
               "the decision on the device with torch.where or a mask")
    GENERATE = ("data-dependent control flow: {what} decodes token by token and tests its "
                "stopping criteria (EOS) on the host after every token, so each token is a "
                "graph execution and a device-to-host read, and every new length a new graph; "
                "decode with a fixed max_new_tokens and a static cache, or outside the step "
                "loop")
    migrate_message = ("data-dependent control flow: {what} needs a tensor's value on the "
                       "host, so TorchTPU compiles and runs the deferred ops, waits for the "
                       "TPU and copies the result each step; keep the decision on the device "
                       "with torch.where or a mask")
    explanation = """\
`if loss > x:`, `while not done:`, `assert (t >= 0).all()`, or `a if flag else b`
where the test is a lazy XLA tensor: Python needs a bool, so torch_xla executes
the graph up to that point and copies the answer to the host, inside every step.
Python's `any()`/`all()` over lazy tensors (`if any(torch.isnan(p.grad).any() for p in
model.parameters()):`) do it once per item, `not` of a lazy reduction
(`left_padding = not torch.sum(mask[:, -1])`) where it is computed, `or`/`and` the truth
of each operand but the last (`bad = torch.isnan(loss) or torch.isinf(gnorm)`: use `|`),
and `0.0 in mask`
(`Tensor.__contains__`); so does a test of the size of a tensor whose shape depends on its
values (`if len(torch.where(ids == eos)[0]) > 0:`, `if hits.numel():` after `nonzero()`).
Each branch taken can also trace a different graph. Greedy
decoding that stops when a token equals EOS, and `model.generate()` inside an
evaluation loop, do the same once per token.

Measured (checks/XLA103, PJRT_DEVICE=CPU, 8 steps): 16 graph executions and 9
scalar reads (`aten::_local_scalar_dense`) for the flagged script against 8 and 1.

**Example**
```python
if torch.isnan(loss).any():
    continue
```
**Use instead**
```python
loss = torch.where(torch.isnan(loss), torch.zeros_like(loss), loss)
```
Reported inside training, evaluation and generation step loops, in the forward of a
model, in the private methods a library model's own forward calls (`_merge_...` of a
`LlavaForConditionalGeneration` subclass), and in a step function compiled with
`torch_xla.compile` (there the read breaks the graph, and `full_graph=True` raises).
Not reported:
`is None` (and `== None`) tests, shapes, Python numbers, CPU tensors, code after a `return`.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://docs.pytorch.org/xla/master/learn/dynamic_shape.html",
    )

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return may_have_step_region(facts) or "generate" in facts.call_attrs

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None:
            return
        seen: set[int] = set()
        tests: list[tuple[nodes.NodeNG, Ctx | None, str]] = []
        for node, ctx, per_param in an.rule_region():
            if per_param:
                continue
            if isinstance(node, (nodes.If, nodes.While)):
                tests.append((node.test, ctx, type(node).__name__.lower()))
            elif isinstance(node, nodes.IfExp):
                tests.append((node.test, ctx, "a conditional"))
            elif isinstance(node, nodes.Assert):
                tests.append((node.test, ctx, "assert"))
            elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and \
                    node.func.name in ("any", "all") and not _in_branch_test(node):
                # ``return all(torch.isfinite(p.grad).all() for p in params)``: Python's
                # any()/all() take the truth of each item where they run, not where a
                # branch tests the result later
                tests.append((node, ctx, f"{node.func.name}()"))
            elif isinstance(node, nodes.UnaryOp) and node.op == "not" and \
                    not _in_branch_test(node):
                # ``left_padding = not torch.sum(mask)``: the truth of a lazy tensor, taken
                # where it is stored, not where a branch tests it later
                tests.append((node, ctx, "not"))
            elif isinstance(node, nodes.BoolOp) and not _in_branch_test(node) and \
                    not _in_any_all(node):
                # ``bad = torch.isnan(loss) or torch.isinf(gnorm)``: ``or``/``and`` take the
                # truth of each operand but the last where they run, to pick the result
                tests.extend((operand, ctx, node.op) for operand in node.values[:-1])
            elif isinstance(node, nodes.For) and id(node.iter) not in seen and \
                    isinstance(node.iter, nodes.Call) and an.is_builtin(node.iter.func, "range") \
                    and any(V.lazy_value(v, an.steps.is_strong(node))
                            for a in node.iter.args for v in an.value(a, ctx)):
                # ``for t in range(tgt_lengths.max() - 1):``: the bound is read on the host
                # (``__index__``), and each batch's value unrolls another graph
                seen.add(id(node.iter))
                yield self.finding(node.iter, what=f"a `for` loop over "
                                                   f"{node.iter.as_string()[:40]}")
            elif isinstance(node, nodes.For) and id(node.iter) not in seen and \
                    isinstance(node.iter, (nodes.Name, nodes.Attribute, nodes.Subscript,
                                           nodes.Call)) and \
                    any(V.lazy_value(v, an.steps.is_strong(node)) and v.has("dynamic")
                        for v in an.value(node.iter, ctx)):
                # ``for i in (ids == eos).nonzero():`` over a lazy tensor of data-dependent
                # length: the length is read on the host (a static shape would not be)
                seen.add(id(node.iter))
                yield self.finding(node.iter, what=f"a `for` loop over "
                                                   f"{node.iter.as_string()[:40]}")
            elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
                    node.func.attrname == "generate" and id(node) not in seen and \
                    an.steps.is_forward_call(node, ctx) and not self._own_code(node, ctx):
                seen.add(id(node))
                yield Finding(node.lineno, node.col_offset, self.code,
                              f"{self.code} " + self.GENERATE.format(
                                  what=f"{node.func.as_string()[:40]}()"))
        for loop in an.rule_nodes(nodes.While):
            if an.steps.is_step_loop(loop):
                tests.append((loop.test, None, "while"))
        # generate() of a model known to be on the XLA device, even outside a step loop.
        for node in an.rule_calls("generate"):
            if id(node) in seen or not isinstance(node.func, nodes.Attribute):
                continue
            if any(v.kind is Kind.MODULE and v.device == "xla"
                   for v in an.value(node.func.expr)) and not an.off_xla_path(node) and \
                    not self._own_code(node, None):
                seen.add(id(node))
                yield Finding(node.lineno, node.col_offset, self.code,
                              f"{self.code} " + self.GENERATE.format(
                                  what=f"{node.func.as_string()[:40]}()"))
        for test, ctx, kind in tests:
            if id(test) in seen:
                continue  # (reported once, under the first context that reads a value)
            strong = an.steps.is_strong_in(test, ctx)
            if (self._negates_lazy_result(test, ctx, strong) if kind == "not" else
                    self._reads_value(test, ctx, strong)):
                seen.add(id(test))
                word = kind if kind == "a conditional" else f"`{kind}`"
                shown = test.operand if kind == "not" else test
                yield self.finding(test, what=f"{word} on {shown.as_string()[:40]}")

    def _own_code(self, call: nodes.Call, ctx: Ctx | None) -> bool:
        """``model.generate(...)`` runs a method of the project, not transformers': its
        body is analysed where it is written (an EOS test there is reported on its line, a
        fixed-length decode is not a hazard)."""
        try:
            return any(isinstance(f, nodes.FunctionDef)
                       for f, _ in self.an.ev.functions_called(call, ctx))
        except Exception:  # noqa: BLE001 - unknown: the transformers reading stays
            return False

    def _negates_lazy_result(self, test: nodes.UnaryOp, ctx: Ctx | None, strong: bool) -> bool:
        """``not`` of a call's or a comparison's result that is a lazy tensor (a name is
        not read: it may hold None, as in ``not mask``)."""
        return isinstance(test.operand, (nodes.Call, nodes.Compare)) and any(
            V.lazy_value(v, strong) and v.kind is Kind.TENSOR
            for v in self.an.value(test.operand, ctx))

    def _reads_value(self, test: nodes.NodeNG, ctx: Ctx | None, strong: bool = False) -> bool:
        an = self.an
        if isinstance(test, nodes.BoolOp):
            # Short-circuit: after a term that is False (``and``) or True (``or``) on the
            # XLA path (``not is_torch_xla_available()``), Python evaluates no other term.
            stop = test.op == "or"
            for v in test.values:
                if self._reads_value(v, ctx, strong):
                    return True
                if xla_truth(v, an.ev) is stop:
                    return False
            return False
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            return self._reads_value(test.operand, ctx, strong)
        if isinstance(test, nodes.Compare):
            if all(op in ("is", "is not", "in", "not in") for op, _ in test.ops):
                # ``0.0 in attention_mask``: Tensor.__contains__ reads ``(mask == 0).any()``
                # (a number looked for; ``"loss" in outputs`` is a key of a model output)
                left = test.left
                if isinstance(left, nodes.UnaryOp) and left.op == "-":
                    left = left.operand  # ``-100 in labels``
                lv = an.value(left, ctx)
                number = isinstance(left, nodes.Const) and isinstance(
                    left.value, (int, float)) and not isinstance(left.value, bool) or \
                    bool(lv) and all(v.kind is Kind.HOST and v.qual in ("int", "float")
                                     for v in lv) or an.is_lazy(left, ctx, strong)
                return number and any(
                    op in ("in", "not in") and V.any_kind(an.value(right, ctx), Kind.TENSOR)
                    and an.is_lazy(right, ctx, strong) for op, right in test.ops)
            if any(_dynamic_size(an, part, ctx, strong)
                   for part in (test.left, *(right for _, right in test.ops))):
                return True  # ``if len(eos_idx) > 0:`` of a data-dependent shape
            return an.is_lazy(test, ctx, strong)
        if isinstance(test, nodes.Call):
            if _dynamic_size(an, test, ctx, strong):
                return True  # ``if idx.numel():``
            if any(e.sync == "scalar" for e in an.entries(test, ctx)) and any(
                    an.is_lazy(a, ctx, strong) for a in test.args):
                return True  # torch.equal(a, b), math.isnan(t)
            if (an.is_builtin(test.func, "any") or an.is_builtin(test.func, "all")) and \
                    len(test.args) == 1 and not test.keywords:
                # ``any(torch.isnan(p.grad).any() for p in model.parameters())``: Python's
                # any() takes the truth of each item, one read of the device per item
                items = test.args[0]
                if isinstance(items, (nodes.GeneratorExp, nodes.ListComp, nodes.SetComp)):
                    return an.is_lazy(items.elt, ctx, strong)
                return an.holds_lazy(items, ctx, strong)
            return _bool_mask(an.value(test, ctx), strong)
        if isinstance(test, (nodes.Name, nodes.Attribute, nodes.Subscript)):
            return _bool_mask(an.value(test, ctx), strong)
        return False


#: The hooks of a LightningModule or LightningDataModule that return the loaders a
#: Trainer's ``fit`` runs (Lightning ``core/hooks.py`` ``DataHooks``).
_LOADER_HOOKS = ("train_dataloader", "val_dataloader")


def _hook_loaders(an: Analyzer, vs: frozenset[V.Value],
                  hooks: tuple[str, ...] = _LOADER_HOOKS) -> frozenset[V.Value]:
    """What the loader ``hooks`` of the project objects in ``vs`` return (a datamodule's
    ``train_dataloader()``), each evaluated by its class's own module."""
    out: list[frozenset[V.Value]] = []
    for v in vs:
        if v.kind not in (Kind.OBJECT, Kind.MODULE) or not isinstance(v.node, nodes.ClassDef):
            continue
        home = an.ev.home_of(v.node)
        if home is None:
            continue
        for name in hooks:
            method = home.method_of(v.node, name)
            if method is not None and method.root() is v.node.root():
                out.append(home.returns(method, home.bind_self(method, v, None), 0))
    return V.join(*out) if out else frozenset()


def _tpu_trainer(an: Analyzer, expr: nodes.NodeNG) -> bool:
    """``expr`` names a Lightning ``Trainer`` built for the TPU on the XLA path:
    ``pl.Trainer(tpu_cores=8, ...)`` or ``Trainer(accelerator="tpu")`` (Lightning
    ``trainer/trainer.py``, ``accelerators/xla.py``)."""
    return _tpu_trainer_call(an, expr) is not None


def _tpu_trainer_call(an: Analyzer, expr: nodes.NodeNG) -> nodes.Call | None:
    """The ``Trainer(...)`` call that builds the TPU trainer ``expr`` names (or is:
    ``pl.Trainer(accelerator="tpu").fit(model)`` in one expression), or None."""
    if isinstance(expr, nodes.Call):
        candidates: list[nodes.NodeNG | None] = [expr]
    elif isinstance(expr, nodes.Name):
        candidates = [b.parent.value if isinstance(b, nodes.AssignName) and isinstance(
            b.parent, nodes.Assign) else None for b in an.ev.bindings(expr)]
    else:
        return None
    for value in candidates:
        if not isinstance(value, nodes.Call) or an.off_xla_path(value):
            continue
        q = an.qualname(value.func) or ""
        if not (q.startswith(("lightning", "pytorch_lightning")) and q.endswith(".Trainer")):
            continue
        if any(tpu_trainer_keyword(kw.arg, _constant_value(an, kw.value))
               for kw in value.keywords or ()):
            return value
    return None


def _constant_value(an: Analyzer, node: nodes.NodeNG) -> object:
    """The constant ``node`` is, or the one string a name holds (``ACCELERATOR = "tpu"``
    then ``accelerator=ACCELERATOR``); else None."""
    if isinstance(node, nodes.Const):
        return node.value
    if isinstance(node, nodes.Name):
        texts = {v.text for v in an.value(node)}
        if len(texts) == 1:
            return texts.pop()
    return None


def _slice_bound(parts: Iterable[nodes.NodeNG], test: Callable[[nodes.NodeNG], bool]) -> bool:
    """A slice among ``parts`` (an index's dimensions) has a bound that passes ``test``
    (a lazy tensor, a value read from the device)."""
    return any(isinstance(part, nodes.Slice) and any(
        b is not None and test(b) for b in (part.lower, part.upper)) for part in parts)


def _in_any_all(node: nodes.NodeNG) -> bool:
    """``node`` lies in the argument of an ``any()``/``all()`` call of its statement
    (which XLA103 reads as one test: ``all(torch.isfinite(g).all() and ok for g in
    grads)``)."""
    cur = node.parent
    while cur is not None and not cur.is_statement and not isinstance(cur, nodes.Lambda):
        if isinstance(cur, nodes.Call) and isinstance(cur.func, nodes.Name) and \
                cur.func.name in ("any", "all"):
            return True
        cur = cur.parent
    return False


def _in_branch_test(node: nodes.NodeNG) -> bool:
    """``node`` lies in the test of an ``if``, ``while``, ``assert`` or conditional
    expression (XLA103 reads those tests whole)."""
    child, cur = node, node.parent
    while cur is not None:
        if isinstance(cur, (nodes.If, nodes.While, nodes.Assert, nodes.IfExp)) and \
                child is cur.test:
            return True
        if cur.is_statement or isinstance(cur, (nodes.Lambda, nodes.Comprehension)):
            return False
        child, cur = cur, cur.parent
    return False


#: What XLA104 says of a slice whose bound is a value read from the device in the step.
READ_SLICE = "slicing by a value read from the device"


def _slice_bound_names(sub: nodes.NodeNG) -> frozenset[str]:
    """The names read in the slice bounds of subscript ``sub``."""
    index = getattr(sub, "slice", None)
    parts = index.elts if isinstance(index, nodes.Tuple) else [index]
    return frozenset(n.name for p in parts if isinstance(p, nodes.Slice)
                     for b in (p.lower, p.upper) if b is not None
                     for n in [b, *nodes_of(b, nodes.Name)] if isinstance(n, nodes.Name))


class DynamicShapeOp(Rule):
    """XLA104: an op whose output shape depends on tensor values.

    Source: PyTorch/XLA dynamic shape docs (``nonzero``, ``masked_select`` and
    boolean indexing have data-dependent output shapes), "Known performance caveats",
    ``torch/nn/utils/rnn.py`` (``pack_padded_sequence`` moves ``lengths`` to the CPU),
    and torchmetrics' ``utilities/data.py`` (``_bincount`` avoids ``torch.bincount`` on
    XLA: its length is the largest value read plus one, or ``minlength``).
    """

    code = "XLA104"
    fix = "none"
    name = "dynamic-shape-op"
    message = ("dynamic-shape op: {what} has an output shape that depends on tensor values, so "
               "XLA must execute to learn the shape and compiles a new graph per size; use "
               "fixed-size masks (torch.where, multiply by the mask) instead")
    migrate_message = ("dynamic-shape op: {what} has an output shape that depends on tensor "
                       "values, so TorchTPU must run the deferred ops to learn it and compiles "
                       "a new graph per size (its torch.compile backend takes no dynamic "
                       "shapes); use fixed-size masks (torch.where, multiply by the mask) "
                       "instead")
    HOST_MASK_MESSAGE = ("dynamic-shape op: {what} of a tensor on the device with a boolean mask "
                         "made on the host every step takes as many elements as the mask "
                         "holds True values, a new graph shape and a new compilation for each "
                         "count; move the mask to the device and use torch.where (or multiply "
                         "by the mask) instead")
    explanation = """\
`torch.nonzero`, `masked_select`, `unique`, `bincount`, boolean-mask indexing `t[t > 0]` (and
assignment `t[mask] = v`; an index whose dtype is not known counts as a mask when it is
named one, `target_mask`, `batch["mask"]`, or an episode's `done` flags), slicing by a
tensor value `t[:n_tensor]`,
`repeat_interleave` with the counts in a tensor (unless `output_size=` is given),
`torch.topk`/`kthvalue` with `k` in a tensor (or read back from the device in the step,
such as an item of `counts.cpu().tolist()`), `F.one_hot(target)` without `num_classes`
(its width is `target.max() + 1`, read from the device; torch/nn/functional.py) and
`pack_padded_sequence` of a tensor on
the device (its packed data has `sum(lengths)` rows, wherever the lengths are) produce
outputs whose size depends on the data. XLA compiles for static shapes: it has to execute the pending graph to
learn the size, and every new size is a new graph to compile. Slicing by a number read
back from the device in the step (`n = lengths[i].item()`, where `lengths` is a
`.cpu()` copy of a lazy tensor, then `t[:n]`) bakes that number into the graph, so
each new value compiles again; a number read once before the loop does not. So does a
tensor sized by such a number (`torch.zeros(n_pos, d)`, `torch.randint(0, v, (n_pos,))`;
a read value given as a fill value or a bound of the drawn values shapes nothing) and
`torch.split(t, lengths.tolist())`, whose pieces are as long as the sizes read. A tensor on
the device indexed or assigned through a boolean mask made on the host in the step
(`masked = torch.bernoulli(torch.full(labels.shape, 0.15)).bool()`, then `labels[~masked]
= -1`, as masked-LM collators written by hand do) takes as many indices as the mask has
True values: torch finds them on the host, so no execution is needed, but each step's
count is another graph shape and another compilation (measured: 12 uncached
compilations in 6 steps, against 1 with `torch.where` on the device). A host mask made
once before the loop has one shape for every step and is not reported. Reported
in the step and in what it calls, including a module's `forward` and helper functions;
slices bounded by one value read from the device (`n = lens[i].item()`, then `x[:n]`,
`x[n:]`, `mask[:n]`) are reported once per loop, at the first.

Measured (checks/XLA104, PJRT_DEVICE=CPU, 8 steps): 8 uncached compilations, 32
executions and 24 `aten::nonzero` CPU fallbacks for the flagged script against 1,
8 and 0.

**Example**
```python
positives = logits[labels > 0]
loss = positives.mean()
```
**Use instead**
```python
mask = (labels > 0).float()
loss = (logits * mask).sum() / mask.sum()
```
Not reported on CPU tensors (for example in `Dataset.__getitem__` or a collate
function).
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/dynamic_shape.html",
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
    )

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        # Syntax first: a call named like a dynamic-shape op or an index that is not
        # constant (what _kind reports); in the step region, or anywhere on a tensor known
        # to be on the XLA device (which needs torch_xla, or an 'xla' device string, in
        # the file).
        if not facts.has_dynamic_index and DYNAMIC_CALL_NAMES.isdisjoint(facts.call_attrs) \
                and DYNAMIC_CALL_NAMES.isdisjoint(facts.called_names):
            return False
        return may_have_step_region(facts) or facts.any_ident(
            ("torch_xla", "torch_xla_py")) or any(s.startswith("xla") for s in facts.strings)

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None:
            return
        seen: set[tuple[int, int]] = set()
        read_bounds: set[tuple[int, frozenset[str]]] = set()
        for node, ctx, per_param in an.rule_region():
            if per_param:
                continue
            strong = an.steps.is_strong(node)
            what = self._kind(node, ctx, lambda vs, s=strong: V.is_lazy(vs, s))
            if what == READ_SLICE:
                # (one finding per value read and loop: ``x[:n]``, ``y[:n]`` and ``x[n:]``
                # with one ``n = lens[i].item()`` have one cause, one fix)
                key = (id(enclosing_loop(node) or node.frame()), _slice_bound_names(node))
                if key in read_bounds:
                    continue
                read_bounds.add(key)
            if what and (node.lineno, node.col_offset) not in seen:
                seen.add((node.lineno, node.col_offset))
                if what.startswith(HOST_MASK):
                    yield self.finding_text(node, f"{self.code} " + self.HOST_MASK_MESSAGE.format(
                        what=what[len(HOST_MASK):].replace("boolean-mask ", "")))
                else:
                    yield self.finding(node, what=what)
        # Outside the step: only on tensors known to be on the XLA device.
        for node in an.rule_nodes((nodes.Call, nodes.Subscript)):
            if (node.lineno, node.col_offset) in seen or not _may_be_dynamic(node):
                continue
            what = self._kind(node, None, _on_xla, in_step=False)
            if what and not an.off_xla_path(node):
                seen.add((node.lineno, node.col_offset))
                yield self.finding(node, what=what)

    def _kind(self, node: nodes.NodeNG, ctx: Ctx | None,
              lazy: Callable[[frozenset[V.Value]], bool], in_step: bool = True) -> str | None:
        an = self.an

        def is_lazy(expr: nodes.NodeNG) -> bool:
            return lazy(an.value(expr, ctx))

        if isinstance(node, nodes.Call):
            f = node.func
            name = callee_name(f)
            if name not in DYNAMIC_CALL_NAMES:
                return None  # syntax first
            entries = an.entries(node, ctx)
            if any(e.does("dynamic_shape") for e in entries):
                subject = f.expr if isinstance(f, nodes.Attribute) and not an.qualname(f) else (
                    node.args[0] if node.args else None)
                if subject is not None and is_lazy(subject):
                    name = f.attrname if isinstance(f, nodes.Attribute) else f.as_string()
                    return f"{name}()" if isinstance(f, nodes.Name) else (
                        f"torch.{name}" if an.qualname(f) else f".{name}()")
            if any(e.does("where") for e in entries) and len(node.args) == 1 and \
                    not node.keywords and is_lazy(node.args[0]):
                return "torch.where(cond) with one argument"
            if name == "repeat_interleave" and keyword(node, "output_size") is None:
                # torch.repeat_interleave(x, repeats) / x.repeat_interleave(repeats): with the
                # counts in a tensor the output has sum(repeats) rows, read from the device
                # (``output_size=`` avoids the read)
                method = isinstance(f, nodes.Attribute) and not an.qualname(f)
                repeats = argument(node, 0 if method else 1, "repeats")
                subject = f.expr if method else (node.args[0] if node.args else None)
                if repeats is not None and subject is not None and is_lazy(subject) and \
                        is_lazy(repeats):
                    return "repeat_interleave with the repeat counts in a tensor"
            if name == "one_hot" and an.qualname(f) == "torch.nn.functional.one_hot" and \
                    node.args and is_lazy(node.args[0]):
                # ``F.one_hot(target)``: without ``num_classes`` (or with -1) the width is
                # ``target.max() + 1``, read from the device (torch/nn/functional.py), a new
                # output shape whenever a batch lacks the top class
                width = argument(node, 1, "num_classes")
                if width is None or isinstance(width, nodes.UnaryOp) and width.op == "-" or \
                        isinstance(width, nodes.Const) and width.value == -1:
                    return "F.one_hot without num_classes (its width is the largest label + 1: pass num_classes)"
            if name in SIZE_ARGUMENTS:
                # torch.topk(cost, k=dynamic_ks[i]): k is read from the device, and each
                # value read is another output shape
                method = isinstance(f, nodes.Attribute) and not an.qualname(f)
                subject = f.expr if method else (node.args[0] if node.args else None)
                q = an.qualname(f) or ""
                pos_m, pos_f, kw = SIZE_ARGUMENTS[name]
                size = argument(node, pos_m if method else pos_f, kw)
                if size is not None and subject is not None and \
                        (q.startswith("torch.") or (method and is_lazy(subject))) and \
                        is_lazy(subject):
                    if is_lazy(size):
                        return f"{name} with k read from a tensor"
                    if in_step and self._read_per_step(size, ctx):
                        # ``k = counts[i]`` of ``counts = lazy.cpu().tolist()`` in the step:
                        # each step's data gives another k, so another output shape
                        return f"{name} with k read from the device"
            q = an.qualname(f) or ""
            sizes = factory_shape(q, node) if in_step and name in SIZED_FACTORY_NAMES \
                else None
            made_on = keyword(node, "device") if sizes else None
            # ``torch.randint(0, n, (n_pos * k,), device=device)`` with ``n_pos`` read in the
            # step: each step's count is another output shape (made on the device, or one
            # that may be it: a CPU tensor's shapes compile nothing, ``hist =
            # torch.zeros(n_cls)`` for a host-side log)
            if sizes and made_on is not None and \
                    device_value(an.ev, made_on, ctx, 0)[1] not in ("cpu", "cuda") and any(
                        not isinstance(x, nodes.Const) and (
                            self._reads_inline(x, ctx) or self._read_per_step(x, ctx))
                        for x in sizes):
                return f"{q}() sized by a value read from the device"
            if in_step and name == "split":
                # ``torch.split(hidden, lengths.tolist())``: pieces as long as the sizes
                # read in this step, new shapes whenever they change
                method = isinstance(f, nodes.Attribute) and not an.qualname(f)
                subject = f.expr if method else (node.args[0] if node.args else None)
                sizes_arg = argument(node, 0 if method else 1, "split_size_or_sections")
                if (q == "torch.split" or method) and subject is not None and \
                        sizes_arg is not None and not isinstance(sizes_arg, nodes.Const) and \
                        any(v.kind is Kind.TENSOR for v in an.value(subject, ctx)) and \
                        is_lazy(subject) and (self._reads_inline(sizes_arg, ctx) or
                                              self._read_per_step(sizes_arg, ctx)):
                    return "split by sizes read from the device"
            if any(e.does("cpu_lengths") for e in entries):
                lengths = argument(node, 1, "lengths")
                if lengths is not None and is_lazy(lengths):
                    return "pack_padded_sequence with lengths on the XLA device"
                data = argument(node, 0, "input")
                if lengths is not None and data is not None and is_lazy(data) and any(
                        v.kind is Kind.TENSOR for v in an.value(lengths, ctx)):
                    # (lengths moved to the CPU first: the packed data of a tensor on the
                    # device still has sum(lengths) rows, another shape per batch; a list
                    # of the padded length for every row packs nothing away)
                    return "pack_padded_sequence of a tensor on the XLA device"
            return None
        if isinstance(node, nodes.Subscript):
            index = node.slice
            if isinstance(index, (nodes.Const, nodes.Slice)) and _static_slice(index):
                return None  # syntax first: constant indices and slices
            masking = "boolean-mask assignment" if isinstance(node.parent, nodes.Assign) and \
                node in node.parent.targets else "boolean-mask indexing"
            whole = an.value(index, ctx)
            if not is_lazy(node.value):
                base = an.value(node.value, ctx)
                if base and all(v.kind is Kind.TENSOR and v.device in (None, V.ANY_DEVICE)
                                for v in base) and _bool_mask(whole, True) and lazy(whole) and \
                        all(v.device == "xla" for v in whole if v.kind is Kind.TENSOR):
                    # ``bbox_preds.view(-1, 4)[fg_masks]``: a tensor of unknown device
                    # indexed by a mask on the XLA device is on that device (indexing
                    # takes both on one device)
                    return masking
                # ``cond[:, :, lead:]`` with ``lead`` a lazy tensor, on an argument whose
                # value is not known: indexing by several dimensions is an array's, and
                # the bound is read from the device to shape the result either way
                if isinstance(index, nodes.Tuple) and not V.is_known(base) \
                        and _slice_bound(index.elts, is_lazy):
                    return "slicing by a tensor value"
                return None
            # ``x[:, mask]``, ``cost[mask, :]``: a mask in one dimension selects as many
            # entries as it holds True values, as a whole-index mask does (a dimension's
            # mask counts by its dtype, not by its name)
            if (_bool_mask(whole, True) or _named_mask(index)) and lazy(whole) or \
                    isinstance(index, nodes.Tuple) and any(
                        not isinstance(part, (nodes.Slice, nodes.Const)) and
                        _bool_mask(vs := an.value(part, ctx), True) and lazy(vs)
                        for part in index.elts):
                return masking
            parts = index.elts if isinstance(index, nodes.Tuple) else [index]
            if in_step and _on_xla(an.value(node.value, ctx)) and any(
                    self._host_mask_per_step(part, ctx) for part in parts):
                # ``labels[~masked] = -1`` with ``masked = torch.bernoulli(p).bool()`` made
                # on the CPU in the step: torch turns the mask into indices on the host,
                # as many as it holds True values, so each step's mask is another shape
                # (only of a tensor known to be on the device: in a step, one of unknown
                # device may be the CPU batch the mask was made for)
                return HOST_MASK + masking
            if _slice_bound(parts, is_lazy):
                return "slicing by a tensor value"
            if in_step and _slice_bound(parts, lambda b: self._read_per_step(b, ctx)):
                return READ_SLICE
        return None

    def _read_per_step(self, bound: nodes.NodeNG, ctx: Ctx | None) -> bool:
        """A slice bound computed from a value read from the device's data (``n =
        lengths[i].item()``, a ``.cpu()`` copy of a lazy tensor), read in the step
        itself: each step's data gives the slice another shape. A value read once before
        the loop gives every step the same shape, so a bound whose read happens outside
        the step region is not one."""
        an = self.an
        if not any(v.has("read") for v in an.value(bound, ctx)):
            return False
        return self._read_here(bound, ctx, enclosing_loop(bound, an.steps.is_step_loop))

    def _read_here(self, expr: nodes.NodeNG, ctx: Ctx | None, loop: nodes.NodeNG | None,
                   depth: int = 0) -> bool:
        """Some name in ``expr`` holding a read value is bound in the step region, in
        every iteration of ``loop``. A ``for`` target counts by its iterable: the items of
        a list read once before the loop (``for k in counts:``) are the same every step."""
        an = self.an
        region = self._region_ids()
        names = [expr] if isinstance(expr, nodes.Name) else list(
            nodes_of(expr, nodes.Name))
        for name in names:
            if not _holds_read(an.value(name, ctx)):
                continue
            binds = an.ev.bindings(name)
            if binds and depth < 3 and self._passed_per_step(name, binds, ctx, depth):
                return True
            if not binds or not all(id(b) in region and _runs_per_iteration(b, loop, expr)
                                    for b in binds):
                continue
            holders = [_loop_of_target(b) for b in binds]
            if all(h is None for h in holders):
                return True  # one number read in every step is enough (``n + keep``)
            # the items of an iterable read once per step loop: its own reads decide,
            # against the step loop around the ``for`` (not the ``for`` itself)
            if depth < 3 and all(
                    h is None or self._reads_inline(h.iter, ctx) or self._read_here(
                        h.iter, ctx, enclosing_loop(h, an.steps.is_step_loop), depth + 1)
                    for h in holders):
                return True
        return False

    def _reads_inline(self, expr: nodes.NodeNG, ctx: Ctx | None) -> bool:
        """``expr`` (the iterable of a ``for`` that runs in every step) reads the device
        itself: a call in it gives a read value from an operand that holds none
        (``enumerate(mel_lens.tolist())``), so its items are read anew each time the
        ``for`` starts."""
        an = self.an
        for call in nodes_of(expr, nodes.Call):
            if not _holds_read(an.value(call, ctx)):
                continue
            f = call.func
            operands = [f.expr] if isinstance(f, nodes.Attribute) else list(call.args)
            if operands and not any(_holds_read(an.value(o, ctx)) for o in operands):
                return True
        return False

    def _passed_per_step(self, name: nodes.Name, binds: list[nodes.NodeNG],
                         ctx: Ctx | None, depth: int = 0) -> bool:
        """``name`` is a parameter of the helper that ``ctx`` follows from a call of the
        step region (``pick_top(scores, k)``), and the argument that call passes for it
        is read from the device in every step (``k = int(lengths.max().item())`` in the
        loop): the helper's size then changes per step as the caller's would."""
        an = self.an
        func = ctx.func if ctx is not None else None
        if func is None or not all(is_param_of(b, func) for b in binds):
            return False
        site = an.steps.ctx_calls.get(ctx)
        if site is None:
            return False
        call, caller_ctx = site
        bound = next((b for c, b in an.ev.call_sites(func) if c is call), None)
        if bound is None:
            return False
        arg = an.ev.site_argument(func, call, name.name, bound)
        return isinstance(arg, nodes.NodeNG) and self._read_here(
            arg, caller_ctx, enclosing_loop(call, an.steps.is_step_loop), depth + 1)

    def _host_mask_per_step(self, part: nodes.NodeNG, ctx: Ctx | None) -> bool:
        """``part`` of an index is a boolean tensor on the CPU made anew in every step: a
        comparison or random draw computed inline, or names all of whose bindings are in
        the step region (a mask made once before the loop has one shape for every step)."""
        if isinstance(part, (nodes.Slice, nodes.Const)):
            return False
        vs = self.an.value(part, ctx)
        if not vs or not all(v.kind is Kind.TENSOR and v.device == "cpu" and v.has("bool")
                             for v in vs):
            return False
        region = self._region_ids()
        names = [part] if isinstance(part, nodes.Name) else list(
            nodes_of(part, nodes.Name))
        for name in names:
            binds = self.an.ev.bindings(name)
            if any(isinstance(b, nodes.AssignName) for b in binds) and \
                    not all(id(b) in region for b in binds):
                return False
        return True

    def _region_ids(self) -> set[int]:
        found = getattr(self, "_region_set", None)
        if found is None:
            found = self._region_set = {id(n) for n, _, _ in self.an.steps.step_region()}
        return found
