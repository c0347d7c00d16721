"""Functions that a library calls back: what their parameters are, and framework attributes.

A function handed to a framework has no call site in the module; its parameters get
their values from what the framework passes:

- torch_xla's legacy ``DataParallel`` runs ``loop_fn(model, loader, device, context)``
  with the model on the XLA device and a per-device loader of ``(step, batch)`` pairs
  (torch_xla 1.x ``torch_xla/distributed/data_parallel.py``);
- ignite's ``Engine(process_fn)`` runs ``process_fn(engine, batch)`` over the data of
  ``engine.run(data)`` (``ignite/engine/engine.py``);
- a ``DataLoader(collate_fn=fn)`` calls ``fn(samples)`` with a list of CPU samples
  (``torch/utils/data/dataloader.py``);
- Lightning calls ``training_step(self, batch, batch_idx)`` and the other step hooks
  of a ``LightningModule`` with batches on the module's device
  (``lightning/pytorch/core/module.py``);
- the Hugging Face ``Trainer`` calls ``compute_loss(self, model, inputs)`` and
  ``training_step(self, model, inputs)`` with inputs on the device
  (``transformers/trainer.py``);
- ``Dataset.__getitem__(self, index)`` gets a Python int.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astroid import nodes

from flake8_xla.analysis import values as V
from flake8_xla.analysis.flows import MAX_SITES, MODULE_BASES, is_staticmethod, is_super_call
from flake8_xla.analysis.names import keyword, words_of_text
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.analysis.values import UNKNOWN_SET, Kind, Value, one
from flake8_xla.filefacts import (
    HF_TRAINER_HOOKS,
    HF_TRAINER_LOG_HOOKS,
    LIGHTNING_BATCH_HOOKS,
    LIGHTNING_STEP_HOOKS,
)

if TYPE_CHECKING:
    from flake8_xla.analysis.flows import Evaluator


def is_partial(ev: Evaluator, call: nodes.Call) -> bool:
    """``functools.partial(...)``, however the module spells it."""
    return ev.qualname(call.func) == "functools.partial"


def callback_sites(ev: Evaluator) -> dict[int, list[tuple[str, nodes.Call, int]]]:
    """Functions of the module passed as an argument: ``id(func) -> [(keyword, call, pos)]``."""
    table = ev._callbacks
    if table is None:
        table = {}
        # Syntax first: only names that some def of the module has can be a callback.
        defined = {f.name for f in ev.module_nodes(nodes.FunctionDef)}
        for call in ev.module_nodes(nodes.Call):
            passed = [(a, "", i) for i, a in enumerate(call.args)]
            passed += [(k.value, k.arg or "", -1) for k in call.keywords or ()]
            for arg, kw, pos in passed:
                func = None
                if isinstance(arg, nodes.Call) and arg.args and isinstance(
                        arg.args[0], nodes.Name) and arg.args[0].name in defined and \
                        is_partial(ev, arg):
                    # ``collate_fn=partial(pad_batch, pad_id=0)``: ``pad_batch`` is handed
                    arg = arg.args[0]
                if isinstance(arg, nodes.Lambda):
                    func = arg
                elif isinstance(arg, (nodes.Name, nodes.Attribute)) and (
                        arg.name if isinstance(arg, nodes.Name) else arg.attrname) not in defined:
                    continue
                elif isinstance(arg, nodes.Name):
                    defs = [b for b in ev.bindings(arg) if isinstance(b, nodes.FunctionDef)]
                    func = defs[0] if len(defs) == 1 else None
                elif isinstance(arg, nodes.Attribute) and isinstance(arg.expr, nodes.Name) and \
                        arg.expr.name == "self":
                    klass = arg.scope()
                    while klass is not None and not isinstance(klass, nodes.ClassDef):
                        klass = klass.parent.scope() if klass.parent is not None else None
                    func = ev.method_of(klass, arg.attrname) if klass is not None else None
                if func is not None:
                    table.setdefault(id(func), []).append((kw, call, pos))
        ev._callbacks = table
    return table


def iteration_event(ev: Evaluator, func: nodes.FunctionDef) -> Value | None:
    """The ignite engine whose per-iteration event runs ``func`` (``@trainer.on(
    Events.ITERATION_COMPLETED)`` or ``trainer.add_event_handler(Events.ITERATION_..., func)``),
    else None."""
    regs: list[tuple[nodes.NodeNG, nodes.NodeNG]] = []
    for dec in func.decorators.nodes if func.decorators else ():
        if isinstance(dec, nodes.Call) and isinstance(dec.func, nodes.Attribute) and \
                dec.func.attrname == "on" and dec.args:
            regs.append((dec.func.expr, dec.args[0]))
    for kw, call, pos in callback_sites(ev).get(id(func), []):
        if isinstance(call.func, nodes.Attribute) and call.func.attrname == "add_event_handler" \
                and pos == 1 and call.args:
            regs.append((call.func.expr, call.args[0]))
    for engine, event in regs:
        if "ITERATION" not in event.as_string():
            continue
        for v in ev.value(engine, None):
            if v.kind is Kind.FRAMEWORK and v.qual == "ignite":
                return v
    return None


TENSOR_METHODS = frozenset({
    "size", "shape", "dim", "view", "reshape", "unsqueeze", "squeeze", "transpose", "permute",
    "contiguous", "float", "half", "bfloat16", "long", "int", "bool", "masked_fill", "sum",
    "mean", "type_as", "dtype", "device", "flatten", "expand", "repeat", "chunk", "split",
    "softmax", "matmul", "narrow", "clone", "detach", "new_zeros", "new_ones", "to", "ne",
    "eq", "gt", "lt", "argmax", "max", "min", "t", "T", "numel", "nonzero", "masked_select",
    "index_select", "gather", "scatter", "cumsum", "norm", "abs", "exp", "sigmoid", "tanh"})


#: the tensor methods that a helper's parameter must be used with to count as a tensor:
#: none of them is a method of ``str``, ``list``, ``dict`` or of a config object (unlike
#: ``split``, ``dim``, ``size``, ``shape``, ``dtype``, ``device``)
HELPER_TENSOR_METHODS = frozenset({
    "view", "unsqueeze", "squeeze", "permute", "contiguous", "float", "half", "bfloat16",
    "long", "bool", "masked_fill", "sum", "mean", "type_as", "flatten", "expand", "softmax",
    "matmul", "narrow", "clone", "detach", "new_zeros", "new_ones", "to", "ne", "eq", "gt",
    "lt", "argmax", "numel", "nonzero", "masked_select", "index_select", "gather", "scatter",
    "cumsum", "sigmoid", "tanh"})


#: torch factories whose first arguments are sizes.
SIZED_FACTORIES = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.full",
                             "torch.randn", "torch.rand", "torch.arange"})


def _host_inputs(ev: Evaluator, func: nodes.FunctionDef, klass: nodes.ClassDef, name: str,
                 d: int) -> frozenset[Value] | None:
    """What the calls of the module pass for ``forward``'s parameter ``name`` in the modules
    of the project that build it (a class its own module never builds), when every one of
    them passes host data: a Python value or a CPU tensor (``loss_fn(features, targets)``
    where ``targets`` come from a host loader and are never moved), or leaves it to a
    ``None`` default (``mask=None`` that no call passes: the branches that use it never
    run). None when no call is known, or one may pass a device tensor or an unknown
    value."""
    if ev.link is None or not isinstance(klass.parent, nodes.Module) or \
            ev.calls_named(klass.name):
        # (only a class that its own module never builds: its instances' calls are the
        # importers', which the project link lists; scanning every call of the module for
        # instances, per parameter of every forward, is quadratic in a large module)
        return None
    param = next((a for a in (*func.args.posonlyargs, *func.args.args,
                              *func.args.kwonlyargs) if a.name == name), None)
    if param is None:
        return None
    passed = ev.link.forward_inputs(ev, func, klass, param, d)
    if not passed or not all(V.on_host(v) for v in passed):
        return None
    return V.join(*passed)


def _sizes_a_factory(ev: Evaluator, func: nodes.FunctionDef, name: str) -> bool:
    """The body passes parameter ``name`` as a size to a torch factory
    (``torch.zeros(num_graphs, dim)``): where it is a Python int, that reads nothing."""
    for call in ev.own_nodes(func, nodes.Call):
        if ev.qualname(call.func) in SIZED_FACTORIES and any(
                isinstance(a, nodes.Name) and a.name == name for a in call.args):
            return True
    return False


def _used_as_tensor(ev: Evaluator, func: nodes.FunctionDef, name: str, depth: int = 0
                    ) -> bool:
    """The body uses parameter ``name`` as a tensor: a tensor method or attribute on it,
    or it is the input of a submodule (``self.layer(x)``) or of a torch function, or it
    is handed to another method of the class that does so (``self.get_losses(out,
    labels)``, followed two methods deep).

    In such a helper (``depth`` > 0) only stronger evidence counts: a method that no
    string, list or config object has, the first argument of a torch function that
    computes on tensors (not a factory such as ``torch.tensor(lengths)``), or the input
    of a submodule (``self.head(x)``, not another method such as ``self.check(mode)``).
    """
    methods = TENSOR_METHODS if depth == 0 else HELPER_TENSOR_METHODS
    for node in nodes_of(func, (nodes.Attribute, nodes.Call)):
        if isinstance(node, nodes.Call) and depth < 2 and _passed_to_method_as_tensor(
                ev, func, node, name, depth):
            return True
        if isinstance(node, nodes.Attribute):
            if isinstance(node.expr, nodes.Name) and node.expr.name == name and \
                    node.attrname in methods:
                return True
            continue
        if not node.args or not (isinstance(node.args[0], nodes.Name) and
                                 node.args[0].name == name):
            continue
        f = node.func
        if isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and \
                f.expr.name == "self":
            if depth == 0 or _class_method(ev, func, f.attrname) is None:
                return True
            continue
        q = ev.qualname(f) or ""
        if q.startswith("torch.") and not q.startswith(("torch.is_", "torch.cuda.")):
            entry = ev.api.call(q)
            if depth == 0 or entry is None or entry.returns in ("tensor", "booltensor"):
                return True
    if depth > 0:
        return False
    for call in nodes_of(func, nodes.Call):
        # Any argument of a torch function that is not a factory (whose arguments are sizes).
        if any(isinstance(a, nodes.Name) and a.name == name for a in call.args[1:]):
            entry = ev.api.call(ev.qualname(call.func))
            if entry is not None and entry.returns in ("tensor", "booltensor") and \
                    (ev.qualname(call.func) or "").startswith("torch."):
                return True
    return False


def _rows_passed_on(ev: Evaluator, func: nodes.FunctionDef, name: str) -> bool:
    """``self.criterion(logits[valid], labels[valid])``: the body hands rows of parameter
    ``name``, picked by a mask or an index held in a variable, to a submodule or a torch
    function (weaker evidence than :func:`_used_as_tensor`'s)."""
    for call in nodes_of(func, nodes.Call):
        if not any(isinstance(a, nodes.Subscript) and isinstance(a.value, nodes.Name) and
                   a.value.name == name and isinstance(a.slice, nodes.Name)
                   for a in call.args):
            continue
        f = call.func
        if isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and \
                f.expr.name == "self" and _class_method(ev, func, f.attrname) is None:
            return True
        if (ev.qualname(f) or "").startswith("torch."):
            return True
    return False


def _class_method(ev: Evaluator, func: nodes.FunctionDef, name: str
                  ) -> nodes.FunctionDef | None:
    """Method ``name`` of the class that defines ``func`` or of its bases
    (:meth:`Evaluator.method_of`: a mixin's loss helper too); None for a submodule
    attribute, or when ``func`` is not a method."""
    klass = func.parent if isinstance(func.parent, nodes.ClassDef) else None
    return ev.method_of(klass, name) if klass is not None else None


def _passed_to_method_as_tensor(ev: Evaluator, func: nodes.FunctionDef, call: nodes.Call,
                                name: str, depth: int) -> bool:
    """``call`` is ``self.<method>(..., name, ...)`` of a method that ``func``'s class (or
    one of its bases) defines, and that method uses the parameter it binds
    ``name`` to as a tensor."""
    f = call.func
    if not (isinstance(f, nodes.Attribute) and isinstance(f.expr, nodes.Name) and
            f.expr.name == "self"):
        return False
    method = _class_method(ev, func, f.attrname)
    if method is None or method is func:
        return False
    params = [p.name for p in (method.args.posonlyargs or []) + (method.args.args or [])]
    if not is_staticmethod(method):
        params = params[1:]  # the receiver
    bound: list[str] = []
    for i, arg in enumerate(call.args):
        if isinstance(arg, nodes.Starred):
            break
        if isinstance(arg, nodes.Name) and arg.name == name and i < len(params):
            bound.append(params[i])
    kwonly = {k.name for k in method.args.kwonlyargs or []}
    bound += [kw.arg for kw in call.keywords or () if kw.arg is not None and
              isinstance(kw.value, nodes.Name) and kw.value.name == name and
              (kw.arg in params or kw.arg in kwonly)]
    return any(_used_as_tensor(ev, method, p, depth + 1) for p in bound)


def _callee_kind(ev: Evaluator, call: nodes.Call, d: int) -> tuple[str | None, Value | None]:
    q = ev.qualname(call.func)
    if q is not None:
        return q, None
    for v in ev.value(call.func, None, d):
        if v.kind is Kind.FRAMEWORK:
            return f"framework:{v.qual}", v
        if v.kind is Kind.REF:
            return v.qual, v
    return None, None


def _bases(ev: Evaluator, klass: nodes.ClassDef) -> list[str]:
    out = []
    for base in klass.bases:
        q = ev.qualname(base)
        if q is not None:
            out.append(q)
        elif isinstance(base, nodes.Name):
            for b in ev.bindings(base):
                if isinstance(b, nodes.ClassDef) and b is not klass:
                    out.extend(_bases(ev, b))
    return out


def param_value(ev: Evaluator, func: nodes.NodeNG, name: str, d: int
                ) -> frozenset[Value] | None:
    """The value a framework passes to parameter ``name`` of ``func``, or None."""
    params = ev._params(func)
    if name not in params:
        return None
    idx = params.index(name)
    if idx == 0 and isinstance(func, nodes.FunctionDef):
        engine = iteration_event(ev, func)
        if engine is not None:
            return frozenset({engine})
    klass = func.parent if isinstance(func.parent, nodes.ClassDef) else None
    if klass is not None and isinstance(func, nodes.FunctionDef):
        found = _method_param(ev, klass, func, idx, d)
        if found is not None:
            return found
        if (func.name == "forward" and ev.class_kind(klass) is Kind.MODULE or
                is_library_hook(ev, func)) and idx >= 1 and not ev.call_sites(func):
            # A module's forward runs on the tensors of each step: an input without a
            # default is a tensor on the module's device; a None default may be one too.
            # Where every call of the model in its module passes a Python value for it
            # (a batch's ``data["num_graphs"]``, an int its collate function counted),
            # that is what it gets: no tensor.
            passed = ev._site_values(
                func, [(call, True) for call in ev.module_calls(klass, func)[:MAX_SITES]],
                name, d) if func.name == "forward" and _sizes_a_factory(ev, func, name) else []
            if passed and all(v and all(x.kind is Kind.HOST and x.qual != "none" for x in v)
                              for v in passed):
                return V.join(*passed)
            if func.name == "forward":
                host = _host_inputs(ev, func, klass, name, d)
                if host is not None:
                    return host
            default = ev._default(func, name, d)
            ann = ev._annotation(func, name)
            if ann is not None:
                return V.join(ann, default) if default is not UNKNOWN_SET else ann
            if not _used_as_tensor(ev, func, name):
                if default is not UNKNOWN_SET and all(
                        v.kind is Kind.HOST and v.qual == "none" for v in default) and \
                        _rows_passed_on(ev, func, name):
                    # ``labels=None`` ... ``if labels is None: return logits`` ...
                    # ``loss(logits[valid], labels[valid])``: what the model's calls pass
                    # (Evaluator._free_param), not the default alone
                    return None
                return default if default is not UNKNOWN_SET else None
            if default is UNKNOWN_SET:
                return V.tensor(None, flags=frozenset({"input"}))
            if all(v.kind is Kind.HOST and v.qual == "none" for v in default):
                return V.join(V.tensor(None, flags=frozenset({"input"})), default)
            return default
    for kw, call, pos in callback_sites(ev).get(id(func), []):
        callee, _ = _callee_kind(ev, call, d)
        if callee == "framework:data_parallel":
            # ``model_parallel(loop_fn, loader)`` runs ``loop_fn(model, per-device loader of
            # loader, device, context)`` on each device
            if idx == 1:
                fed = ev.value(call.args[pos + 1], None, d) \
                    if 0 <= pos < len(call.args) - 1 else None
                return one(Kind.LOADER, flags=frozenset({"xla", "indexed"}), bound=fed)
            return [one(Kind.MODULE, device="xla"), None, one(Kind.DEVICE, device="xla"),
                    V.host()][idx] if idx < 4 else None
        if kw == "collate_fn" and idx == 0:
            return one(Kind.LIST, elem=V.tensor("cpu"))
        if callee in ("ignite.engine.Engine",) and pos == 0:
            if idx == 0:
                return one(Kind.FRAMEWORK, qual="ignite", node=call)
            if idx == 1:
                return _ignite_batches(ev, call, d)
        if callee == "torch_xla.core.xla_model.add_step_closure" and pos == 0:
            return UNKNOWN_SET
        if pos == 0 and any(e.does("launch") for e in ev.call_entries(call)):
            return _launched_param(ev, call, idx, d)
    return None


def _launched_param(ev: Evaluator, call: nodes.Call, idx: int, d: int
                    ) -> frozenset[Value] | None:
    """Parameter ``idx`` of the function ``xmp.spawn(fn, args=(...))`` or
    ``torch_xla.launch(fn, args=(...))`` starts: each process calls ``fn(index, *args)``
    (torch_xla ``torch_xla.py`` ``launch``, ``distributed/xla_multiprocessing.py``), so
    the first is the process index and the others the ``args`` tuple's items (written
    out, or held by a name bound to one; None, so the call sites decide, otherwise)."""
    if idx == 0:
        return V.host("int")
    packed = keyword(call, "args")
    if packed is None and len(call.args) > 1:
        packed = call.args[1]
    if isinstance(packed, nodes.Name):
        # ``arg_list = (world_size, device, cfg)`` then ``xmp.spawn(fn, args=arg_list)``:
        # the items of the tuple the name holds
        held = ev.value(packed, None, d)
        if len(held) == 1 and (v := next(iter(held))).kind in (Kind.TUPLE, Kind.LIST) and \
                v.elts is not None and idx <= len(v.elts):
            return v.elts[idx - 1]
        return None
    if not isinstance(packed, (nodes.Tuple, nodes.List)) or any(
            isinstance(e, nodes.Starred) for e in packed.elts) or idx > len(packed.elts):
        return None
    return ev.value(packed.elts[idx - 1], None, d)


#: Words of a model's private methods that run at set-up or checkpoint time, not per step
#: (transformers ``modeling_utils.py``: ``_init_weights``, ``_tie_or_clone_weights``,
#: ``_set_gradient_checkpointing``; torch ``_load_from_state_dict``).
SETUP_HOOK_WORDS = frozenset({"init", "initialize", "weights", "weight", "load", "save",
                              "state", "checkpointing", "tie", "resize", "prune", "hook",
                              "config", "register"})


def _runs_base_forward(forward: nodes.FunctionDef) -> bool:
    """``forward`` calls the base class's: ``super().forward(...)``."""
    for call in nodes_of(forward, nodes.Call):
        f = call.func
        if is_super_call(call) and f.attrname == "forward":
            return True
    return False


def is_library_hook(ev: Evaluator, func: nodes.NodeNG) -> bool:
    """``func`` is a private method that a subclass of a library model (``class
    XLALlava(LlavaForConditionalGeneration)``, no ``forward`` of its own or one that runs
    ``super().forward(...)``) overrides and the
    module never calls: the library's forward calls it once per step, with the step's
    tensors (``_merge_input_ids_with_image_features``, ``_update_causal_mask``). Methods
    named for set-up or checkpoint phases (:data:`SETUP_HOOK_WORDS`: ``_init_weights``,
    ``_load_from_state_dict``) are not."""
    if not isinstance(func, nodes.FunctionDef) or not func.name.startswith("_") or \
            func.name.startswith("__") or func.decorators or not func.args.args or \
            func.args.args[0].name != "self":
        return False
    klass = func.parent
    if not isinstance(klass, nodes.ClassDef) or not any(
            (ev.qualname(b) or "").startswith(MODULE_BASES) for b in klass.bases):
        return False
    forward = next((m for m in klass.body if isinstance(m, nodes.FunctionDef) and
                    m.name == "forward"), None)
    if forward is not None and not _runs_base_forward(forward):
        return False
    if not SETUP_HOOK_WORDS.isdisjoint(words_of_text(func.name)) or \
            ev.calls_named(func.name) or ev.class_kind(klass) is not Kind.MODULE:
        return False
    return ev.link is None or not ev.link.method_called_elsewhere(func)


def is_lightning_callback(bases: list[str]) -> bool:
    """``bases`` (qualified names, see :func:`_bases`) hold Lightning's ``Callback`` or one
    of its callbacks (``lightning/pytorch/callbacks/callback.py``): the Trainer calls its
    ``on_train_batch_end(trainer, pl_module, outputs, batch, batch_idx)`` after every
    training batch."""
    return any(b.startswith(("lightning.", "pytorch_lightning.")) and (
        b.endswith(".Callback") or ".callbacks." in b) for b in bases)


def _method_param(ev: Evaluator, klass: nodes.ClassDef, func: nodes.FunctionDef, idx: int,
                  d: int) -> frozenset[Value] | None:
    bases = _bases(ev, klass)
    lightning = any(b.endswith("LightningModule") for b in bases)
    trainer = any(b.startswith("transformers.") and b.endswith("Trainer") for b in bases)
    dataset = any(b.endswith(("Dataset", "IterableDataset")) for b in bases)
    if lightning and func.name in LIGHTNING_STEP_HOOKS:
        if idx == 1:
            return V.tensor(None, flags=frozenset({"hook"}))
        if idx >= 2:
            return V.host("int")
    if lightning and func.name in LIGHTNING_BATCH_HOOKS and idx >= 1:
        return V.host("int") if idx == len(func.args.args) - 1 else V.tensor(None)
    if is_lightning_callback(bases) and func.name in LIGHTNING_BATCH_HOOKS and idx >= 2:
        # ``on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx)``: the
        # module, then the step's outputs and batch (on the device), then the index
        if idx == 2:
            return one(Kind.MODULE)
        return V.host("int") if idx == len(func.args.args) - 1 else V.tensor(None)
    if trainer and func.name in HF_TRAINER_HOOKS:
        if idx == 1:
            return one(Kind.MODULE)
        if idx == 2:
            return one(Kind.DICT, items=(), elem=V.tensor(None))
    if trainer and func.name in HF_TRAINER_LOG_HOOKS and idx == 1:
        return V.tensor(None)  # ``tr_loss``, the running loss on the device
    if dataset and func.name == "__getitem__" and idx == 1:
        return V.host("int")
    return None


def _ignite_batches(ev: Evaluator, engine_call: nodes.Call, d: int) -> frozenset[Value]:
    """The batches of ``engine.run(data)`` for the Engine built at ``engine_call``."""
    found = []
    for call in ev.module_nodes(nodes.Call):
        f = call.func
        if isinstance(f, nodes.Attribute) and f.attrname == "run" and call.args:
            for v in ev.value(f.expr, None, d):
                if v.kind is Kind.FRAMEWORK and v.node is engine_call:
                    found.append(ev.iterate(ev.value(call.args[0], None, d), d))
    return V.join(*found) if found else V.tensor(None)


def framework_attr(ev: Evaluator, v: Value, attr: str, d: int) -> frozenset[Value]:
    """``<framework object>.attr``: accelerate's ``device``, ignite's ``state.output`` ..."""
    if v.qual == "ignite":
        if attr == "state":
            return one(Kind.FRAMEWORK, qual="ignite.state", node=v.node)
        return UNKNOWN_SET
    if v.qual == "ignite.state":
        if attr == "output" and isinstance(v.node, nodes.Call) and v.node.args:
            fn = v.node.args[0]
            for fv in ev.value(fn, None, d):
                if fv.kind is Kind.FUNCTION and fv.node is not None:
                    return ev.returns(fv.node, None, d)
            return UNKNOWN_SET
        if attr in ("iteration", "epoch", "max_epochs", "epoch_length", "metrics", "times"):
            return V.host()
        if attr == "dataloader":
            return one(Kind.LOADER)
        return UNKNOWN_SET
    if attr == "device":
        return one(Kind.DEVICE)
    if attr in ("is_main_process", "is_local_main_process", "num_processes", "process_index",
                "local_process_index", "distributed_type", "state", "sync_gradients",
                "gradient_accumulation_steps", "mixed_precision", "global_rank", "world_size",
                "local_rank", "node_rank", "use_distributed_sampler"):
        return V.host()
    return UNKNOWN_SET
