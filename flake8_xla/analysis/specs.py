"""Turn an API model entry's return spec into an abstract value at one call.

The specs are listed in the header of ``flake8_xla/data/api_model.toml``; each is read
here, at the call, with the values of the call's arguments and of its receiver.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from astroid import nodes

from flake8_xla.analysis import values as V
from flake8_xla.analysis.apimodel import Entry
from flake8_xla.analysis.names import (
    argument,
    callee_name,
    const_str,
    has_star_kwargs,
    is_none,
    keyword,
    words_of,
)
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.analysis.values import EMPTY, UNKNOWN_SET, Kind, Value, join, one

if TYPE_CHECKING:
    from flake8_xla.analysis.flows import Ctx, Evaluator


def device_value(ev: Evaluator, node: nodes.NodeNG | None, ctx: Ctx | None, d: int
                 ) -> tuple[bool, str | None]:
    """(is it a device?, which) for an expression used as a device argument.

    A string such as ``'xla:0'`` or ``'cuda'``, a DEVICE value, or a tensor's ``.device``.
    A dtype (``torch.float16``) or an unknown value is not a device.
    """
    if node is None:
        return False, None
    vs = ev.value(node, ctx, d)
    found: set[str | None] = set()
    is_device = False
    for v in vs:
        if v.kind is Kind.DEVICE:
            is_device = True
            found.add(v.device)
        elif v.kind is Kind.HOST and v.qual == "str":
            dev = V.device_of_text(v.text)
            if dev is not None or v.text is None:
                is_device = True
                found.add(dev)
        elif v.kind is Kind.REF and (v.qual or "").startswith("torch.") and \
                (v.qual or "").rsplit(".", 1)[-1] in ("float16", "bfloat16", "float32", "float",
                                                       "half", "long", "int64", "int32", "bool",
                                                       "float64", "double", "int", "uint8"):
            return False, None
        elif v.kind is Kind.TENSOR:
            return True, v.device  # x.to(other_tensor)
        elif v.kind is Kind.UNKNOWN:
            is_device = True  # most likely a device parameter: on no known device
            found.add(None)
    if not is_device:
        return False, None
    if len(found) == 1:
        return True, found.pop()
    if "xla" in found and found <= {"xla", None}:
        return True, "xla"
    return True, None


def _device_map(ev: Evaluator, call: nodes.Call, ctx: Ctx | None, d: int) -> str | None:
    """The device of a model that ``from_pretrained(..., device_map={"": device})`` (or
    ``device_map=device``) loads whole onto one device, else :data:`~V.ANY_DEVICE`."""
    dmap = keyword(call, "device_map")
    if isinstance(dmap, nodes.Dict) and len(dmap.items) == 1 and isinstance(
            dmap.items[0][0], nodes.Const) and dmap.items[0][0].value == "":
        dmap = dmap.items[0][1]
    elif isinstance(dmap, nodes.Const) and dmap.value == "auto":
        return V.ANY_DEVICE
    if dmap is None:
        return V.ANY_DEVICE
    is_device, device = device_value(ev, dmap, ctx, d)
    return device if is_device and device in ("xla", "cpu", "cuda") else V.ANY_DEVICE


def _arg_value(ev: Evaluator, call: nodes.Call, index: int, ctx: Ctx | None, d: int
               ) -> frozenset[Value]:
    node = argument(call, index)
    return ev.value(node, ctx, d) if node is not None else UNKNOWN_SET


def _moved(ev: Evaluator, base: frozenset[Value], call: nodes.Call, ctx: Ctx | None, d: int
           ) -> frozenset[Value]:
    """``x.to(...)``: moved to the device argument, else unchanged (a dtype cast)."""
    dev_node = keyword(call, "device")
    if dev_node is None and call.args:
        dev_node = call.args[0]
    is_dev, dev = device_value(ev, dev_node, ctx, d)
    if not is_dev:
        return base
    return V.move_device(base, dev)


def _false_for_some(ev: Evaluator, node: nodes.NodeNG | None, ctx: Ctx | None, d: int
                    ) -> bool:
    """``node`` is a string (in)equality whose sides hold known strings only, and some of
    them make it False: ``drop_last=(x == "train")`` in ``{x: DataLoader(...) for x in
    ["train", "val"]}``, whose "val" loader keeps its short last batch."""
    if not isinstance(node, nodes.Compare) or len(node.ops) != 1 or \
            node.ops[0][0] not in ("==", "!="):
        return False
    sides = [V.known_strings(ev.value(side, ctx, d)) for side in (node.left, node.ops[0][1])]
    if sides[0] is None or sides[1] is None:
        return False
    equal = node.ops[0][0] == "=="
    return any((a == b) != equal for a in sides[0] for b in sides[1])


def _loader(ev: Evaluator, q: str | None, call: nodes.Call, ctx: Ctx | None, d: int
            ) -> frozenset[Value]:
    flags = {"plain"}
    sampler_count: str | None = None
    # ``DataLoader(ds, **loader_kwargs)`` with a dict of known keys: its entries are the
    # call's keywords (a key it may hold, from a later ``kwargs["k"] = v``, included)
    star = _star_keywords(ev, call, ctx, d) if has_star_kwargs(call) else {}
    if star is None:
        flags.add("drop_last_unknown")
        star = {}

    def given(name: str) -> frozenset[Value] | None:
        node = keyword(call, name)
        if node is not None:
            return ev.value(node, ctx, d)
        return star.get(name)

    dv = given("drop_last")
    if dv is not None:
        drop = V.known_bool(dv)
        if drop is True:
            flags.add("drop_last")
        elif drop is None and not _false_for_some(ev, keyword(call, "drop_last"), ctx, d):
            flags.add("drop_last_unknown")
            flags.add("drop_last_flag")  # drop_last=args.drop_last: a setting of the run
    batch_sampler = keyword(call, "batch_sampler") is not None or "batch_sampler" in star
    if batch_sampler:
        flags.add("drop_last_unknown")
    sv = given("sampler")
    if sv and all(v.kind is Kind.HOST and v.qual == "none" for v in sv):
        sv = None  # ``sampler=None``: the default, every sample once in order
    if sv is not None and sv and all(v.kind is Kind.SAMPLER and v.qual in UNSHARDED_SAMPLERS
                                     for v in sv):
        # torch's own RandomSampler/SequentialSampler draw from the whole dataset: under
        # several replicas each one reads all of it (no DistributedSampler)
        flags.add("unsharded_sampler")
    if sv is not None:
        if any(v.kind is Kind.SAMPLER and v.has("distributed") for v in sv):
            flags.add("distributed")
        elif not V.is_known(sv) or any(v.kind is not Kind.SAMPLER for v in sv):
            flags.add("sampler_unknown")
        elif all(isinstance(v.node, nodes.ClassDef) and _endless_sampler(ev, v.node)
                 for v in sv):
            # a project sampler whose ``__iter__`` draws indices in a ``while True:`` loop
            # (detectron2's TrainingSampler, StyleGAN's InfiniteSampler): no pass ends
            flags.add("endless")
        else:
            counts = {_sample_count(v.node) for v in sv}
            loaded = argument(call, 0, "dataset")
            if counts == {None} and loaded is not None and all(
                    v.qual in UNSHARDED_SAMPLERS and isinstance(v.node, nodes.Call) and
                    (source := argument(v.node, 0, "data_source")) is not None and
                    source.as_string() == loaded.as_string() for v in sv):
                # ``RandomSampler(train_set)`` for ``DataLoader(train_set, sampler=...)``:
                # every sample of the dataset once per epoch, as without a sampler
                pass
            elif len(counts) == 1 and None not in counts:
                count = counts.pop()
                # ``RandomSampler(ds, num_samples=N)``: N samples, whatever the dataset's size
                # (at 10**8 or more the final batch is never reached in practice).
                flags.add("endless" if count >= 10 ** 8 else "counted")
                sampler_count = str(count)
            else:
                flags.add("sampler")
    elif batch_sampler:
        flags.add("sampler_unknown")
    shuffle = keyword(call, "shuffle")
    if shuffle is not None and not (isinstance(shuffle, nodes.Const) and shuffle.value is False):
        flags.add("shuffle")
    dataset = argument(call, 0, "dataset")
    ds = ev.value(dataset, ctx, d) if dataset is not None else UNKNOWN_SET
    # (``self.train_ds = None`` in ``__init__``, the dataset in ``setup()``)
    ds = frozenset(v for v in ds if not (v.kind is Kind.HOST and v.qual == "none")) or ds
    if dataset is not None and _python_iterator(ev, dataset):
        flags.add("iterable")  # ``DataLoader(map(tokenize, rows), ...)``: no length known
    if any(v.kind is Kind.DATASET and v.has("iterable") for v in ds):
        flags.add("iterable")
        if all(v.kind is Kind.DATASET and isinstance(v.node, nodes.ClassDef) and
               _splits_by_worker_only(ev, v.node) for v in ds):
            flags.add("worker_split")
        if all(v.kind is Kind.DATASET and v.has("stream") for v in ds):
            flags.add("stream")  # a streaming HF dataset, not split by rank
        elif all(v.kind is Kind.DATASET and (v.has("stream") or v.has("whole")) for v in ds):
            flags.add("whole")  # an HF dataset that may be a stream, not split either
    if ds and all(v.kind is Kind.DATASET and v.has("sharded") for v in ds):
        flags.add("distributed")  # this replica's part of the dataset
    batch = argument(call, 1, "batch_size")
    if batch is not None and sv is not None and any(
            v.kind is Kind.SAMPLER and _counts_batches_of(v.node, batch) for v in sv):
        flags.add("whole_batches")  # ``num_samples=cfg.eval_batches * cfg.batch_size``
    text = None
    if batch is None and "batch_size" in star:
        text = V.single_text(star["batch_size"])
    elif batch is None:
        if not batch_sampler:
            text = "1"
    elif is_none(batch):
        flags.add("unbatched")  # batch_size=None: each item is a batch the dataset made
        if dataset is not None and _partial_wds_batches(ev, dataset):
            flags.add("partial_batches")
    elif isinstance(batch, nodes.Call) and isinstance(batch.func, nodes.Name) and \
            batch.func.name == "len" and batch.args and dataset is not None and \
            batch.args[0].as_string() == dataset.as_string():
        flags.add("unbatched")  # batch_size=len(ds): the whole dataset in one batch
    else:
        text = V.single_text(ev.value(batch, ctx, d))
        if text is None and _is_one(option_default(ev, batch, ctx, d)):
            # ``batch_size=args.batch_size`` with ``default=1``: one sample per batch in
            # the default run (a larger default may or may not divide the dataset in the
            # run that sets it, so it stays unknown)
            text = "1"
    # the sizes of the datasets it may load: known (text), or known as a multiple (the
    # ``mult:`` factors of a dataset cut to whole batches), else unknown (None)
    sizes: set[tuple[str | None, frozenset[str]]] = set()
    unknown = False
    for v in ds:
        mult = frozenset(f for f in v.flags if f.startswith(MULT)) \
            if v.kind is Kind.DATASET else frozenset()
        if v.kind is Kind.DATASET and (v.text or mult):
            sizes.add((v.text, frozenset() if v.text else mult))
        else:
            unknown = True
    if sizes and unknown:
        sizes.add((None, frozenset()))  # (another dataset it may load, of a size not known)
    if sampler_count is not None:
        sizes = {(sampler_count, frozenset())}
    return one(Kind.LOADER, node=call, qual=q or "torch.utils.data.DataLoader",
               text=text, flags=frozenset(flags), elem=_collated(ev, call, ctx, d),
               bound=frozenset({Value(Kind.HOST, text=t, flags=f) for t, f in sizes})
               if sizes else None)


def _is_one(x: object) -> bool:
    return type(x) is int and x == 1


def option_default(ev: Evaluator, node: nodes.NodeNG, ctx: Ctx | None, d: int) -> object:
    """The literal ``default=`` of the command-line option that ``node`` reads
    (``args.batch_size``, where ``args = parser.parse_args()`` and the module calls
    ``parser.add_argument("--batch_size", type=int, default=1)``; False for a
    ``store_true`` flag and True for a ``store_false`` one without it), else None: no such
    option, several, or a default that is not a literal (argparse's own rules for the
    attribute name: ``dest=``, else the first long option with ``-`` as ``_``)."""
    if not isinstance(node, nodes.Attribute):
        return None
    vs = ev.value(node.expr, ctx, d)
    if not vs or not all(v.kind is Kind.HOST and v.qual == "namespace" and
                         isinstance(v.node, nodes.Call) for v in vs):
        return None
    parsers = set()
    homes = {id(v.node.root()): v.node.root() for v in vs}
    for v in vs:
        f = v.node.func
        if not (isinstance(f, nodes.Attribute) and f.attrname in ("parse_args",
                                                                  "parse_known_args")):
            return None
        parsers.add(f.expr.as_string())
    if len(homes) != 1:
        return None
    home = next(iter(homes.values()))
    calls = ev.module_nodes(nodes.Call) if home is ev.module else \
        list(nodes_of(home, nodes.Call))  # the parser of another module
    for call in calls:
        # ``group = parser.add_argument_group("debug")``: its options are the parser's
        f = call.func
        if isinstance(f, nodes.Attribute) and f.attrname in (
                "add_argument_group", "add_mutually_exclusive_group") and \
                f.expr.as_string() in parsers and isinstance(call.parent, nodes.Assign):
            parsers.update(t.as_string() for t in call.parent.targets)
    overrides: list[object] = []
    for call in calls:
        # ``parser.set_defaults(debug=False)``: parser-level defaults win over the options'
        f = call.func
        if isinstance(f, nodes.Attribute) and f.attrname == "set_defaults" and \
                f.expr.as_string() in parsers:
            value = keyword(call, node.attrname)
            if value is not None:
                if not isinstance(value, nodes.Const):
                    return None
                overrides.append(value.value)
    if overrides:
        return overrides[-1]
    found: list[object] = []
    for call in calls:
        f = call.func
        if not (isinstance(f, nodes.Attribute) and f.attrname == "add_argument" and
                f.expr.as_string() in parsers):
            continue
        dest = const_str(keyword(call, "dest"))
        if dest is None:
            flags = [const_str(a) for a in call.args]
            longs = [x for x in flags if x and x.startswith("--")]
            name = longs[0] if longs else (flags[0] if flags and flags[0] else None)
            dest = name.lstrip("-").replace("-", "_") if name else None
        if dest != node.attrname:
            continue
        default = keyword(call, "default")
        action = const_str(keyword(call, "action"))
        if default is None and action in ("store_true", "store_false"):
            found.append(action == "store_false")  # argparse's default for the flag
            continue
        if not isinstance(default, nodes.Const):
            return None
        found.append(default.value)
    return found[0] if len(found) == 1 else None


def _star_keywords(ev: Evaluator, call: nodes.Call, ctx: Ctx | None, d: int
                   ) -> dict[str, frozenset[Value]] | None:
    """The keywords that the call's ``**name`` dicts pass, each key with the join of its
    values (``COMMON = dict(num_workers=4, pin_memory=True)``, ``kw = {"batch_size": 8}``);
    None when one of them is not a dict whose keys are all known."""
    out: dict[str, frozenset[Value]] = {}
    for k in call.keywords or ():
        if k.arg is not None:
            continue
        vs = ev.value(k.value, ctx, d)
        if not vs or not all(v.kind is Kind.DICT and v.items is not None and v.elem is None
                             for v in vs):
            return None
        for v in vs:
            for key, value in v.items or ():
                out[key] = join(out.get(key, EMPTY), value)
    return out


def _collated(ev: Evaluator, call: nodes.Call, ctx: Ctx | None, d: int
              ) -> frozenset[Value] | None:
    """The batch a ``DataLoader(collate_fn=fn)`` yields when ``fn`` is a function of the
    code (or an instance of its class with ``__call__``) and every value it returns is a
    tuple, list or dict of known parts (``return torch.stack(imgs), labels`` with
    ``labels`` a list of Python ints); else None (a batch of unknown structure)."""
    collate = keyword(call, "collate_fn")
    if collate is None:
        return None
    funcs = ev.value(collate, ctx, d)
    parts: list[frozenset[Value]] = []
    for v in funcs:
        if v.kind is Kind.FUNCTION and v.node is not None:
            parts.append(ev.returns(v.node, None, d))
            continue
        # an instance of a class of the code whose ``__call__`` collates (``Collater()``)
        method = ev.method_of(v.node, "__call__") if v.kind is Kind.OBJECT and \
            isinstance(v.node, nodes.ClassDef) else None
        if method is None:
            return None
        parts.append(ev.returns(method, ev.bind_self(method, v, None), d))
    if not parts:
        return None
    batch = join(*parts)
    if not batch or not all(
            (v.kind in (Kind.TUPLE, Kind.LIST) and v.elts is not None and all(
                V.is_known(e) for e in v.elts)) or
            (v.kind is Kind.DICT and v.items is not None and v.elem is None)
            for v in batch):
        return None
    return batch


def _partial_wds_batches(ev: Evaluator, node: nodes.NodeNG, depth: int = 0) -> bool:
    """``ds.batched(bs)`` of a webdataset pipeline (see :func:`partial_batching_call`)."""
    return partial_batching_call(ev, node, depth) is not None


def partial_batching_call(ev: Evaluator, node: nodes.NodeNG, depth: int = 0
                          ) -> nodes.Call | None:
    """The ``ds.batched(bs)`` of a webdataset pipeline (``wds.WebDataset(urls).shuffle(...)``)
    that ``node`` is, or the ``wds.batched(bs)`` stage of a ``wds.DataPipeline(...)``: its
    ``partial=True`` default yields each worker's short final batch (webdataset
    ``filters.py`` ``batched``); ``partial=False`` drops it. Followed through names
    assigned once and through the returns of a project function that builds the pipeline
    (``make_train_pipeline(urls, bs)``, in this module or another). None when there is no
    such stage."""
    node = _through_names(ev, node)
    if not isinstance(node, nodes.Call):
        return None
    if (ev.qualname(node.func) or "").startswith("webdataset."):
        # ``wds.DataPipeline(wds.SimpleShardList(urls), ..., wds.batched(bs))``
        return next((arg for arg in node.args if isinstance(arg, nodes.Call) and
                     _keeps_partial(arg) and ev.qualname(arg.func) in WDS_BATCHED), None)
    if not (isinstance(node.func, nodes.Attribute) and node.func.attrname == "batched"):
        if depth >= 2:
            return None
        return next((found for home, ret in _returns_of_called(ev, node)
                     if ret.value is not None and
                     (found := partial_batching_call(home, ret.value, depth + 1)) is not None),
                    None)
    if not _keeps_partial(node):
        return None
    cur: nodes.NodeNG = node.func.expr
    for _ in range(12):
        if isinstance(cur, nodes.Call):
            if (ev.qualname(cur.func) or "").startswith("webdataset."):
                return node
            cur = cur.func
        elif isinstance(cur, nodes.Attribute):
            cur = cur.expr
        elif isinstance(cur, nodes.Name) and (value := _assigned_value(ev, cur)) is not None:
            cur = value
        else:
            return None
    return None


#: builtins and itertools functions that return a one-pass iterator (no ``len``)
PY_ITERATORS = frozenset({"map", "filter", "zip", "iter", "reversed", "enumerate",
                          "itertools.chain", "itertools.islice", "itertools.cycle",
                          "itertools.repeat", "itertools.starmap"})


def _python_iterator(ev: Evaluator, node: nodes.NodeNG) -> bool:
    """``node`` (or what its only assignment binds) is a generator expression or a call of
    a builtin that returns an iterator (``map(fn, rows)``): a stream of unknown length
    rather than a dataset, whose loader has no known last batch."""
    node = _through_names(ev, node)
    if isinstance(node, nodes.GeneratorExp):
        return True
    return isinstance(node, nodes.Call) and ev.qualname(node.func) in PY_ITERATORS


#: webdataset's batching stage of a ``DataPipeline`` (``wds.batched(bs)``)
WDS_BATCHED = frozenset({"webdataset.batched", "webdataset.filters.batched"})


def _keeps_partial(call: nodes.Call) -> bool:
    """A webdataset ``batched(...)`` call that keeps its ``partial=True`` default."""
    flag = keyword(call, "partial")
    return flag is None or (isinstance(flag, nodes.Const) and flag.value is True)


def _returns_of_called(ev: Evaluator, call: nodes.Call
                       ) -> list[tuple[Evaluator, nodes.Return]]:
    """The return statements of the project functions ``call`` runs, each with the
    Evaluator of its module (empty when none is known)."""
    found: list[tuple[Evaluator, nodes.Return]] = []
    try:
        for func, _ in ev.functions_called(call, None):
            home = ev.home_of(func)
            if home is not None and isinstance(func, nodes.FunctionDef):
                found.extend((home, ret) for ret in home.own_nodes(func, nodes.Return))
    except Exception:  # noqa: BLE001 - unknown: nothing followed
        return []
    return found


def _through_names(ev: Evaluator, node: nodes.NodeNG | None) -> nodes.NodeNG | None:
    """``node``, or the expression that a chain of up to three names assigned once binds
    (``ds = make(...)``, ``loader_ds = ds``: the call), else None."""
    for _ in range(3):
        if isinstance(node, nodes.Name):
            node = _assigned_value(ev, node)
    return node


def _assigned_value(ev: Evaluator, name: nodes.Name) -> nodes.NodeNG | None:
    """The expression assigned to ``name`` when its only binding is ``name = <expr>``
    (``idx = range(96)``), else None."""
    binds = ev.bindings(name)
    if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName) or \
            not isinstance(binds[0].parent, nodes.Assign):
        return None
    return binds[0].parent.value


#: torch's samplers that draw from the whole dataset in every process.
UNSHARDED_SAMPLERS = frozenset({"torch.utils.data.RandomSampler",
                                "torch.utils.data.SequentialSampler"})


def _counts_batches_of(node: nodes.NodeNG | None, batch: nodes.NodeNG) -> bool:
    """The sampler constructor call ``node`` draws ``num_samples=`` a product with the
    loader's own batch-size expression ``batch`` as a factor (``n_batches * batch_size``):
    every batch it yields is whole, whatever the sizes are."""
    n = _num_samples(node)
    factors: list[nodes.NodeNG] = []
    todo = [n] if n is not None else []
    while todo:
        cur = todo.pop()
        if isinstance(cur, nodes.BinOp) and cur.op == "*":
            todo += [cur.left, cur.right]
        else:
            factors.append(cur)
    shown = batch.as_string()
    return len(factors) > 1 and any(f.as_string() == shown for f in factors)


#: Where torch's samplers take ``num_samples`` by position:
#: ``WeightedRandomSampler(weights, num_samples, replacement=True)``,
#: ``RandomSampler(data_source, replacement=False, num_samples=None)``.
_NUM_SAMPLES_AT = {"WeightedRandomSampler": 1, "RandomSampler": 2}


def _num_samples(node: nodes.NodeNG | None) -> nodes.NodeNG | None:
    """The ``num_samples`` argument of a sampler constructor call, by keyword or by
    position, else None."""
    if not isinstance(node, nodes.Call):
        return None
    n = keyword(node, "num_samples")
    at = _NUM_SAMPLES_AT.get(callee_name(node.func) or "")
    if n is None and at is not None and len(node.args) > at and \
            not any(isinstance(a, nodes.Starred) for a in node.args[:at + 1]):
        n = node.args[at]
    return n


def _endless_sampler(ev: Evaluator, klass: nodes.ClassDef) -> bool:
    """A sampler class whose ``__iter__`` never ends (syntax only, see
    :func:`_endless_function`): it, a generator nested in it, or a method of the class it
    hands on whole, runs an endless loop of its own."""
    method = ev.method_of(klass, "__iter__")
    if not isinstance(method, nodes.FunctionDef):
        return False
    return _endless_function(ev, klass, method, 0) or any(
        _endless_function(ev, klass, f, 1) for f in nodes_of(method, nodes.FunctionDef)
        if f is not method)


def _endless_function(ev: Evaluator, klass: nodes.ClassDef, func: nodes.FunctionDef,
                      depth: int) -> bool:
    """``func`` (a method of ``klass`` or a generator in one) never stops yielding: among
    its own statements (not in a branch, unless every arm is) there is a ``while True:``
    or a ``for`` over ``itertools.count()`` that yields and that no ``break`` or
    ``return`` of its own leaves, or it hands on whole (``yield from``/``return``, also
    through ``islice(it, start, None, step)``) what such a method of the class gives,
    called there or stored on ``self`` by ``__init__`` (mmengine's InfiniteSampler:
    ``self.indices = self._indices_of_rank()``), three methods deep at most."""
    if depth > 3:
        return False

    def endless_call(call: nodes.NodeNG) -> bool:
        f = call.func if isinstance(call, nodes.Call) else None
        if not (isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and
                f.expr.name == "self"):
            return False
        other = ev.method_of(klass, f.attrname)
        return isinstance(other, nodes.FunctionDef) and other is not func and \
            _endless_function(ev, klass, other, depth + 1)

    def handed_on(stmt: nodes.NodeNG) -> bool:
        value = stmt.value if isinstance(stmt, (nodes.Expr, nodes.Return)) else None
        if isinstance(value, nodes.YieldFrom):
            value = value.value
        elif not isinstance(stmt, nodes.Return):
            return False
        if value is None:
            return False
        if isinstance(value, nodes.Call) and _islice_tail(value, ev):
            value = value.args[0]
        if isinstance(value, nodes.Call):
            return endless_call(value)
        if isinstance(value, nodes.Attribute) and isinstance(value.expr, nodes.Name) and \
                value.expr.name == "self":
            init = ev.method_of(klass, "__init__")
            stores = [n.parent for n in (nodes_of(init, nodes.AssignAttr)
                                         if isinstance(init, nodes.FunctionDef) else ())
                      if n.attrname == value.attrname and isinstance(n.expr, nodes.Name) and
                      n.expr.name == "self"]
            return bool(stores) and all(
                isinstance(st, nodes.Assign) and isinstance(st.value, nodes.Call) and
                endless_call(st.value.args[0] if _islice_tail(st.value, ev) else st.value)
                for st in stores)
        return False

    def block(body: list[nodes.NodeNG], level: int) -> bool:
        for stmt in body:
            if isinstance(stmt, (nodes.While, nodes.For)) and _endless_loop(stmt, ev):
                return True
            if handed_on(stmt):
                return True
            if isinstance(stmt, nodes.If) and stmt.orelse and level < 4 and \
                    block(stmt.body, level + 1) and block(stmt.orelse, level + 1):
                return True
        return False

    return block(func.body, 0)


def _islice_tail(call: nodes.Call, ev: Evaluator) -> bool:
    """``itertools.islice(it, start, None, step)``: every item of ``it`` from ``start``
    on (no stop); ``islice(it, n)`` takes only ``n`` of them."""
    return bool(call.args) and (ev.qualname(call.func) or "") == "itertools.islice" and \
        len(call.args) >= 3 and isinstance(call.args[2], nodes.Const) and \
        call.args[2].value is None


def _endless_loop(loop: nodes.While | nodes.For, ev: Evaluator) -> bool:
    """``while True:`` (``while 1:``, or ``for i in itertools.count():``) that yields and
    that no ``break`` or ``return`` of its own ends (a ``break`` of an inner loop ends
    only that loop)."""
    if isinstance(loop, nodes.While):
        if not (isinstance(loop.test, nodes.Const) and loop.test.value in (True, 1)):
            return False
    elif not (isinstance(loop.iter, nodes.Call) and
              (ev.qualname(loop.iter.func) or "") == "itertools.count"):
        return False
    if loop.orelse:
        return False
    scopes = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)
    yields = False
    stack: list[nodes.NodeNG] = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, scopes):
            continue
        if isinstance(node, nodes.Return):
            return False
        if isinstance(node, nodes.Break):
            return False
        if isinstance(node, (nodes.Yield, nodes.YieldFrom)):
            yields = True
        if isinstance(node, (nodes.For, nodes.While)):
            # (an inner loop's breaks end that loop only; a return in it ends the sampler)
            inner = list(nodes_of(node, (nodes.Return, nodes.Yield, nodes.YieldFrom),
                                             skip_klass=scopes))
            if any(isinstance(n, nodes.Return) for n in inner):
                return False
            yields = yields or bool(inner)
            continue
        stack.extend(node.get_children())
    return yields


def _sample_count(node: nodes.NodeNG | None) -> int | None:
    """The constant ``num_samples=`` of a sampler constructor call, else None."""
    n = _num_samples(node)
    if isinstance(n, nodes.Call) and isinstance(n.func, nodes.Name) and n.func.name == "int" \
            and len(n.args) == 1:
        n = n.args[0]
    if isinstance(n, nodes.BinOp) and n.op in ("**", "*") and isinstance(n.left, nodes.Const) \
            and isinstance(n.right, nodes.Const):
        try:
            value = n.left.value ** n.right.value if n.op == "**" else n.left.value * n.right.value
        except TypeError:
            return None
        return int(value) if isinstance(value, (int, float)) else None
    if isinstance(n, nodes.Const) and isinstance(n.value, (int, float)) and \
            not isinstance(n.value, bool):
        return int(n.value)
    return None


def _fractions(ev: Evaluator, lengths: nodes.NodeNG) -> list[float] | None:
    """The fractions ``random_split`` is given, when they are written as numbers the
    module folds (``[0.9, 0.1]``, ``SPLIT = (0.9, 0.1)``, ``[1 - val_frac, val_frac]``
    with ``val_frac = 0.2``) and one of them is not whole; else None."""
    node = _single_assigned(ev, lengths) if isinstance(lengths, nodes.Name) else lengths
    if not isinstance(node, (nodes.List, nodes.Tuple)) or not node.elts:
        return None
    values = [_fold_number(ev, e, 0) for e in node.elts]
    if any(v is None for v in values) or all(isinstance(v, int) for v in values):
        return None
    return [float(v) for v in values if v is not None]


def _single_assigned(ev: Evaluator, name: nodes.Name) -> nodes.NodeNG | None:
    """The value of the one plain assignment that binds ``name``, else None."""
    binds = ev.bindings(name)
    if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName) or \
            not isinstance(binds[0].parent, nodes.Assign) or \
            len(binds[0].parent.targets) != 1:
        return None
    return binds[0].parent.value


def _fold_number(ev: Evaluator, node: nodes.NodeNG | None, depth: int) -> int | float | None:
    """``node`` as a number, folded from literals, names bound once to one, and ``+ - *
    /`` (syntax only); None when it is anything else."""
    if node is None or depth > 4:
        return None
    if isinstance(node, nodes.Const):
        return node.value if type(node.value) in (int, float) else None
    if isinstance(node, nodes.Name):
        return _fold_number(ev, _single_assigned(ev, node), depth + 1)
    if isinstance(node, nodes.UnaryOp) and node.op == "-":
        inner = _fold_number(ev, node.operand, depth + 1)
        return -inner if inner is not None else None
    if isinstance(node, nodes.BinOp) and node.op in ("+", "-", "*", "/"):
        a = _fold_number(ev, node.left, depth + 1)
        b = _fold_number(ev, node.right, depth + 1)
        if a is None or b is None or node.op == "/" and b == 0:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else \
            a * b if node.op == "*" else a / b
    return None


def _split_fractions(fracs: list[float], full: frozenset[Value]) -> list[str | None]:
    """The lengths ``random_split`` gives for fractions (``[0.9, 0.1]``) of a dataset of a
    known size, as torch.utils.data.random_split computes them: ``floor(n * f)`` each,
    then the remainder handed out one by one from the first split on. Unknown lengths
    when the dataset's size is unknown or the fractions do not sum to 1 (random_split
    raises then)."""
    unknown: list[str | None] = [None] * len(fracs)
    texts = {v.text for v in full if v.kind is Kind.DATASET}
    if len(texts) != 1 or not V.is_known(full) or not all(
            v.kind is Kind.DATASET for v in full):
        return unknown
    n = next(iter(texts))
    if n is None or not n.isdigit() or not (
            math.isclose(sum(fracs), 1) and sum(fracs) <= 1) or any(f < 0 for f in fracs):
        return unknown
    total = int(n)
    lengths = [math.floor(total * f) for f in fracs]
    for i in range(total - sum(lengths)):
        lengths[i % len(lengths)] += 1
    return [str(x) for x in lengths]


def _dataset(ev: Evaluator, entry: Entry, call: nodes.Call, ctx: Ctx | None, d: int,
             receiver: Value | None = None) -> frozenset[Value]:
    if entry.name == "torch.utils.data.random_split":
        # ``train, val = random_split(full, [45000, 5000])``: a map-style Subset per
        # length, of that many samples when the length is a known whole number
        # (fractions, or lengths not known, leave the sizes unknown)
        lengths = argument(call, 1, "lengths")
        sizes: list[str | None] | None = None
        if isinstance(lengths, (nodes.List, nodes.Tuple)) and not any(
                isinstance(e, nodes.Starred) for e in lengths.elts):
            sizes = [V.single_text(ev.value(e, ctx, d)) for e in lengths.elts]
        elif lengths is not None:
            # ``random_split(full, list(cfg.split))`` of a known tuple of sizes
            seq = _known_sequence(ev.value(lengths, ctx, d))
            sizes = [V.single_text(e) for e in seq] if seq is not None else None
        fractions = _fractions(ev, lengths) if lengths is not None else None
        if fractions is not None and call.args:
            sizes = _split_fractions(fractions, _arg_value(ev, call, 0, ctx, d))
        if sizes is not None:
            return one(Kind.LIST, elts=tuple(
                one(Kind.DATASET, node=call, qual=entry.name,
                    text=size if size is not None and size.isdigit() else None)
                for size in sizes))
        return one(Kind.LIST, elem=one(Kind.DATASET, node=call, qual=entry.name))
    if entry.returns == "dataset:sharded":
        # ``split_dataset_by_node(ds, rank=..., world_size=...)``, ``ds.shard(n, i)``: this
        # replica's part (still a stream when ``ds`` is one, but no longer the whole of it)
        base = frozenset({receiver}) if receiver is not None else \
            _arg_value(ev, call, 0, ctx, d) if call.args else UNKNOWN_SET
        iterable = {"iterable"} if any(v.has("iterable") for v in base) else set()
        return one(Kind.DATASET, node=call, qual=entry.name,
                   flags=frozenset({"sharded", *iterable}))
    if receiver is not None and receiver.kind is Kind.DATASET and \
            receiver.flags & _DATASET_KIND_FLAGS:
        # ``stream.map(tokenize)``, ``.shuffle(seed=...)``, ``.take(n)``: still a stream
        # (and one replica's part when it was split), unless the call names the replica
        # (``.filter(lambda ex, i: i % world == rank, with_indices=True)``) or skips a
        # computed count (``.skip(rank * n)``): then it may keep this replica's part,
        # unknown here
        flags = receiver.flags & _DATASET_KIND_FLAGS
        if _names_replica(call) or entry.name.endswith(".skip") and not all(
                isinstance(a, nodes.Const) for a in call.args):
            flags = flags - {"stream", "whole"}
        return one(Kind.DATASET, node=call, qual=entry.name, flags=flags)
    converts = entry.name.endswith(".to_iterable_dataset")
    if converts or entry.name in ("datasets.interleave_datasets",
                                  "datasets.concatenate_datasets"):
        # a map-style dataset read as a stream, or streams joined: still read whole by
        # every replica that iterates it
        parts = V.UNKNOWN_SET if receiver is None else frozenset({receiver})
        if receiver is None and call.args:
            parts = ev.iterate(_arg_value(ev, call, 0, ctx, d), d)
        # (joined datasets of unknown kind may be streams: no sampler is asked for them)
        iterable = converts or not V.is_known(parts) or any(
            v.kind is Kind.DATASET and v.has("iterable") for v in parts)
        stream = iterable and all(
            v.kind is Kind.DATASET and (v.has("stream") or not v.flags & _DATASET_KIND_FLAGS)
            for v in parts) and not _names_replica(call)
        return one(Kind.DATASET, node=call, qual=entry.name, flags=frozenset(
            {"iterable", "stream"} if stream else {"iterable"} if iterable else set()))
    if entry.name == "datasets.load_dataset":
        streaming = keyword(call, "streaming")
        stream = V.known_bool(ev.value(streaming, ctx, d)) if streaming is not None else False
        if stream is True and not _names_replica(call):
            # An ``IterableDataset`` read in order from its shards: every process that
            # iterates it reads the same examples unless it is split by rank
            # (``split_dataset_by_node``, ``.shard(...)``; a call that names the replica,
            # ``data_files=shards[rank::world]``, streams files of its own: unknown)
            return one(Kind.DATASET, node=call, qual=entry.name,
                       flags=frozenset({"iterable", "stream"}))
        if stream is not False:
            # ``streaming=args.streaming``: maybe a stream (no fixed last batch, no sampler);
            # either way the whole dataset, which every replica that iterates it without a
            # sampler or a split reads ("whole"), unless the call names the replica
            whole = set() if _names_replica(call) else {"whole"}
            return one(Kind.DATASET, node=call, qual=entry.name,
                       flags=frozenset({"iterable", *whole}))
    sizes = dict(entry.sizes)
    text = None
    if sizes:
        train = keyword(call, "train")
        named = keyword(call, "split")  # ``ImageNet(root, split="val")``
        split = None
        if train is None and named is None and len(call.args) >= 2:
            if const_str(call.args[1]) is not None:
                named = call.args[1]
            else:
                train = call.args[1]
        if named is not None:
            split = V.single_text(ev.value(named, ctx, d))
        elif train is None:
            split = "train"
        else:
            is_train = V.known_bool(ev.value(train, ctx, d))
            if is_train is not None:
                split = "train" if is_train else "test"
        if split in sizes:
            text = str(sizes[split])
    elif entry.name.endswith("ConcatDataset") and call.args:
        # ``ConcatDataset([clean, noisy])``: as many rows as its datasets together
        seq = _known_sequence(_arg_value(ev, call, 0, ctx, d))
        if seq:
            sizes_of = [next(iter(e)).text if len(e) == 1 and next(iter(e)).kind is
                        Kind.DATASET else None for e in seq]
            if all(t is not None and t.isdigit() for t in sizes_of):
                text = str(sum(int(t) for t in sizes_of))  # type: ignore[arg-type]
    elif entry.name.endswith("TensorDataset") and call.args:
        # (every tensor of a TensorDataset has its rows: it asserts so; the first known)
        size = next((n for a in call.args if not isinstance(a, nodes.Starred)
                     if (n := _leading_dim(ev, a, ctx, d, 0)) is not None), None)
        text = str(size) if size is not None else None
        if text is None:
            # ``TensorDataset(x[:n], y[:n])`` with ``n = len(x) // bs * bs``: a multiple
            factors = next((f for a in call.args if not isinstance(a, nodes.Starred)
                            if (f := _sliced_multiple(ev, a, ctx, d))), None)
            if factors:
                return one(Kind.DATASET, node=call, qual=entry.name,
                           flags=frozenset(MULT + f for f in factors))
    elif entry.name == "torchvision.datasets.FakeData":
        # ``FakeData(size=51_200, ...)``: that many images (1000 by default)
        given = argument(call, 0, "size")
        size = _known_int(ev, given, ctx, d) if given is not None else 1000
        text = str(size) if size is not None else None
    elif entry.name.endswith((".select", ".Subset")) and call.args:
        # ``ds.select(range(1000))``, ``Subset(ds, range(n))``: as many rows as indices
        # (a dataset with fewer rows raises)
        size = _range_count(ev, argument(call, 0 if entry.name.endswith(".select") else 1,
                                         "indices"), ctx, d)
        text = str(size) if size is not None else None
    return one(Kind.DATASET, node=call, qual=entry.name, text=text)


def _known_sequence(vs: frozenset[Value]) -> tuple[frozenset[Value], ...] | None:
    """The elements, by position, of ``vs`` when it is one tuple or list whose every
    element is known by position (``(8000, 1000, 1000)``); else None."""
    if len(vs) != 1:
        return None
    seq = next(iter(vs))
    if seq.kind not in (Kind.LIST, Kind.TUPLE) or seq.elts is None or seq.elem is not None:
        return None
    return seq.elts


def _range_count(ev: Evaluator, node: nodes.NodeNG | None, ctx: Ctx | None, d: int
                 ) -> int | None:
    """How many indices ``range(...)`` (or ``list(range(...))``) holds when its bounds
    are known integers, else None."""
    for _ in range(3):
        if isinstance(node, nodes.Name):
            # ``idx = range(96)`` then ``Subset(ds, idx)``
            node = _assigned_value(ev, node)
            if node is None:
                return None
        elif isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and \
                node.func.name in ("list", "tuple") and len(node.args) == 1:
            node = node.args[0]
        else:
            break
    if isinstance(node, (nodes.List, nodes.Tuple)) and not any(
            isinstance(e, nodes.Starred) for e in node.elts):
        return len(node.elts)  # ``Subset(ds, [0, 1, 2, 3])``
    if not (isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and
            node.func.name == "range" and 1 <= len(node.args) <= 3 and not node.keywords):
        return None
    bounds = []
    for a in node.args:
        text = V.single_text(ev.value(a, ctx, d))
        if text is None or not text.lstrip("-").isdigit():
            return None
        bounds.append(int(text))
    try:
        return len(range(*bounds))
    except ValueError:  # a step of 0
        return None


#: Factories whose leading positional arguments (or ``size=`` tuple) give the shape.
_SHAPED_FACTORIES = frozenset({"torch.randn", "torch.rand", "torch.zeros", "torch.ones",
                               "torch.empty", "torch.full"})
#: Factories of a 1-d tensor of ``n`` entries (their first argument).
_SIZED_BY_COUNT = frozenset({"torch.randperm"})
#: Tensor methods whose result has the rows of the tensor they are called on.
_SAME_ROWS = frozenset({"to", "float", "long", "int", "half", "double", "bool", "bfloat16",
                        "cpu", "contiguous", "clone", "detach"})


#: Words of names that stand for this replica's place among the replicas.
_REPLICA_WORDS = frozenset({"rank", "ordinal", "world", "replica", "replicas", "shard",
                            "shards", "host", "hosts", "process", "processes"})
#: Words of a stream that partitions its items between replicas, in identifiers and
#: strings: the replica words (a stream's hosts are its data's, not replicas), a node
#: split, and the distributed modules that give a rank.
_STREAM_SPLIT_WORDS = (_REPLICA_WORDS - {"host", "hosts"}) | {
    "ranks", "node", "nodes", "distributed", "dist", "xr", "xm"}


def _splits_by_worker_only(ev: Evaluator, klass: nodes.ClassDef) -> bool:
    """An IterableDataset class of the project that splits its items between the
    DataLoader's workers (``torch.utils.data.get_worker_info()``) and never between
    replicas: no word of its code names a rank, a world size, a shard or a node, and it
    has no base class of its own module (whose code could). Under ``xmp.spawn`` every
    replica then reads every item."""
    if any(isinstance(b, nodes.ClassDef) and b.root() is klass.root()
           for base in klass.bases for b in ev.bindings(base)
           if isinstance(base, nodes.Name)):
        return False
    if words_of(klass) & _STREAM_SPLIT_WORDS:
        return False
    return any(ev.qualname(c.func) in ("torch.utils.data.get_worker_info",
                                       "torch.utils.data._utils.worker.get_worker_info")
               for c in nodes_of(klass, nodes.Call))


#: Flags of a dataset value that its methods keep (see :func:`_dataset`).
_DATASET_KIND_FLAGS = frozenset({"iterable", "stream", "sharded", "whole"})


def _names_replica(call: nodes.Call) -> bool:
    """An argument of ``call`` names the replica's rank or the number of replicas, by the
    words of its names (``rank``, ``xr.global_ordinal()``, ``world_size``, ``num_hosts``,
    ``process_index``; not ``ranking``)."""
    return any(words_of(arg) & _REPLICA_WORDS
               for arg in [*call.args, *(k.value for k in call.keywords or ())])


def _leading_dim(ev: Evaluator, node: nodes.NodeNG, ctx: Ctx | None, d: int, depth: int
                 ) -> int | None:
    """The first dimension of a tensor built from a literal shape (``torch.randn(1024, 8)``,
    ``torch.zeros((n, 8))`` with ``n`` a known int), following a name bound once; else None."""
    if depth > 4:
        return None
    if isinstance(node, nodes.Name):
        binds = ev.bindings(node)
        if len(binds) != 1 or not isinstance(binds[0], nodes.AssignName):
            return None
        stmt, value = binds[0].parent, None
        if isinstance(stmt, nodes.Assign):
            value = stmt.value
        elif isinstance(stmt, nodes.Tuple) and isinstance(stmt.parent, nodes.Assign) and \
                isinstance(stmt.parent.value, nodes.Tuple) and \
                len(stmt.parent.value.elts) == len(stmt.elts):
            # ``x, y = torch.randn(n, 4), torch.randn(n)``: the value in the same place
            value = stmt.parent.value.elts[stmt.elts.index(binds[0])]
        return _leading_dim(ev, value, ctx, d, depth + 1) if value is not None else None
    if isinstance(node, nodes.Subscript):
        return _sliced_dim(ev, node, ctx, d, depth)
    if isinstance(node, nodes.BinOp) and node.op in ("+", "-", "*", "/"):
        # ``torch.randn(n, 40) + shift``: a tensor and a host number have the tensor's rows
        for t, o in ((node.left, node.right), (node.right, node.left)):
            if isinstance(o, nodes.Const) and isinstance(o.value, (int, float)) or \
                    V.is_host_only(ev.value(o, ctx, d)):
                return _leading_dim(ev, t, ctx, d, depth + 1)
        return None
    if not isinstance(node, nodes.Call):
        return None
    if isinstance(node.func, nodes.Attribute) and node.func.attrname in _SAME_ROWS and \
            not ev.qualname(node.func):
        return _leading_dim(ev, node.func.expr, ctx, d, depth + 1)  # x.float(), x.to(dev)
    q = ev.qualname(node.func)
    if q == "torch.arange":
        return _arange_count(ev, node, ctx, d)
    shape = factory_shape(q, node)
    return _known_int(ev, shape[0], ctx, d) if shape else None


def factory_shape(q: str | None, call: nodes.Call) -> list[nodes.NodeNG] | None:
    """The expressions that give the shape of a torch factory call whose qualified name
    is ``q``, one per dimension: the sizes of ``torch.zeros(n, d)``, ``zeros((n, d))`` or
    ``zeros(size=(n, d))`` (so for randn, rand, ones and empty), the shape of
    ``torch.full((n, d), value)`` and of ``randint(low, high, (n,))`` (their other
    arguments are values), the count of ``randperm(n)``, the bounds of ``arange`` (its
    length). A shape given as one name is that name. None for any other call."""
    if q == "torch.arange":
        return list(call.args)
    if q in _SIZED_BY_COUNT:
        given = [argument(call, 0, "n")]
    elif q == "torch.randint":
        # randint(high, size) or randint(low, high, size): the shape comes last
        given = [keyword(call, "size") or next(
            (a for a in call.args if isinstance(a, (nodes.Tuple, nodes.List))), None)]
    elif q in _SHAPED_FACTORIES:
        size = keyword(call, "size")
        if size is not None:
            given = [size]
        elif q == "torch.full" or call.args and isinstance(call.args[0], (nodes.Tuple,
                                                                          nodes.List)):
            given = call.args[:1]
        else:
            given = list(call.args)
    else:
        return None
    return [e for g in given if g is not None
            for e in (g.elts if isinstance(g, (nodes.Tuple, nodes.List)) else [g])]


def _arange_count(ev: Evaluator, call: nodes.Call, ctx: Ctx | None, d: int) -> int | None:
    """The entries of ``torch.arange(end)`` / ``arange(start, end[, step])`` with known int
    bounds given by position, else None."""
    if call.keywords or not 1 <= len(call.args) <= 3:
        return None
    bounds = [_known_int(ev, a, ctx, d) for a in call.args]
    if any(b is None for b in bounds) or (len(bounds) == 3 and not bounds[2]):
        return None
    return len(range(*bounds))  # type: ignore[arg-type]


def _known_int(ev: Evaluator, node: nodes.NodeNG | None, ctx: Ctx | None, d: int
               ) -> int | None:
    """A non-negative int that ``node`` is known to hold, else None."""
    if node is None:
        return None
    vs = ev.value(node, ctx, d)
    if len(vs) == 1:
        v = next(iter(vs))
        if v.kind is Kind.HOST and v.text is not None and v.text.isdigit():
            return int(v.text)
    return None


#: Flag prefix of a dataset size known only as a multiple: ``mult:<factor>`` for each
#: factor of the number the rows were cut to a multiple of (``x[:len(x) // bs * bs]``
#: gives ``mult:bs``); their product divides the size.
MULT = "mult:"


def multiple_factors(ev: Evaluator, node: nodes.NodeNG | None, of: nodes.NodeNG,
                     ctx: Ctx | None = None, d: int = 0) -> frozenset[str] | None:
    """The factors of ``m`` when ``node`` is a whole multiple of it, written as such from
    the length of ``of`` (the sequence it will cut; :func:`cut_multiple`), each as what it
    stands for (:func:`product_keys`). None otherwise."""
    m = cut_multiple(ev, node, of)
    return product_keys(ev, m, ctx, d) if m is not None else None


def cut_multiple(ev: Evaluator, node: nodes.NodeNG | None, of: nodes.NodeNG, depth: int = 0
                 ) -> nodes.NodeNG | None:
    """``m`` when ``node`` is ``len(of) // m * m``, ``m * (len(of) // m)`` or ``len(of) -
    len(of) % m`` (:func:`multiple_of`), or a name bound once to one; else None."""
    if node is None or depth > 4:
        return None
    if isinstance(node, nodes.Name):
        value = _single_assigned(ev, node)
        return cut_multiple(ev, value, of, depth + 1) if value is not None else None
    return multiple_of(node, of)


def _length_of(node: nodes.NodeNG, of: nodes.NodeNG) -> bool:
    """``node`` is ``len(of)``, ``of.shape[0]`` or ``of.size(0)`` (syntax only)."""
    text = of.as_string()
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and \
            node.func.name == "len" and len(node.args) == 1:
        return node.args[0].as_string() == text
    if isinstance(node, nodes.Subscript) and isinstance(node.value, nodes.Attribute) and \
            node.value.attrname == "shape" and isinstance(node.slice, nodes.Const) and \
            node.slice.value == 0:
        return node.value.expr.as_string() == text
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
            node.func.attrname == "size" and len(node.args) == 1 and \
            isinstance(node.args[0], nodes.Const) and node.args[0].value == 0:
        return node.func.expr.as_string() == text
    return False


def multiple_of(node: nodes.NodeNG | None, of: nodes.NodeNG) -> nodes.NodeNG | None:
    """``m`` of ``len(of) // m * m``, ``m * (len(of) // m)`` or ``len(of) - len(of) % m``
    (see :func:`_length_of`), else None. Syntax only."""
    if not isinstance(node, nodes.BinOp):
        return None
    if node.op == "*":
        for floor, m in ((node.left, node.right), (node.right, node.left)):
            if isinstance(floor, nodes.BinOp) and floor.op == "//" and \
                    floor.right.as_string() == m.as_string() and _length_of(floor.left, of):
                return m
    if node.op == "-" and isinstance(node.right, nodes.BinOp) and node.right.op == "%" and \
            node.right.left.as_string() == node.left.as_string() and _length_of(node.left, of):
        return node.right.right
    return None


def product_keys(ev: Evaluator, node: nodes.NodeNG, ctx: Ctx | None, d: int, *,
                 within: nodes.NodeNG | None = None,
                 fallback: Callable[[nodes.NodeNG], str | None] | None = None,
                 depth: int = 0) -> frozenset[str]:
    """What each factor of the product ``node`` stands for (:func:`factor_key`; a factor
    it cannot say is left out, or asked of ``fallback``). A factor that is a name bound
    once to a product is spread into its factors (``mult = 8 * bs * world``); with
    ``within``, only a name bound in that function."""
    if isinstance(node, nodes.BinOp) and node.op == "*" and depth < 6:
        return product_keys(ev, node.left, ctx, d, within=within, fallback=fallback,
                            depth=depth + 1) | \
            product_keys(ev, node.right, ctx, d, within=within, fallback=fallback,
                         depth=depth + 1)
    if isinstance(node, nodes.Name) and depth < 6:
        value = _single_assigned(ev, node)
        if isinstance(value, nodes.BinOp) and value.op == "*" and (
                within is None or value.frame() is within):
            return product_keys(ev, value, ctx, d, within=within, fallback=fallback,
                                depth=depth + 1)
    key = factor_key(ev, node, ctx, d)
    if key is None and fallback is not None:
        key = fallback(node)
    return frozenset({key}) if key is not None else frozenset()


def factor_key(ev: Evaluator, node: nodes.NodeNG, ctx: Ctx | None, d: int, depth: int = 0
               ) -> str | None:
    """What a factor of a cut (or a loader's ``batch_size=``/``num_replicas=``) stands
    for, comparable between the two: its number (``"16"``), else ``args.batch_size`` of
    one parsed command line (the ``parse_args()`` call it reads, by identity), else a
    module-level name or call as written in its module (``BATCH``, ``xr.world_size()``),
    following a name bound once in its scope; None when unknown."""
    if depth > 4:
        return None
    text = V.single_text(ev.value(node, ctx, d))
    if text is not None and text.isdigit():
        return text
    if isinstance(node, nodes.Name):
        value = _single_assigned(ev, node)
        if value is not None and value.scope() is node.scope():
            key = factor_key(ev, value, ctx, d, depth + 1)
            if key is not None:
                return key
    root, chain = node, []
    while isinstance(root, nodes.Attribute):
        chain.append(root.attrname)
        root = root.expr
    if chain and isinstance(root, nodes.Name):
        vs = ev.value(root, ctx, d)
        made = {id(v.node) for v in vs if v.kind is Kind.HOST and v.qual == "namespace" and
                isinstance(v.node, nodes.Call)}
        if vs and len(made) == 1 and all(v.kind is Kind.HOST and v.qual == "namespace"
                                         for v in vs):
            return f"ns:{made.pop()}:{'.'.join(reversed(chain))}"
    if module_scoped(ev, node):
        return f"mod:{id(ev.module)}:{node.as_string()}"
    return None


def module_scoped(ev: Evaluator, node: nodes.NodeNG) -> bool:
    """``node`` is a name bound only at module level, an attribute chain of one
    (``BATCH``, ``args.batch_size``), or a call of one without arguments
    (``xr.world_size()``): it means the same wherever the module writes it."""
    root = node
    if isinstance(root, nodes.Call) and not root.args and not root.keywords:
        root = root.func  # ``xr.world_size()``: a call of a module-level function, no args
    while isinstance(root, nodes.Attribute):
        root = root.expr
    if not isinstance(root, nodes.Name):
        return False
    binds = ev.bindings(root)
    return bool(binds) and all(isinstance(b.scope(), nodes.Module) for b in binds)


def _sliced_multiple(ev: Evaluator, node: nodes.NodeNG | None, ctx: Ctx | None, d: int,
                     depth: int = 0) -> frozenset[str] | None:
    """The factors for ``x[:m]`` (``node``, or a name bound once to it) when ``m`` is a
    whole multiple cut from ``x``'s own length (:func:`multiple_factors`): its rows are a
    multiple of them."""
    if node is None or depth > 4:
        return None
    if isinstance(node, nodes.Name):
        value = _single_assigned(ev, node)
        return _sliced_multiple(ev, value, ctx, d, depth + 1) if value is not None else None
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
            node.func.attrname in _SAME_ROWS and not ev.qualname(node.func):
        return _sliced_multiple(ev, node.func.expr, ctx, d, depth + 1)  # x[:n].float()
    if not isinstance(node, nodes.Subscript):
        return None
    part = node.slice
    if isinstance(part, nodes.Tuple):
        part = part.elts[0] if part.elts else None
    if not isinstance(part, nodes.Slice) or part.step is not None or part.lower is not None:
        return None
    return multiple_factors(ev, part.upper, node.value, ctx, d)


def _sliced_dim(ev: Evaluator, node: nodes.Subscript, ctx: Ctx | None, d: int, depth: int
                ) -> int | None:
    """The rows of ``x[a:b]`` (``x[:40000]``, ``x[40000:]``) for a tensor ``x`` of known
    rows and literal or known bounds, without a step."""
    part = node.slice
    if isinstance(part, nodes.Tuple):
        part = part.elts[0] if part.elts else None
    if not isinstance(part, nodes.Slice) or part.step is not None:
        return None
    rows = _leading_dim(ev, node.value, ctx, d, depth + 1)
    if rows is None:
        return None
    low = 0 if part.lower is None else _known_int(ev, part.lower, ctx, d)
    high = rows if part.upper is None else _known_int(ev, part.upper, ctx, d)
    if low is None or high is None:
        return None
    return max(0, min(high, rows) - min(low, rows))


def _scaler(ev: Evaluator, q: str | None, call: nodes.Call, ctx: Ctx | None, d: int
            ) -> frozenset[Value]:
    flags: set[str] = set()
    dev = argument(call, 0, "device")
    if q and q.startswith("torch.cuda."):
        device: str | None = "cuda"  # noqa: XLA501
    elif q and q.startswith("torch_xla."):
        device = "xla"
    else:
        device = V.device_of_text(const_str(dev)) if dev is not None else "cuda"  # noqa: XLA501
        if dev is not None and const_str(dev) is None:
            device = None
    from flake8_xla.analysis.paths import switched_off
    if switched_off(call, ev):
        flags.add("disabled")
    return one(Kind.SCALER, node=call, qual=q, device=device, flags=frozenset(flags))


def _getattr(ev: Evaluator, call: nodes.Call, ctx: Ctx | None, d: int) -> frozenset[Value]:
    """``getattr(obj, name[, default])``: ``obj.<name>`` for each string the name may be,
    joined with the default when one is given (the attribute may be missing). A version
    shim such as ``sync = getattr(torch_xla, "sync", None) or xm.mark_step``, or a helper
    that picks the first of several ``(module, "name")`` pairs, is then the API functions
    it may pick. Unknown when a name is not a known string, or the attribute's value is not
    known."""
    if len(call.args) < 2 or call.keywords or any(isinstance(a, nodes.Starred)
                                                  for a in call.args):
        return UNKNOWN_SET
    names = ev.value(call.args[1], ctx, d)
    if not names or any(v.kind is not Kind.HOST or not v.text for v in names):
        return UNKNOWN_SET
    base = ev.value(call.args[0], ctx, d)
    out = [ev.attribute(base, text, None, ctx, d) for text in sorted({v.text for v in names})]
    if not all(V.is_known(vs) for vs in out):
        # ``getattr(config, "backend", "cuda")`` of an unknown object: unknown, never its
        # default alone (the default is the value only where the attribute is missing)
        return UNKNOWN_SET
    if len(call.args) > 2:
        out.append(ev.value(call.args[2], ctx, d))
    return join(*out)


def _prepare(ev: Evaluator, call: nodes.Call, ctx: Ctx | None, d: int) -> frozenset[Value]:
    """accelerate's ``prepare`` / Fabric's ``setup``: each argument made device-ready."""
    parts = []
    for arg in call.args:
        if isinstance(arg, nodes.Starred):
            return UNKNOWN_SET
        vs = ev.value(arg, ctx, d)
        out = []
        for v in vs:
            if v.kind is Kind.LOADER:
                out.append(v.with_(flags=v.flags | {"managed", "xla"} - {"plain"},
                                   bound=frozenset({v})))
            elif v.kind is Kind.OPTIMIZER or v.kind is Kind.MODULE:
                out.append(v.with_(flags=v.flags | {"managed"}))
            else:
                out.append(v)
        parts.append(frozenset(out))
    if len(parts) == 1:
        return parts[0]
    return one(Kind.TUPLE, elts=tuple(parts))


def _simple(spec: str, node: nodes.NodeNG, q: str | None) -> frozenset[Value] | None:
    head, _, sub = spec.partition(":")
    if head == "host":
        if sub == "namespace":  # an object: attributes set on it flow to its readers
            return one(Kind.HOST, node=node, qual="namespace")
        return V.host(sub or None)
    if head == "tensor" and sub in ("cpu", "xla", "cuda"):
        return V.tensor(sub)
    if head == "tensor" and sub == "nxd_loss":
        # neuronx-distributed's pipeline model returns the loss on the CPU unless it was
        # built with ``return_loss_on_cpu=False`` (NxDPPModel's default is True): a module
        # that names the option at all sets it off (the XLA device's lazy loss)
        sets = any(isinstance(n, nodes.Keyword) and n.arg == "return_loss_on_cpu" or
                   isinstance(n, nodes.Const) and n.value == "return_loss_on_cpu"
                   for n in nodes_of(node.root(), (nodes.Keyword, nodes.Const)))
        return V.tensor("xla" if sets else "cpu")
    if head == "optimizer":
        return one(Kind.OPTIMIZER, node=node, qual=q,
                   flags=frozenset({"syncfree"}) if sub == "syncfree" else frozenset())
    if head in ("scheduler", "sampler", "tokenizer", "collator"):
        kind = Kind(head)
        return one(kind, node=node, qual=q,
                   flags=frozenset({sub}) if sub else frozenset())
    if head == "device":
        if sub in ("xla", "cpu", "cuda"):
            return one(Kind.DEVICE, device=sub)
        if sub == "unknown":
            return one(Kind.DEVICE)
    if head == "framework":
        return one(Kind.FRAMEWORK, node=node, qual=sub)
    if head == "unknown":
        return UNKNOWN_SET
    if head == "none":
        return V.host("none")
    return None


def apply(ev: Evaluator, entry: Entry, q: str | None, call: nodes.Call, receiver: Value | None,
          ctx: Ctx | None, d: int) -> frozenset[Value]:
    """The value of ``call`` from ``entry.returns`` (see the data file's header)."""
    spec = entry.returns or "unknown"
    if entry.bare_returns is not None and not call.args and not call.keywords:
        spec = entry.bare_returns
    simple = _simple(spec, call, q or entry.name)
    if simple is not None:
        return simple
    head, _, sub = spec.partition(":")
    rv = frozenset({receiver}) if receiver is not None else UNKNOWN_SET
    if spec == "device:arg":
        # ``torch.device("cpu")``, ``torch.device("cuda", 0)``, ``torch.device(dev)``
        arg = call.args[0] if call.args else keyword(call, "type")
        if arg is None:
            return one(Kind.DEVICE)
        is_dev, which = device_value(ev, arg, ctx, d)
        return one(Kind.DEVICE, device=which if is_dev else None)
    if spec == "factory":
        dtype = keyword(call, "dtype")
        # ``torch.eye(n, dtype=torch.bool)`` (or ``dtype=bool``, Python's type, which torch
        # takes for torch.bool): a boolean mask
        flags = frozenset({"bool"}) if dtype is not None and (
            (ev.qualname(dtype) or "") == "torch.bool" or
            isinstance(dtype, nodes.Name) and dtype.name == "bool" and
            ev.qualname(dtype) == "bool") else frozenset()
        dev_node = keyword(call, "device")
        if dev_node is None and entry.name in ("torch.tensor", "torch.as_tensor") and \
                call.args:
            data = ev.value(call.args[0], ctx, d)
            tensors = [v for v in data if v.kind is Kind.TENSOR]
            if tensors:
                # ``torch.tensor(t)`` is ``t.clone().detach()``: on the device of ``t``
                # (Python data makes a CPU tensor)
                out = V.tensor(V.tensor_device(tensors), flags=flags)
                return out if len(tensors) == len(data) else join(
                    out, V.tensor("cpu", flags=flags))
        if dev_node is None:
            return V.tensor("cpu", flags=flags)
        _, dev = device_value(ev, dev_node, ctx, d)
        return V.tensor(dev, flags=flags)
    if spec in ("tensor", "tensor:params"):
        args = join(*(ev.value(a, ctx, d) for a in call.args),
                    *(ev.value(k.value, ctx, d) for k in call.keywords or ()
                      if k.arg not in ("dtype", "out")))
        if receiver is not None and receiver.kind is Kind.TENSOR:
            args = args | rv
        deep = _tensors_in(args)
        if sub == "params" and args and all(
                v.kind is Kind.HOST and v.qual in ("int", "float") for v in args):
            # ``Beta(alpha, alpha)`` of Python numbers: its samples are CPU tensors
            return V.tensor("cpu")
        return V.tensor(V.tensor_device(deep))
    if spec == "booltensor":
        args = join(*(ev.value(a, ctx, d) for a in call.args))
        if receiver is not None and receiver.kind is Kind.TENSOR:
            args = args | rv
        deep = _tensors_in(args)
        return V.tensor(V.tensor_device(deep), flags=frozenset({"bool"}))
    if spec == "getattr":
        return _getattr(ev, call, ctx, d)
    if spec == "moved":
        return _moved(ev, rv, call, ctx, d)
    if head == "self":
        if sub == "moved":
            return _moved(ev, rv, call, ctx, d)
        if sub in ("cpu", "cuda", "xla"):
            return V.move_device(rv, sub)
        return rv
    if head == "module":
        if sub == "arg":
            inner = _arg_value(ev, call, 0, ctx, d)
            mods = V.of_kind(inner, Kind.MODULE)
            if mods:
                return frozenset(m.with_(flags=m.flags | {"wrapped"}) for m in mods)
            return one(Kind.MODULE, node=call, qual=q, device=V.ANY_DEVICE)
        return one(Kind.MODULE, node=call, qual=q, device=_device_map(ev, call, ctx, d))
    if head == "loader":
        if sub == "plain":
            return _loader(ev, q, call, ctx, d)
        inner = _arg_value(ev, call, 0, ctx, d) if call.args else UNKNOWN_SET
        flags = {"xla"} if sub in ("xla", "managed", "ignite") else {"parallel"}
        if sub == "managed":
            flags.add("managed")
        if sub == "ignite":
            flags.add("ignite")
            inner = _loader(ev, q, call, ctx, d)
        if receiver is not None and receiver.kind is Kind.LOADER:
            inner = frozenset({receiver})
            if receiver.has("indexed"):
                flags.add("indexed")
        return one(Kind.LOADER, node=call, qual=q, flags=frozenset(flags), bound=inner)
    if head == "dataset":
        return _dataset(ev, entry, call, ctx, d, receiver)
    if head == "scaler":
        return _scaler(ev, q, call, ctx, d)
    if head == "progress":
        if sub == "range":
            return one(Kind.PROGRESS, node=call, elem=V.host("int"))
        inner = _arg_value(ev, call, 0, ctx, d) if call.args else EMPTY
        return one(Kind.PROGRESS, node=call, elem=ev.iterate(inner, d) if inner else UNKNOWN_SET,
                   bound=inner)
    if head == "iter":
        inner = rv if sub == "self" else _arg_value(ev, call, 0, ctx, d)
        return one(Kind.ITERATOR, elem=ev.iterate(inner, d), bound=inner)
    if head == "elem":
        inner = rv if not sub else _arg_value(ev, call, 0, ctx, d)
        element = ev.iterate(inner, d)
        if len(call.args) > 1:
            element = join(element, ev.value(call.args[1], ctx, d))
        return element
    if spec == "enumerate":
        inner = _arg_value(ev, call, 0, ctx, d)
        return one(Kind.ITERATOR, elem=one(Kind.TUPLE, elts=(V.host("int"),
                                                             ev.iterate(inner, d))),
                   bound=inner)
    if spec == "zip":
        if any(isinstance(a, nodes.Starred) for a in call.args):
            return one(Kind.ITERATOR, elem=UNKNOWN_SET)
        iterables = [ev.value(a, ctx, d) for a in call.args]
        parts = tuple(ev.iterate(vs, d) for vs in iterables)
        # the zipped iterables are its bound: each iteration takes one item of every one
        # (a batch of the XLA loader in ``zip(range(n), cycle(device_loader))``)
        return one(Kind.ITERATOR, elem=one(Kind.TUPLE, elts=parts),
                   bound=join(*iterables) if iterables else None, flags=frozenset({"zip"}))
    if head == "list":
        if not call.args:
            return one(Kind.LIST, elts=())
        inner = _arg_value(ev, call, 0, ctx, d)
        seq = _known_sequence(inner)
        if seq is not None:
            return one(Kind.LIST, elts=seq)  # ``list(cfg.split)`` of a known tuple
        return one(Kind.LIST, elem=ev.iterate(inner, d))
    if spec == "dict":
        items = tuple((k.arg, ev.value(k.value, ctx, d)) for k in call.keywords or () if k.arg)
        elem = None
        if call.args:
            # ``dict([(key, AdamW(...)) for key in keys])``: the second part of each pair
            # written in the call (a comprehension or a literal of pairs); ``dict(other)``:
            # what the dict ``other`` holds. Other iterables stay unknown.
            parts: list[frozenset[Value]] = []
            arg = call.args[0]
            written = isinstance(arg, (nodes.ListComp, nodes.GeneratorExp)) and isinstance(
                arg.elt, nodes.Tuple) or isinstance(arg, (nodes.List, nodes.Tuple)) and all(
                isinstance(e, nodes.Tuple) for e in arg.elts)
            for v in _arg_value(ev, call, 0, ctx, d):
                if v.kind is Kind.DICT:
                    parts += [v.elem or EMPTY, *(part for _, part in v.items or ())]
                elif not written:
                    parts.append(UNKNOWN_SET)
                else:
                    parts += [e.elts[1] if e.kind in (Kind.TUPLE, Kind.LIST) and
                              e.elts is not None and len(e.elts) == 2 else UNKNOWN_SET
                              for e in ev.iterate(frozenset({v}), d)]
            elem = join(*parts) if parts else UNKNOWN_SET
        return one(Kind.DICT, items=items, elem=elem)
    if spec == "defaultdict":
        # ``meters = defaultdict(AverageMeter)``: every key reads an instance of the
        # class (each made on first use); other factories stay unknown
        factories = _arg_value(ev, call, 0, ctx, d) if call.args else EMPTY
        if factories and all(v.kind is Kind.CLASS and isinstance(v.node, nodes.ClassDef)
                             for v in factories):
            return one(Kind.DICT, items=(), elem=join(*(ev.instance(v.node)
                                                       for v in factories)))
        return UNKNOWN_SET
    if head.startswith("arg") and head[3:].isdigit():
        return _arg_value(ev, call, int(head[3:]), ctx, d)
    if spec == "extremum":
        # ``max(1, min(n, 5))``: one of the arguments, whichever wins; ``max(values)``:
        # one item of the iterable
        if len(call.args) == 1 and not isinstance(call.args[0], nodes.Starred):
            return ev.iterate(_arg_value(ev, call, 0, ctx, d), d)
        if not call.args or any(isinstance(a, nodes.Starred) for a in call.args):
            return UNKNOWN_SET
        return join(*(ev.value(a, ctx, d) for a in call.args))
    if spec == "prepare":
        return _prepare(ev, call, ctx, d)
    if head == "tuple":
        # each part a spec of its own (``pad_packed_sequence``: the padded tensor on its
        # input's device, then the lengths on the CPU)
        return one(Kind.TUPLE, elts=tuple(
            apply(ev, replace(entry, returns=s, bare_returns=None), q, call, receiver, ctx, d)
            for s in sub.split(",")))
    if spec == "optimizer_state_dict":
        # ``{"state": {index: {"exp_avg": tensor, ...}}, "param_groups": [{"lr": ...,
        # "params": [index, ...]}]}`` (torch/optim/optimizer.py): the state's tensors lie
        # where the parameters do, the groups hold Python numbers
        device = receiver.device if receiver is not None else None
        state = one(Kind.DICT, items=(), elem=one(Kind.DICT, items=(),
                                                  elem=V.tensor(device)))
        groups = one(Kind.LIST, elem=one(Kind.DICT, items=(), elem=V.host()))
        return one(Kind.DICT, items=(("state", state), ("param_groups", groups)),
                   elem=UNKNOWN_SET, bound=rv, flags=frozenset({"state_dict"}))
    if spec in ("params", "named_params", "state_dict", "modules", "named_modules"):
        device = receiver.device if receiver is not None else None
        param = V.tensor(device, flags=frozenset({"param"}))
        if spec == "params":
            return one(Kind.ITERATOR, elem=param, bound=rv, flags=frozenset({"params"}))
        if spec == "named_params":
            return one(Kind.ITERATOR, elem=one(Kind.TUPLE, elts=(V.host("str"), param)),
                       bound=rv, flags=frozenset({"params"}))
        if spec == "state_dict":
            return one(Kind.DICT, items=(), elem=param, bound=rv,
                       flags=frozenset({"state_dict", "params"}))
        sub_mod = one(Kind.MODULE, device=device)
        if spec == "modules":
            return one(Kind.ITERATOR, elem=sub_mod)
        return one(Kind.ITERATOR, elem=one(Kind.TUPLE, elts=(V.host("str"), sub_mod)))
    if spec == "call":
        return ev.module_call(rv, call, ctx, d)
    if spec == "generated":
        out = ev.module_call(rv, call, ctx, d)
        return frozenset(v.with_(flags=v.flags | {"generated"}) for v in out)
    if spec == "dict_items":
        vals = _dict_values(rv)
        return one(Kind.ITERATOR, elem=one(Kind.TUPLE, elts=(V.host("str"), vals)), bound=rv)
    if spec == "dict_values":
        return one(Kind.ITERATOR, elem=_dict_values(rv), bound=rv)
    if spec == "dict_get":
        vals = _dict_values(rv)
        key = const_str(call.args[0]) if call.args else None
        if receiver is not None and receiver.kind is Kind.DICT and key is not None:
            items = dict(receiver.items or ())
            if key in items:
                vals = items[key]
        if len(call.args) > 1:
            vals = join(vals, ev.value(call.args[1], ctx, d))
        return vals
    if spec == "dict_tensor":
        return one(Kind.DICT, items=(), elem=V.tensor("xla"))
    return UNKNOWN_SET


def _dict_values(rv: frozenset[Value]) -> frozenset[Value]:
    out = []
    for v in rv:
        if v.kind is Kind.DICT:
            out.extend(s for _, s in v.items or ())
            if v.elem is not None:
                out.append(v.elem)
        elif v.kind is Kind.TENSOR:
            out.append(frozenset({v}))
        else:
            out.append(UNKNOWN_SET)
    return join(*out) if out else UNKNOWN_SET


def _tensors_in(vs: frozenset[Value], depth: int = 0) -> list[Value]:
    """Tensor members of ``vs`` and of its tuples/lists (``torch.cat([a, b])``)."""
    out: list[Value] = []
    for v in vs:
        if v.kind is Kind.TENSOR:
            out.append(v)
        elif v.kind in (Kind.TUPLE, Kind.LIST, Kind.ITERATOR) and depth < 3:
            parts = list(v.elts or ())
            if v.elem is not None:
                parts.append(v.elem)
            for p in parts:
                out.extend(_tensors_in(p, depth + 1))
        elif v.kind is Kind.UNKNOWN:
            out.append(Value(Kind.TENSOR, device=V.ANY_DEVICE))
    return out
