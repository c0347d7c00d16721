"""Step loops and step regions, by what the code does.

A loop is a **training step loop** when each iteration runs ``backward()`` or an
optimizer step (``optimizer.step()``, ``xm.optimizer_step``, ``scaler.step``,
``accelerator.backward``) on its own or through the functions it calls, whatever it
iterates. It is an **evaluation step loop** when each iteration runs a forward pass
(a call of a module value with new inputs), unless it iterates the modules themselves
(``for layer in self.layers``) or sits in a module's ``forward``. A loop over an XLA
loader, or with a barrier of its own, is a step loop too, and so is a **generation
loop**: one whose iterations call a function running a decode loop (forward passes with
no data, training or barrier of their own: ``for prompt in prompts: greedy(model,
ids)``), one step per item. A **step function** runs one
training step without a loop (``def train_step(batch): loss.backward(); opt.step()``),
or is a framework's step hook (ignite's process function, Lightning's
``training_step``, the Trainer's ``compute_loss``).

The **step region** is every node that runs once per step: the bodies of step loops and
step functions and of the module functions they call (with the call's argument values
bound), without the blocks that run once (:func:`~flake8_xla.analysis.paths.runs_once`),
the branches off the XLA path, step closures, compiled functions and callees that have
step loops of their own; plus loops and comprehensions over a model's parameters
(``per_param``).

Source: PyTorch/XLA "PyTorch on XLA Devices" (a step ends at ``torch_xla.sync()``,
``xm.mark_step()``, ``xm.optimizer_step(..., barrier=True)`` or the next batch of an
``MpDeviceLoader``) and the ``xm.add_step_closure`` API docs.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from astroid import nodes

from flake8_xla.analysis import values as V
from flake8_xla.analysis.flows import (
    SCOPES,
    Ctx,
    enclosing_class,
    enclosing_function,
    iter_argument,
    syntax_cache,
    unit_test_spans,
)
from flake8_xla.analysis.hooks import is_library_hook, is_partial
from flake8_xla.analysis.names import callee_name, keyword, words_of_text
from flake8_xla.analysis.paths import (
    enclosing_loop,
    in_failing_branch,
    in_nonfinite_branch,
    off_xla_path,
    runs_once,
)
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.analysis.values import Kind
from flake8_xla.testcode import in_spans

if TYPE_CHECKING:
    from flake8_xla.analysis import Analyzer
    from flake8_xla.analysis.flows import Evaluator

MAX_CALL_DEPTH = 3
#: Last name parts of every update call of the API model (backward, optimizer and scaler
#: steps); ``tests/test_robustness.py`` checks the model against it.
UPDATE_NAMES = frozenset({"backward", "step", "optimizer_step"})
LOOPS = (nodes.For, nodes.While)
#: A trainer's per-batch methods: the training step, and the evaluation step it runs too.
TRAIN_STEP_NAME = re.compile(r"(train|training)(_one)?_(step|batch)")
EVAL_STEP_NAME = re.compile(
    r"(val|valid|validation|validate|eval|evaluate|evaluation|test|predict)(_one)?_(step|batch)")
COMPILE_CONTEXTS = frozenset({"torch_xla.step", "torch_xla.compile",
                              "torch_xla.debug.profiler.StepTrace"})
STEP_CLOSURE = "torch_xla.core.xla_model.add_step_closure"


#: Library namespaces whose functions are never a model's forward pass.
LIBRARY_FUNCTIONS = ("torch.", "torch_xla.", "numpy.", "math.", "os.", "time.", "logging.",
                     "random.", "json.", "re.", "sys.", "functools.", "itertools.")


#: Calls that gather data transforms into one (``nn.Sequential(Clip(), Crop(98))``).
TRANSFORM_PIPELINES = frozenset({"torch.nn.Sequential", "torchvision.transforms.Compose",
                                 "torchvision.transforms.v2.Compose",
                                 "torchaudio.transforms.Sequential"})


def _fed_to_a_dataset(ev: Evaluator, call: nodes.Call) -> bool:
    """What ``call`` builds (alone or inside a transform pipeline, or a list of
    transforms) is handed to a Dataset's constructor or as a ``transform=``-like keyword
    (``KeywordDataset(csv, transform=tf)``), directly or through a name of its function
    that nothing else reads."""
    expr: nodes.NodeNG = call
    while isinstance(expr.parent, (nodes.List, nodes.Tuple)) or (
            isinstance(expr.parent, nodes.Call) and expr in expr.parent.args and
            (ev.qualname(expr.parent.func) or "") in TRANSFORM_PIPELINES):
        expr = expr.parent
    if _handed_to_a_dataset(ev, expr):
        return True
    stmt = expr.parent
    if not (isinstance(stmt, nodes.Assign) and stmt.value is expr and
            len(stmt.targets) == 1 and isinstance(stmt.targets[0], nodes.AssignName)):
        return False
    name, scope = stmt.targets[0].name, expr.scope()
    uses = [n for n in ev.name_uses(name) if n.scope() is scope]
    return bool(uses) and all(_handed_to_a_dataset(ev, n) for n in uses)


def _handed_to_a_dataset(ev: Evaluator, expr: nodes.NodeNG) -> bool:
    """``expr`` is an argument of a Dataset's constructor, or a ``transform=``-like
    keyword of a call that builds no module."""
    parent = expr.parent
    named = False
    if isinstance(parent, nodes.Keyword):
        named = "transform" in (parent.arg or "")
        parent = parent.parent
    elif not (isinstance(parent, nodes.Call) and expr in parent.args):
        return False
    if not isinstance(parent, nodes.Call):
        return False
    kinds = {v.kind for v in ev.value(parent)}
    # (``transform=`` of a call of unknown kind: a dataset's or a data module's, never a
    # model that runs it on the device)
    return Kind.DATASET in kinds or named and Kind.MODULE not in kinds


def end_of_data_handler(handler: nodes.ExceptHandler) -> bool:
    """``except StopIteration:`` (only that exception) of a ``try`` whose body calls
    ``next(...)``: ``batch = next(it)`` found the data exhausted, so the handler runs once
    per pass over the data (an epoch's end), not once per step (syntax only)."""
    caught = handler.type
    names = caught.elts if isinstance(caught, nodes.Tuple) else [caught]
    if not names or not all(isinstance(n, nodes.Name) and n.name == "StopIteration"
                            for n in names):
        return False
    body = handler.parent.body if isinstance(handler.parent, nodes.Try) else []
    return any(isinstance(c.func, nodes.Name) and c.func.name == "next"
               for stmt in body for c in nodes_of(stmt, nodes.Call))


def set_once_branch(branch: nodes.If) -> bool:
    """``if not hasattr(self, "n"): self.n = t.item()``: the body sets the attribute
    that the test asks for, so it runs on the first call only (a value cached on the
    object), not once per step (syntax only)."""
    test = branch.test
    if not (isinstance(test, nodes.UnaryOp) and test.op == "not" and
            isinstance(test.operand, nodes.Call) and
            isinstance(test.operand.func, nodes.Name) and test.operand.func.name == "hasattr"
            and len(test.operand.args) == 2 and isinstance(test.operand.args[1], nodes.Const)
            and isinstance(test.operand.args[1].value, str)):
        return False
    owner, name = test.operand.args[0].as_string(), test.operand.args[1].value
    return any(isinstance(t, nodes.AssignAttr) and t.attrname == name and
               t.expr.as_string() == owner
               for stmt in branch.body for t in nodes_of(stmt, nodes.AssignAttr))


def _if_children(branch: nodes.If) -> list[nodes.NodeNG]:
    """The children of an ``if`` that run each time it runs: all of them, but only the
    test and the ``else`` of a :func:`set_once_branch` (its body runs once)."""
    if set_once_branch(branch):
        return [branch.test, *branch.orelse]
    return list(branch.get_children())


def _args_mention(call: nodes.Call, names: set[str]) -> bool:
    """An argument of ``call`` (positional or keyword) reads one of ``names``."""
    return any(name.name in names for arg in [*call.args, *(
        kw.value for kw in call.keywords or ())] for name in nodes_of(arg, nodes.Name))


def _is_batch_index(name: str) -> bool:
    """A framework hook's batch-index parameter: ``batch_idx``, ``batch_nb``,
    ``batch_index``, ``nb_batch`` (not ``optimizer_idx`` or ``dataloader_idx``)."""
    low = name.lower()
    return "batch" in low and any(w in low for w in ("idx", "nb", "index", "num"))


def _batch_index_branch(node: nodes.NodeNG, func: nodes.NodeNG) -> bool:
    """``node`` sits in the body of an ``if`` of the step hook ``func`` that tests its
    batch-index parameter against one integer (``if batch_idx == 0 and ...:``): the
    framework passes each index once per epoch, so the block runs once per epoch, not
    once per step (sample audio or images written for the first batch)."""
    if not isinstance(func, nodes.FunctionDef):
        return False
    params = {a.name for a in func.args.args if _is_batch_index(a.name)}
    if not params:
        return False

    def equals(test: nodes.NodeNG) -> bool:
        if isinstance(test, nodes.BoolOp) and test.op == "and":
            return any(equals(v) for v in test.values)
        if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and
                test.ops[0][0] == "=="):
            return False
        sides = (test.left, test.ops[0][1])
        return any(isinstance(a, nodes.Name) and a.name in params for a in sides) and \
            any(isinstance(b, nodes.Const) and type(b.value) is int for b in sides)

    child, cur = node, node.parent
    while cur is not None and cur is not func:
        if isinstance(cur, nodes.If) and any(s is child for s in cur.body) and \
                equals(cur.test):
            return True
        child, cur = cur, cur.parent
    return False


#: Method names that store or record what they are handed (``metric.update(preds, y)``,
#: ``member.set_anchors(t)``, ``meter.add(loss)``, ``buffer.push(obs)``): an object's
#: bookkeeping, never its forward pass, whatever the object is.
#: (Not ``update``, nor ``log_``: an agent's ``update(batch)`` runs a training step, a
#: distribution's ``log_prob(x)`` computes on its input.)
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "push", "put",
                             "record", "store", "write", "log", "save", "accumulate",
                             "load_state_dict", "copy_", "fill_"})
STORING_PREFIXES = ("set_", "add_", "record_", "register_", "store_", "write_", "save_",
                    "push_", "append_")


def _stores(method: str) -> bool:
    """``method`` names a call that stores what it is handed (:data:`STORING_METHODS`)."""
    return method in STORING_METHODS or method.startswith(STORING_PREFIXES)


def _conditional_in(node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    """``node`` runs only on some iterations of ``loop``: it sits in an arm of an ``if``
    (or of a conditional expression, an ``and``/``or``, a ``try`` handler) inside it."""
    child, cur = node, node.parent
    while cur is not None and cur is not loop:
        if isinstance(cur, (nodes.If, nodes.IfExp)) and child is not cur.test or \
                isinstance(cur, nodes.BoolOp) and child is not cur.values[0] or \
                isinstance(cur, nodes.ExceptHandler):
            return True
        child, cur = cur, cur.parent
    return False


def _innermost_loop(node: nodes.NodeNG, loop: nodes.NodeNG) -> bool:
    """``loop`` is the innermost loop whose body holds ``node`` (a yield in an inner
    ``for`` over the loader runs once per batch, a barrier after that inner loop once per
    pass)."""
    return enclosing_loop(node, keep=lambda lp: any(
        s is node or s.parent_of(node) for s in lp.body)) is loop


def single_pass(loop: nodes.NodeNG) -> bool:
    """``loop`` (a ``for`` or ``while``) runs its body once at most: a statement of the body
    itself (not nested in an ``if`` or ``try``) is ``break``, and no ``continue`` of this
    loop (one outside its inner loops and functions) can start another pass first
    (``for i, batch in enumerate(loader): ...; break``, a probe of the first batch).
    Syntax only."""
    body = getattr(loop, "body", None)
    if not body or not any(isinstance(stmt, nodes.Break) for stmt in body):
        return False
    stack: list[nodes.NodeNG] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Continue):
            return False
        if isinstance(node, (nodes.For, nodes.While)):
            stack.extend(node.orelse)  # (an inner loop's own ``continue``s are its own)
            continue
        if isinstance(node, (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef)):
            continue
        stack.extend(node.get_children())
    return True


class Steps:
    """Step-loop questions about one module, memoised."""

    def __init__(self, an: Analyzer) -> None:
        self.an = an
        self.ev = an.ev
        self._memo: dict[tuple[str, int], bool] = {}
        self._name_uses: Counter[str] | None = None
        self._region: list[tuple[nodes.NodeNG, Ctx | None, bool]] | None = None
        self._closures: set[int] | None = None
        self._compiled: dict[int, bool] = {}
        self._calls: dict[tuple[int, Ctx | None, bool],
                          list[tuple[nodes.Call, Ctx | None]]] = {}
        self.model_loop_nodes: set[int] = set()
        #: region nodes that some step loop over data (or step function, forward) runs
        self.data_step_nodes: set[int] = set()
        self.step_function_nodes: set[int] = set()
        #: region nodes of an evaluation step method (see is_eval_step_function)
        self.eval_step_nodes: set[int] = set()
        self.training_nodes: set[int] = set()
        self.forward_nodes: set[int] = set()
        self.strong_nodes: set[int] = set()
        #: strong nodes that only another module's step with a context made strong (see
        #: is_strong_in)
        self._ctx_strong_only: set[int] = set()
        self._defined_names: frozenset[str] | None = None
        #: functions of other project modules the step region calls: ``(func, ctx, kind)``
        #: with kind ``"training"``, ``"barrier"`` (a step loop with a barrier), ``"step"``,
        #: ``"model"`` (a loop over models or configs, not data) or ``"forward"`` (read by
        #: the link, which makes them step-region roots of their own module)
        self.foreign_calls: list[tuple[nodes.NodeNG, Ctx | None, str]] = []
        #: region nodes that run per step because another module's step calls their
        #: function: node id -> that module's index key (for messages)
        self.root_origin: dict[int, str] = {}
        #: the call of this module's step region that a followed function's context came
        #: from, with the caller's own context: ``ctx -> (call, caller ctx)`` (the first)
        self.ctx_calls: dict[Ctx, tuple[nodes.Call, Ctx | None]] = {}
        self._kind = "step"

    # ------------------------------------------------------------------ calls
    def update_kind(self, call: nodes.Call, ctx: Ctx | None = None) -> str | None:
        """``"backward"``, ``"optimizer_step"`` or ``"scaler_step"`` for an update call."""
        if callee_name(call.func) not in UPDATE_NAMES:
            return None  # syntax first (the API model's update calls all end in these)
        for e in self.ev.call_entries(call, ctx):
            for eff in ("backward", "optimizer_step", "scaler_step"):
                if e.does(eff):
                    return eff
        return None

    def is_update_call(self, call: nodes.Call, ctx: Ctx | None = None) -> bool:
        """``loss.backward()``, ``optimizer.step()``, ``xm.optimizer_step``, ``scaler.step``."""
        return self.update_kind(call, ctx) is not None

    def is_barrier_call(self, call: nodes.Call, ctx: Ctx | None = None) -> bool:
        """``torch_xla.sync()``, ``xm.mark_step()``, ``optimizer_step(barrier=True)``, ...

        Also ``next()`` of an XLA loader (MpDeviceLoader marks the step) and a call of a
        function compiled with ``torch_xla.compile``.
        """
        for e in self.ev.call_entries(call, ctx):
            if e.barrier:
                return True
            if e.barrier_kw:
                b = keyword(call, e.barrier_kw)
                if b is None:
                    b = self._partial_keyword(call, e.barrier_kw)
                return b is not None and not (isinstance(b, nodes.Const) and not b.value)
            if e.returns == "elem:arg" and call.args and self.loader_kind(
                    self.ev.value(call.args[0], ctx)) in ("xla", "managed"):
                return True
        for func, _ in self.ev.functions_called(call, ctx):
            steps = self.steps_for(func)
            if isinstance(func, nodes.FunctionDef) and steps is not None and \
                    steps.is_compiled(func):
                return True
        return False

    def _partial_keyword(self, call: nodes.Call, name: str) -> nodes.NodeNG | None:
        """The keyword ``name`` that ``functools.partial`` bound into the function ``call``
        runs (``step = partial(xm.optimizer_step, barrier=True)``, then ``step(opt)``):
        its expression when every binding of the called name is such a partial, else
        None."""
        if not isinstance(call.func, nodes.Name):
            return None
        found = None
        for b in self.ev.bindings(call.func):
            value = b.parent.value if isinstance(b, nodes.AssignName) and isinstance(
                b.parent, nodes.Assign) else None
            if not isinstance(value, nodes.Call) or not is_partial(self.ev, value):
                return None
            kw = keyword(value, name)
            if kw is None:
                return None
            found = kw
        return found

    def is_forward_call(self, call: nodes.Call, ctx: Ctx | None = None,
                        loop: nodes.NodeNG | None = None) -> bool:
        """A forward pass: a call of a module value (not of a loop's own module elements)."""
        func = call.func
        if loop is not None and isinstance(loop, nodes.For) and isinstance(func, nodes.Name) and \
                any(t.name == func.name for t in nodes_of(loop.target, nodes.AssignName)):
            return False
        q = self.an.qualname(func)
        if q is not None and ("." not in q or q.startswith(LIBRARY_FUNCTIONS)):
            return False  # a builtin or a library function (``torch.cat``, ``len``)
        vs = self.ev.value(func, ctx)
        if any(v.kind is Kind.MODULE and v.device != "cpu" for v in vs):
            return not self._inside_forward(call)
        if not V.is_known(vs) and not q and not (
                isinstance(func, nodes.Attribute) and (
                    self._known_non_module(func.expr, ctx) or _stores(func.attrname))) \
                and any(
                V.holds_lazy(self.ev.value(a, ctx)) for a in [*call.args, *(
                    k.value for k in call.keywords or ())]):
            # A callable of unknown value run on lazy tensors (a model passed in as a
            # parameter): a forward pass, unless it is inside a module's own forward.
            return not self._inside_forward(call)
        if isinstance(func, nodes.Attribute) and func.attrname in ("generate", "forward"):
            base = self.ev.value(func.expr, ctx)
            if any(v.kind is Kind.MODULE and v.device != "cpu" for v in base):
                return not self._inside_forward(call)
        return False

    def _known_non_module(self, base: nodes.NodeNG, ctx: Ctx | None) -> bool:
        """``kv_caches.append(...)``: a method of a value known not to be a module."""
        vs = self.ev.value(base, ctx)
        return V.is_known(vs) and not any(v.kind in (Kind.MODULE, Kind.OBJECT) for v in vs)

    @staticmethod
    def _inside_forward(node: nodes.NodeNG) -> bool:
        """In a class's ``forward`` (layers run in turn) or ``__init__`` (construction)."""
        func = enclosing_function(node)
        while func is not None:
            if isinstance(func, nodes.FunctionDef) and func.name in ("forward", "__init__") \
                    and enclosing_class(func) is not None:
                return True
            func = enclosing_function(func)
        return False

    def loader_kind(self, vs: frozenset[V.Value]) -> str | None:
        """``"xla"`` (batches on the device, barrier per batch), ``"managed"``, ``"plain"``
        (a torch DataLoader or a host iterable), or None (not known)."""
        kinds = set()
        for v in vs:
            kinds.add(self._loader_kind_of(v, 0))
        if not kinds or None in kinds:
            return None
        if len(kinds) == 1:
            return kinds.pop()
        return None

    def _loader_kind_of(self, v: V.Value, depth: int) -> str | None:
        if depth > 6:
            return None
        k = v.kind
        if k is Kind.LOADER:
            if v.has("managed"):
                return "managed"
            if v.has("xla"):
                return "xla"
            if v.has("parallel"):
                return None
            if v.has("custom") and isinstance(v.node, nodes.ClassDef):
                inner = self._custom_loader_kind(v, depth)
                return inner if inner is not None else "plain"
            if v.has("plain"):
                return "plain"
            return None
        if k is Kind.ITERATOR and isinstance(v.node, nodes.FunctionDef) and \
                self._syncs_per_yield(v.node):
            # a generator that yields a batch and runs a barrier in the same iteration
            return "xla"
        if k in (Kind.PROGRESS, Kind.ITERATOR) and v.bound is not None:
            inner = {self._loader_kind_of(b, depth + 1) for b in v.bound}
            if v.has("zip") and inner & {"xla", "managed"}:
                # every iteration of a zip takes the next batch of the XLA loader in it
                return "managed" if "managed" in inner else "xla"
            return inner.pop() if len(inner) == 1 else None
        if k in (Kind.PROGRESS, Kind.ITERATOR) and v.elem is not None and not v.bound:
            return "plain" if not V.is_lazy(v.elem) else None
        if k in (Kind.LIST, Kind.TUPLE, Kind.HOST, Kind.DATASET):
            return "plain"
        if k is Kind.TENSOR:
            return "plain"
        if k is Kind.OBJECT and isinstance(v.node, nodes.ClassDef):
            return self._custom_loader_kind(v, depth)
        return None

    def _custom_loader_kind(self, v: V.Value, depth: int) -> str | None:
        method = self.ev.method_of(v.node, "__iter__")
        if method is None:
            return None
        if self._syncs_per_yield(method):
            return "xla"
        ret = self.ev.returns(method, self.ev.bind_self(method, v, None), 0)
        kinds = set()
        for r in ret:
            if r.kind is Kind.ITERATOR and r.bound is not None:
                kinds.update(self._loader_kind_of(b, depth + 1) for b in r.bound)
            elif r.kind is Kind.ITERATOR:
                # a generator: its batches come from the loops of __iter__
                kinds.add(self._generator_kind(method))
            else:
                kinds.add(self._loader_kind_of(r, depth + 1))
        return kinds.pop() if len(kinds) == 1 else None

    def wrapped_loaders(self, v: V.Value) -> frozenset[V.Value]:
        """What an instance of a wrapper class iterates in its ``__iter__`` (``for b in
        self.dl: yield to_device(b)``, or a prefetcher's ``it = iter(self.dl)``), with that
        instance's attributes."""
        method = self.ev.method_of(v.node, "__iter__")
        if method is None:
            return V.EMPTY
        ctx = self.ev.bind_self(method, v, None)
        found = [self.ev.value(loop.iter, ctx)
                 for loop in nodes_of(method, nodes.For, skip_klass=SCOPES)]
        found += [self.ev.value(src, ctx)
                  for c in nodes_of(method, nodes.Call, skip_klass=SCOPES)
                  if (src := iter_argument(c)) is not None]
        return V.join(*found) if found else V.EMPTY

    def _syncs_per_yield(self, method: nodes.FunctionDef) -> bool:
        """A generator method whose loop yields a batch and runs a barrier in the same
        iteration (``for batch in self.loader: yield to_device(batch); torch_xla.sync()``):
        a barrier per batch, where MpDeviceLoader places it (when the consuming loop asks
        for the next batch)."""
        home = self.steps_for(method)
        return home is not None and any(
            any(_innermost_loop(y, loop) for y in nodes_of(loop, 
                nodes.Yield, skip_klass=SCOPES)) and
            any(home.is_barrier_call(c, cx) and not _conditional_in(c, loop)
                for c, cx in home.calls_in(loop, into_loops=False))
            for loop in nodes_of(method, LOOPS, skip_klass=SCOPES))

    def _generator_kind(self, method: nodes.FunctionDef) -> str | None:
        for loop in nodes_of(method, nodes.For, skip_klass=SCOPES):
            kind = self.loader_kind(self.ev.value(loop.iter))
            if kind is not None:
                return kind
        return None

    # ------------------------------------------------------------------ bodies
    def body_nodes(self, loop: nodes.NodeNG, *, into_loops: bool) -> Iterator[nodes.NodeNG]:
        """Nodes run by each iteration of ``loop`` (its body, not its header or else)."""
        for stmt in loop.body:
            if isinstance(stmt, (nodes.FunctionDef, nodes.ClassDef)):
                continue
            if not into_loops and isinstance(stmt, LOOPS):
                continue
            yield stmt
            yield from self.walk_shallow(stmt, into_loops=into_loops)

    def walk_shallow(self, node: nodes.NodeNG, *, into_loops: bool = True
                     ) -> Iterator[nodes.NodeNG]:
        """Descendants of ``node`` that run when it runs: skips nested defs, lambdas,
        classes, ``except StopIteration:`` handlers (:func:`end_of_data_handler`: they
        run once per pass over the data, when ``next(it)`` finds it exhausted) and the
        bodies of ``if not hasattr(self, "n"): self.n = ...`` (:func:`set_once_branch`:
        the first call only)."""
        stack = list(reversed(_if_children(node) if isinstance(node, nodes.If) else
                              list(node.get_children())))
        while stack:
            child = stack.pop()
            if isinstance(child, SCOPES):
                continue
            if not into_loops and isinstance(child, LOOPS):
                continue
            if isinstance(child, nodes.ExceptHandler) and end_of_data_handler(child):
                continue
            yield child
            stack.extend(reversed(_if_children(child) if isinstance(child, nodes.If) else
                                  list(child.get_children())))

    def function_body(self, func: nodes.NodeNG) -> list[nodes.NodeNG]:
        """The nodes of a function's body (nested defs excluded)."""
        if isinstance(func, nodes.Lambda):
            return [func.body, *self.walk_shallow(func.body)]
        return [n for stmt in func.body if not isinstance(stmt, (nodes.FunctionDef,
                                                                  nodes.ClassDef))
                for n in [stmt, *self.walk_shallow(stmt)]]

    def calls_in(self, holder: nodes.NodeNG, ctx: Ctx | None = None, *, into_loops: bool,
                 depth: int = 0, seen: set[int] | None = None
                 ) -> Iterator[tuple[nodes.Call, Ctx | None]]:
        """Calls run per iteration of a loop (or per call of a function), following the
        module's functions ``MAX_CALL_DEPTH`` deep, each with its context.

        A loop's or function's own list (``depth`` 0) is computed once: the step
        questions (training, forward, barrier, CPU training) all walk it.
        """
        if depth == 0 and seen is None:
            key = (id(holder), ctx, into_loops)
            found = self._calls.get(key)
            if found is None:
                found = self._calls[key] = list(self._calls_in(
                    holder, ctx, into_loops=into_loops, depth=0, seen=set()))
            return iter(found)
        return self._calls_in(holder, ctx, into_loops=into_loops, depth=depth,
                              seen=seen if seen is not None else set())

    def _body_calls(self, holder: nodes.NodeNG, into_loops: bool) -> list[nodes.Call]:
        """The calls of ``holder``'s body in order (see :meth:`_calls_in`): syntax alone, so
        kept with the tree (a function of another module is followed from many call sites
        and contexts, in many sessions)."""
        table = syntax_cache(holder.root()).setdefault("body_calls", {})
        key = (id(holder), into_loops)
        found = table.get(key)
        if found is None:
            if isinstance(holder, LOOPS):
                body: Iterable[nodes.NodeNG] = self.body_nodes(holder, into_loops=into_loops)
            elif into_loops:
                body = self.function_body(holder)
            else:
                body = self._body_outside_loops(holder)
            found = table[key] = [n for n in body if isinstance(n, nodes.Call)]
        return found

    def _calls_in(self, holder: nodes.NodeNG, ctx: Ctx | None, *, into_loops: bool,
                  depth: int, seen: set[int]) -> Iterator[tuple[nodes.Call, Ctx | None]]:
        for n in self._body_calls(holder, into_loops):
            yield n, ctx
            if depth >= MAX_CALL_DEPTH:
                continue
            for func, fctx in self.ev.functions_called(n, ctx):
                steps = self.steps_for(func)  # another module's function: its own Steps
                if steps is None or id(func) in seen or (
                        isinstance(func, nodes.FunctionDef) and steps.is_compiled(func)):
                    continue
                seen.add(id(func))
                yield from steps.calls_in(func, fctx, into_loops=into_loops, depth=depth + 1,
                                          seen=seen)

    def steps_for(self, func: nodes.NodeNG) -> Steps | None:
        """The Steps of the module that defines ``func``: this one, or (through the project
        link) another module's; None when that module is not known."""
        link = self.ev.link
        if link is None or func.root() is self.an.module:
            return self
        return link.steps_of(func)

    def _body_outside_loops(self, func: nodes.NodeNG) -> list[nodes.NodeNG]:
        """The nodes of a function's body that no loop of it holds (nested defs excluded;
        a loop statement itself is kept, not what it holds)."""
        if isinstance(func, nodes.Lambda):
            return [func.body, *self.walk_shallow(func.body, into_loops=False)]
        out: list[nodes.NodeNG] = []
        for stmt in func.body:
            if isinstance(stmt, (nodes.FunctionDef, nodes.ClassDef)):
                continue
            out.append(stmt)
            if not isinstance(stmt, LOOPS):
                out.extend(self.walk_shallow(stmt, into_loops=False))
        return out

    # ------------------------------------------------------------------ loops
    def _memo_q(self, name: str, node: nodes.NodeNG, compute) -> bool:
        key = (name, id(node))
        if key not in self._memo:
            self._memo[key] = False
            self._memo[key] = compute(node)
        return self._memo[key]

    def is_training_loop(self, loop: nodes.NodeNG) -> bool:
        """Each iteration runs backward or an optimizer step (not only in an inner loop)."""
        return self._memo_q("train", loop, lambda lp: any(
            self.is_update_call(c, cx) for c, cx in self.calls_in(lp, into_loops=False)))

    def has_barrier(self, loop: nodes.NodeNG) -> bool:
        """A step barrier runs somewhere in the loop's iterations (inner loops included)."""
        def compute(lp: nodes.NodeNG) -> bool:
            if isinstance(lp, nodes.For) and self.loader_kind(self.ev.value(lp.iter)) in (
                    "xla", "managed"):
                return True
            if any(self.is_barrier_call(c, cx) for c, cx in self.calls_in(lp, into_loops=True)):
                return True
            return self.compiles_steps(lp)
        return self._memo_q("barrier", loop, compute)

    def compiles_steps(self, loop: nodes.NodeNG) -> bool:
        """The loop's body (inner loops included) runs a ``with torch_xla.step():`` (or
        another compile context) block, which cuts the graph where it ends."""
        return any(isinstance(n, nodes.With) and any(
            isinstance(expr, nodes.Call) and self.an.qualname(expr.func) in COMPILE_CONTEXTS
            for expr, _ in n.items) for n in self.body_nodes(loop, into_loops=True))

    def is_forward_loop(self, loop: nodes.NodeNG) -> bool:
        """A ``for`` loop whose iterations run a forward pass (its body, not an inner loop)."""
        if not isinstance(loop, nodes.For):
            return False
        return self._memo_q("forward", loop, lambda lp: any(
            self.is_forward_call(c, cx, loop=lp) for c, cx in self.calls_in(
                lp, into_loops=False)))

    def in_unit_test(self, node: nodes.NodeNG) -> bool:
        """``node`` lies in a unit test of its module (see :mod:`flake8_xla.testcode`): it
        is never a training step, nor part of one."""
        spans = unit_test_spans(self.an.module)
        return bool(spans) and in_spans(node.fromlineno, spans)

    def is_step_loop(self, loop: nodes.NodeNG) -> bool:
        """A training or evaluation loop whose body runs once per step (batch)."""
        def compute(lp: nodes.NodeNG) -> bool:
            if self.in_unit_test(lp):
                return False
            if self._inside_forward(lp):
                return False  # a module's forward and __init__ are checked as a whole
            if self._iterates_callables(lp):
                return False  # a table of distinct functions, each run once
            if single_pass(lp):
                return False  # (a body that always ends in ``break``: one pass at most)
            step = (isinstance(lp, nodes.For) and self.loader_kind(self.ev.value(lp.iter)) in (
                "xla", "managed")) or (self.is_training_loop(lp) and
                                       not self._drives_data_loops(lp, training=True)) or (
                self.is_forward_loop(lp) and not self._drives_data_loops(lp))
            # (a forward pass of its own in a loop whose inner loops step over the data,
            # such as a probe once per epoch, runs once per epoch, and so does an optimizer
            # step after an inner training loop over the data, the step of a last partial
            # accumulation bucket: the steps are the inner loops; an evaluation loop run
            # every N steps inside a training loop leaves it a step loop)
            if not step and isinstance(lp, nodes.For) and \
                    self._drives_step_loops(lp, calls_only=True) and \
                    not self._memo_q("drives_steps", lp, self._drives_own_steps):
                # ``for prompt in prompts: out = greedy_decode(model, ids, ...)``: a loop
                # whose iterations run a decode loop (forward passes, no data, training or
                # barrier of its own) is a generation loop, one step per item
                step = True
            if not step and self._micro_steps_over_moved_batch(lp):
                # ``for (x, y, m) in loader: x, y = x.to(dev), y.to(dev)`` then ``for
                # step in range(int(use_sam) + 1): ... optimizer step``: the passes of one
                # batch (SAM's two, accumulated micro-steps) make one step of the outer loop
                step = True
            if not step and not self._iterates_mapping(lp) and any(
                    self.is_barrier_call(c, cx)
                    for c, cx in self.calls_in(lp, into_loops=False)):
                # A barrier after ``train_one_epoch(...)``: an epoch loop, whose steps are
                # the inner loops; else a step loop of its own.
                step = not self._memo_q("drives_steps", lp, self._drives_own_steps)
            return step and not off_xla_path(lp, self.ev) and not self.cpu_training(lp)
        return self._memo_q("step", loop, compute)

    def _micro_steps_over_moved_batch(self, loop: nodes.NodeNG) -> bool:
        """A ``for`` whose body moves its own loop variables to a device (the batch it
        draws: ``x = x.to(device)``) and holds a training loop over ``range(...)``, which
        runs the passes of that one batch."""
        if not isinstance(loop, nodes.For):
            return False
        # (the inner ``range`` loops first, from the module's loops: most loops have none)
        first, last = loop.fromlineno, loop.tolineno
        inner = [lp for lp in self.an.module_nodes(nodes.For)
                 if lp is not loop and first <= lp.fromlineno <= last and
                 isinstance(lp.iter, nodes.Call) and isinstance(lp.iter.func, nodes.Name) and
                 lp.iter.func.name == "range" and loop.parent_of(lp) and
                 lp.scope() is loop.scope()]
        if not inner:
            return False
        targets = {t.name for t in nodes_of(loop.target, nodes.AssignName)}
        if not targets or not any(
                isinstance(node.func, nodes.Attribute) and
                node.func.attrname in ("to", "cuda") and
                isinstance(node.func.expr, nodes.Name) and node.func.expr.name in targets
                for stmt in loop.body
                for node in nodes_of(stmt, nodes.Call, skip_klass=SCOPES)):
            return False
        return any(self.is_training_loop(lp) for lp in inner)

    def _iterates_mapping(self, loop: nodes.NodeNG) -> bool:
        """A ``for`` over the entries of a dict (``for meter in self.meters.values():
        meter.synchronize()``): one iteration per named object, not per step, even when
        what each runs has a barrier."""
        if not isinstance(loop, nodes.For):
            return False
        it = loop.iter
        if isinstance(it, nodes.Call) and isinstance(it.func, nodes.Attribute) and \
                it.func.attrname in ("values", "items", "keys") and not it.args:
            it = it.func.expr  # (the dict whose entries are iterated)
        vs = self.ev.value(it)
        return bool(vs) and all(v.kind is Kind.DICT for v in vs)

    def cpu_training(self, loop: nodes.NodeNG) -> bool:
        """Every loss the loop back-propagates is a tensor known to be on the CPU (a
        probe model fitted on host data), and it iterates no XLA loader."""
        if isinstance(loop, nodes.For) and self.loader_kind(self.ev.value(loop.iter)) in (
                "xla", "managed"):
            return False
        losses = [(call, cx) for call, cx in self.calls_in(loop, into_loops=False)
                  if isinstance(call.func, nodes.Attribute) and call.func.attrname == "backward"
                  and self.update_kind(call, cx) == "backward"]
        if not losses:
            return False
        for call, cx in losses:
            vs = self.ev.value(call.func.expr, cx)
            if not vs or not all(v.kind is Kind.TENSOR and v.device == "cpu" for v in vs):
                return False
        return True

    def _drives_step_loops(self, loop: nodes.NodeNG, *, calls_only: bool = False) -> bool:
        """An inner loop of ``loop`` (unless ``calls_only``), or of a function it calls, is
        a step loop."""
        return self._memo_q("drives_calls" if calls_only else "drives", loop,
                            lambda lp: self._compute_drives(lp, calls_only))

    def _drives_data_loops(self, loop: nodes.NodeNG, training: bool = False) -> bool:
        """An inner ``for`` loop of ``loop`` iterates a loader or dataset and is a step
        loop (``loop`` is an epoch loop); with ``training``, a training loop. Without
        ``training``, an inner step loop that feeds new host data to the forward pass
        counts too (:meth:`_feeds_uploads`: the environment steps of a rollout; a
        training loop over ``next(it)`` micro-batches is part of its outer step)."""
        def drives(steps: Steps, holder: nodes.NodeNG, lp: nodes.NodeNG) -> bool:
            return any(inner is not lp and (
                steps._iterates_data(inner) and steps.is_step_loop(inner) or
                not training and steps.is_step_loop(inner) and
                not steps.is_training_loop(inner) and steps._feeds_uploads(inner)) and (
                    not training or steps.is_training_loop(inner))
                for inner in nodes_of(holder, nodes.For, skip_klass=SCOPES))

        def compute(lp: nodes.NodeNG) -> bool:
            if drives(self, lp, lp):
                return True
            # ``for epoch in ...: trainer.train_epoch(); print(trainer.sample(prompt))``:
            # the loop over the data is in a function the iteration calls
            for holder in self._loop_holders(lp, calls_only=True):
                steps = self.steps_for(holder)
                if steps is not None and isinstance(holder, nodes.FunctionDef) and \
                        drives(steps, holder, lp):
                    return True
            return False
        return self._memo_q("drives_training_data" if training else "drives_data", loop,
                            compute)

    def _loop_holders(self, loop: nodes.NodeNG, calls_only: bool) -> list[nodes.NodeNG]:
        """``loop`` itself (unless ``calls_only``) and the functions its iterations call:
        where the loops it drives are written."""
        return [holder for holder, _ in self.loop_holders_in(loop, calls_only)]

    def loop_holders_in(self, loop: nodes.NodeNG, calls_only: bool
                        ) -> list[tuple[nodes.NodeNG, Ctx | None]]:
        """:meth:`_loop_holders`, each with the context its code runs in (None for
        ``loop`` itself; for a function, what the call in ``loop`` binds its parameters
        to)."""
        holders: list[tuple[nodes.NodeNG, Ctx | None]] = [] if calls_only else [(loop, None)]
        for call, ctx in self.calls_in(loop, into_loops=False):
            holders.extend(self.ev.functions_called(call, ctx))
        return holders

    def _compute_drives(self, loop: nodes.NodeNG, calls_only: bool) -> bool:
        for holder in self._loop_holders(loop, calls_only):
            for inner in nodes_of(holder, LOOPS):
                if inner is not loop and self.is_step_loop(inner):
                    return True
        return False

    def _drives_own_steps(self, loop: nodes.NodeNG) -> bool:
        """An inner loop of ``loop``, or of a function it calls, is a step of its own: a
        step loop that iterates data, trains or runs a barrier (``train_one_epoch(...)``
        before the barrier of an epoch loop). A decode or layer loop that only runs forward
        passes inside the iteration (``model.generate(ids)`` per example, then the
        barrier) is part of the outer loop's step."""
        for holder in self._loop_holders(loop, calls_only=False):
            steps = self.steps_for(holder) if holder is not loop else self
            if steps is None:
                continue
            if any(inner is not loop and steps.is_own_step(inner)
                   for inner in nodes_of(holder, LOOPS)):
                return True
            if holder is loop and any(
                    self.loader_kind(self.ev.value(comp.iter)) in ("xla", "managed")
                    for comp in nodes_of(loop, nodes.Comprehension, skip_klass=SCOPES)):
                # ``losses = [step(x, y) for x, y in pl.MpDeviceLoader(loader, dev)]``:
                # the comprehension is the step loop, each item a step
                return True
        return False

    def is_own_step(self, loop: nodes.NodeNG) -> bool:
        """A step loop that is a step of its own: it iterates data, trains or runs a
        barrier (not a decode or layer loop run inside another loop's step)."""
        return self.is_step_loop(loop) and (self._iterates_data(loop) or
                                            self.is_training_loop(loop) or
                                            self.has_barrier(loop))

    def step_loops(self) -> list[nodes.NodeNG]:
        """The module's step loops."""
        return [lp for lp in self.an.module_nodes(LOOPS) if self.is_step_loop(lp)]

    # ------------------------------------------------------------------ functions
    def is_compiled(self, func: nodes.FunctionDef) -> bool:
        """Decorated with, or handed to, ``torch_xla.compile``/``torch.compile``/``step``."""
        key = id(func)
        if key in self._compiled:
            return self._compiled[key]
        self._compiled[key] = False
        found = False
        for dec in func.decorators.nodes if func.decorators else ():
            target = dec.func if isinstance(dec, nodes.Call) else dec
            for e in [self.ev.api.call(self.an.qualname(target))]:
                if e is not None and e.does("compile"):
                    found = True
        if not found:
            from flake8_xla.analysis.hooks import callback_sites
            for kw, call, pos in callback_sites(self.ev).get(key, []):
                if pos == 0 and any(e.does("compile") for e in self.ev.call_entries(call)):
                    found = True
        self._compiled[key] = found
        return found

    def in_compiled_function(self, node: nodes.NodeNG) -> bool:
        """``node`` sits in a function wrapped by ``torch_xla.compile``/``step``."""
        func = enclosing_function(node)
        while func is not None:
            if isinstance(func, nodes.FunctionDef) and self.is_compiled(func):
                return True
            func = enclosing_function(func)
        return False

    def _has_closure_calls(self) -> bool:
        """The module calls something named add_step_closure (syntax only, memoised)."""
        found = self._memo.get(("closure_calls", 0))
        if found is None:
            found = bool(self.an.calls_named("add_step_closure"))
            self._memo[("closure_calls", 0)] = found
        return found

    def step_closures(self) -> set[int]:
        """ids of functions handed to ``xm.add_step_closure``."""
        if self._closures is None:
            out: set[int] = set()
            for call in self.an.calls_named("add_step_closure"):
                if not call.args or not any(e.does("step_closure")
                                            for e in self.ev.call_entries(call)):
                    continue
                fn = call.args[0]
                if isinstance(fn, nodes.Lambda):
                    out.add(id(fn))
                else:
                    for v in self.ev.value(fn):
                        if v.kind is Kind.FUNCTION and v.node is not None:
                            out.add(id(v.node))
            self._closures = out
        return self._closures

    def in_step_closure(self, node: nodes.NodeNG) -> bool:
        """Inside a step closure (its ``args=(...)`` run in the step, so they are not)."""
        closures = self.step_closures()
        if not closures and not self._has_closure_calls():
            return False
        child, cur = node, node.parent
        while cur is not None:
            if id(cur) in closures:
                return True
            if isinstance(cur, nodes.Call) and cur.args and child is cur.args[0] and any(
                    e.does("step_closure") for e in self.ev.call_entries(cur)):
                return True
            child, cur = cur, cur.parent
        return False

    def has_own_step_loop(self, func: nodes.NodeNG) -> bool:
        """A callee with step loops of its own (an ``evaluate()`` run from the training loop)."""
        if not isinstance(func, nodes.FunctionDef):
            return False
        return any(self.is_step_loop(lp) for lp in nodes_of(func, LOOPS, skip_klass=(
            nodes.FunctionDef, nodes.ClassDef)))

    def runs_own_steps(self, func: nodes.NodeNG) -> bool:
        """A callee whose step loops are steps of their own (an ``evaluate()`` over a
        loader, a training loop, a loop with a barrier), not a decode or layer loop run
        inside the caller's step (``model.generate(ids)``: its tokens are part of the step
        of the loop that calls it)."""
        if not isinstance(func, nodes.FunctionDef):
            return False
        return self._memo_q("own_steps", func, lambda fn: any(
            self.is_own_step(lp) for lp in nodes_of(fn, 
                LOOPS, skip_klass=(nodes.FunctionDef, nodes.ClassDef))))

    def _loops_over_data_steps(self, fn: nodes.FunctionDef) -> bool:
        """``fn`` runs its own step loop over a loader or dataset (a worker's whole
        training: ``while step < total: for batch in loader: ...`` then a final
        optimizer step and save), so it is a training function, not one step; a
        micro-batch loop over the chunks of one batch is part of the step."""
        return any(self._iterates_data(lp) and self.is_step_loop(lp)
                   for lp in self.ev.own_nodes(fn, LOOPS))

    def is_step_function(self, func: nodes.NodeNG) -> bool:
        """A function that runs one training step without a loop, or a framework step hook."""
        def compute(fn: nodes.NodeNG) -> bool:
            if not isinstance(fn, nodes.FunctionDef) or self.in_unit_test(fn) or \
                    self.is_compiled(fn):
                return False
            if self._is_hook(fn):
                return True
            if not self._module_trains() or not any(
                    self._names_update(c) for c in self.ev.own_nodes(fn, nodes.Call)):
                return False  # syntax first: no step()/optimizer_step()/a call of a helper
            # One optimizer step per call, its backward passes possibly accumulated in a
            # micro-batch loop.
            own = {self.update_kind(c, cx) for c, cx in self.calls_in(fn, into_loops=False)
                   if not self._in_one_off(c, fn)}
            if not own & {"optimizer_step", "scaler_step"}:
                return False
            every = own | {self.update_kind(c, cx) for c, cx in self.calls_in(
                fn, into_loops=True)}
            if "backward" in every:
                return not self._called_from_step_loop(fn) and not self._called_once(fn) \
                    and not any(self._drives_step_loops(lp, calls_only=True)
                                for lp in self.ev.own_nodes(fn, LOOPS)) \
                    and not self._loops_over_data_steps(fn)
            return False
        return self._memo_q("stepfn", func, compute)

    def is_eval_step_function(self, func: nodes.NodeNG) -> bool:
        """An evaluation step method beside a framework's training step: ``val_step``
        (``eval_step``, ``validation_step``, ``test_step`` ...) of a class whose training
        step is a step function (:meth:`is_step_function`, run per batch by a trainer
        outside the project, such as argus's), which takes a batch and which no module of
        the project calls by name. The trainer runs it per validation batch, on the training
        step's device."""
        def compute(fn: nodes.NodeNG) -> bool:
            klass = enclosing_class(fn)
            if klass is None or not isinstance(fn, nodes.FunctionDef) or \
                    not EVAL_STEP_NAME.fullmatch(fn.name) or self.in_unit_test(fn) or \
                    self.is_compiled(fn) or self.an.calls_named(fn.name):
                return False
            link = self.ev.link
            rel = link.rel_of(self.an) if link is not None else None
            if rel is not None and (
                    link.index.callers(rel, [fn.name], every_module=True) or
                    link.index.attr_callers(rel, [fn.name], every_module=True)):
                return False  # another module of the project calls it (its loop, or once)
            params = [a.name for a in fn.args.posonlyargs + fn.args.args][1:]
            if not params or any(isinstance(lp.iter, nodes.Name) and lp.iter.name in params
                                 for lp in self.ev.own_nodes(fn, nodes.For)):
                return False  # no batch, or an epoch over the loader it is handed
            return any(isinstance(m, nodes.FunctionDef) and m is not fn and
                       TRAIN_STEP_NAME.fullmatch(m.name) and self.is_step_function(m)
                       for c in self._own_lineage(klass) for m in c.body)
        return self._memo_q("evalfn", func, compute)

    def _own_lineage(self, klass: nodes.ClassDef, depth: int = 0) -> list[nodes.ClassDef]:
        """``klass`` and the classes of its module it derives from, by name (no inference)."""
        out = [klass]
        if depth < 4:
            for base in klass.bases:
                if isinstance(base, nodes.Name):
                    found = [b for b in self.an.module.locals.get(base.name, ())
                             if isinstance(b, nodes.ClassDef) and b is not klass]
                    for b in found[:1]:
                        out += self._own_lineage(b, depth + 1)
        return out

    def _in_one_off(self, call: nodes.Call, fn: nodes.NodeNG) -> bool:
        """``call`` sits in another function, one that runs once (see :meth:`_called_once`)
        or drives training loops of its own: not a step of ``fn``."""
        inner = enclosing_function(call)
        if inner is None or inner is fn or not isinstance(inner, nodes.FunctionDef):
            return False
        return self._memo_q("one_off", inner, lambda f: self._called_once(f) or any(
            self._drives_step_loops(lp, calls_only=True) for lp in self.ev.own_nodes(f, LOOPS)))

    def _called_once(self, fn: nodes.FunctionDef) -> bool:
        return self._memo_q("once", fn, self._compute_called_once)

    def _compute_called_once(self, fn: nodes.FunctionDef) -> bool:
        """Every use of ``fn`` in the module is a call that runs once per run: outside any
        loop, in a function that is itself called only so (a one-off debug or warm-up
        step, not a step that a loop elsewhere drives)."""
        def once(func: nodes.NodeNG, depth: int) -> bool:
            if isinstance(func, nodes.Module):
                return True
            if depth > 3 or not isinstance(func, nodes.FunctionDef):
                return False
            if depth > 0 and any(self.is_step_loop(lp) or self._drives_step_loops(lp)
                                 for lp in nodes_of(func, LOOPS)):
                # A caller that drives the training loops itself (``run()`` with the epoch
                # loop): what it calls outside those loops runs once per run or epoch.
                return True
            sites = self.ev.call_sites(func)
            if not sites:
                return False  # called from elsewhere: maybe once per step
            if self._referenced_otherwise(func, len(sites)):
                return False
            for call, _ in sites:
                cur = call.parent
                while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module,
                                                              nodes.Lambda)):
                    if isinstance(cur, (*LOOPS, nodes.Comprehension)):
                        return False
                    cur = cur.parent
                if cur is None or not once(cur, depth + 1):
                    return False
            return True
        return once(fn, 0)

    def _referenced_otherwise(self, func: nodes.FunctionDef, calls: int) -> bool:
        """The function's name is used more often than it is called (a callback, an
        export), syntax only."""
        counts = self._name_uses
        if counts is None:  # one walk per module: name -> its uses
            counts = Counter(
                n.name if isinstance(n, nodes.Name) else n.attrname
                for n in self.an.module_nodes((nodes.Name, nodes.Attribute))
                if isinstance(n, nodes.Name) or (isinstance(n.expr, nodes.Name) and
                                                 n.expr.name in ("self", "cls")))
            self._name_uses = counts
        return counts[func.name] > calls

    def _names_update(self, call: nodes.Call) -> bool:
        """The call may step an optimizer: ``.step()``, ``optimizer_step``, or a call of a
        function or method defined in the module (a helper that may do it)."""
        f = call.func
        if isinstance(f, nodes.Attribute):
            return f.attrname in ("step", "optimizer_step") or f.attrname in self._defined()
        return isinstance(f, nodes.Name) and (f.name in self._defined() or
                                              f.name == "optimizer_step")

    def _module_trains(self) -> bool:
        """Syntax only: the module calls something named ``backward`` and something named
        ``step``/``optimizer_step`` (a step function needs both)."""
        found = self._memo.get(("trains", 0))
        if found is None:
            found = bool(self.an.calls_named("backward")) and bool(
                self.an.calls_named("step") or self.an.calls_named("optimizer_step"))
            self._memo[("trains", 0)] = found
        return found

    def _defined(self) -> frozenset[str]:
        """Names of the functions and methods the module defines."""
        if self._defined_names is None:
            self._defined_names = frozenset(
                f.name for f in self.an.module_nodes(nodes.FunctionDef))
        return self._defined_names

    def _is_hook(self, fn: nodes.FunctionDef) -> bool:
        from flake8_xla.analysis import hooks
        klass = enclosing_class(fn)
        if klass is not None:
            bases = hooks._bases(self.ev, klass)
            if any(b.endswith("LightningModule") for b in bases) and \
                    fn.name in hooks.LIGHTNING_STEP_HOOKS | hooks.LIGHTNING_BATCH_HOOKS:
                return True
            if hooks.is_lightning_callback(bases) and fn.name in hooks.LIGHTNING_BATCH_HOOKS:
                return True  # a Callback's per-batch hook, run by the Trainer each step
            if any(b.startswith("transformers.") and b.endswith("Trainer") for b in bases) and \
                    fn.name in hooks.HF_TRAINER_HOOKS | hooks.HF_TRAINER_LOG_HOOKS:
                return True
        for kw, call, pos in hooks.callback_sites(self.ev).get(id(fn), []):
            if pos == 0 and self.an.qualname(call.func) == "ignite.engine.Engine":
                return True
        return hooks.iteration_event(self.ev, fn)

    def _called_from_step_loop(self, fn: nodes.NodeNG) -> bool:
        for call, _ in self.ev.call_sites(fn):
            cur = call.parent
            while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
                if isinstance(cur, LOOPS) and self.is_step_loop(cur):
                    return True
                cur = cur.parent
        return False

    # ------------------------------------------------------------------ regions
    def step_region(self) -> list[tuple[nodes.NodeNG, Ctx | None, bool]]:
        """Every node that runs once per step: ``(node, ctx, per_param)`` (see module doc)."""
        if self._region is None:
            region: list[tuple[nodes.NodeNG, Ctx | None, bool]] = []
            seen_loops: set[int] = set()
            for loop in self.an.module_nodes(LOOPS):
                if id(loop) in seen_loops or not self.is_step_loop(loop):
                    continue
                if self._inside_step_loop(loop):
                    continue  # collected with the enclosing step loop
                body = list(self.body_nodes(loop, into_loops=True))
                if self.is_training_loop(loop):
                    self._kind = "training"
                elif self.has_barrier(loop):
                    self._kind = "barrier"
                elif not self._iterates_data(loop) and not self._feeds_batches(loop) and \
                        not self._feeds_uploads(loop):
                    self._kind = "model"
                else:
                    self._kind = "step"
                added = self._collect_new(region, body, loop)
                self._mark(self._kind, added)
                if self._kind == "barrier" and self._drives_only(loop) or \
                        self._kind in ("barrier", "step") and self._generates(loop):
                    # ``for prompts in data: samples = sampler.sample(...)`` whose sampler
                    # runs a step loop of its own (with its barriers, or a denoising loop
                    # of forward passes without one): an iteration is a whole generation,
                    # and what it copies out is its result, as in a loop over models
                    self.model_loop_nodes |= added
                    self.data_step_nodes -= added
            for func in self.an.module_nodes(nodes.FunctionDef):
                if self.in_unit_test(func):
                    continue  # (a unit test is never a step, nor part of one)
                if self.is_compiled(func) and not off_xla_path(func, self.ev) and not any(
                        self._iterates_data(lp) or self.is_training_loop(lp)
                        for lp in self.ev.own_nodes(func, LOOPS)):
                    # ``@torch_xla.compile``: traced as one graph, where a host read
                    # forces an execution (a graph break; full_graph=True raises)
                    added = self._collect_new(region, self.function_body(func), func)
                    self.strong_nodes |= added
                    self.data_step_nodes |= added
                    continue
                if self.is_step_function(func):
                    self._kind = "training"
                    added = self._collect_new(region, self.function_body(func), func)
                    self.step_function_nodes |= added
                    self.training_nodes |= added
                    self.strong_nodes |= added
                    self.data_step_nodes |= added
                elif self.is_eval_step_function(func):
                    # (run per validation batch by the framework that runs the training
                    # step, on the same device)
                    self._kind = "step"
                    added = self._collect_new(region, self.function_body(func), func)
                    self.eval_step_nodes |= added
                    self.strong_nodes |= added
                    self.data_step_nodes |= added
            for klass in self.an.module_nodes(nodes.ClassDef):
                forward = next((m for m in klass.body if isinstance(m, nodes.FunctionDef)
                                and m.name == "forward"), None)
                if forward is None or self.in_unit_test(klass) or \
                        self.ev.class_kind(klass) is not Kind.MODULE or \
                        self.is_compiled(forward) or off_xla_path(forward, self.ev) or \
                        self._data_transform(klass):
                    continue
                self._kind = "forward"
                self._mark("forward", self._collect_new(
                    region, self.function_body(forward), forward))
            for hook in self._library_hooks():
                # a private method a library model's own forward calls, overridden here
                self._kind = "forward"
                self._mark("forward", self._collect_new(
                    region, self.function_body(hook), hook))
            if self.ev.link is not None:
                # Functions of this module that other modules' step regions call: their
                # bodies run per step too, with the values those callers pass.
                # A node this module's own loops already hold without a context (a decode
                # loop of a model's method) is strong there only when a caller's step
                # reaches it with no context either: the caller's values carry devices (a
                # teacher model left on the CPU stays there), see is_strong_in.
                own = {id(n) for n, _, _ in region}
                for func, fctx, kind in self.ev.link.step_roots(self.an):
                    if isinstance(func, nodes.FunctionDef) and \
                            self._loops_over_data_steps(func):
                        # (an ``evaluate()`` over its own loader that another module's
                        # training loop runs every N steps: its loops are steps of their
                        # own, found above, and the rest of it runs once per pass, as for
                        # a callee of this module's own step loops, see _collect; a GAN
                        # step's inner loop of discriminator updates is part of the step)
                        continue
                    self._kind = kind
                    reached = self._collect_new(region, self.function_body(func), func,
                                                fctx, 1)
                    weak_before = (reached & own) - self.strong_nodes
                    if kind == "training":
                        self.step_function_nodes |= reached
                    self._mark(kind, reached)
                    if fctx is None:
                        self._ctx_strong_only -= reached
                    else:
                        self._ctx_strong_only |= weak_before & self.strong_nodes
                    caller = self.ev.link.root_callers.get(id(func))
                    if caller is not None:
                        for key in reached:
                            self.root_origin.setdefault(key, caller)
            for holder in self.an.module_nodes((nodes.For, nodes.Comprehension)):
                if self.in_unit_test(holder) or self.ev.in_dead_function(holder) or \
                        not self.iterates_parameters(holder.iter) or \
                        self._run_only_before_failing(holder):
                    continue  # (a unit test's loop is never part of a step, nor is a
                    # nested function's that nothing calls, nor a diagnosis run just
                    # before the run fails)
                if isinstance(holder, nodes.For):
                    body = list(self.body_nodes(holder, into_loops=True))
                else:
                    comp = holder.parent
                    parts = [comp.key, comp.value] if isinstance(comp, nodes.DictComp) \
                        else [comp.elt]
                    body = [n for p in parts for n in nodes_of(p, nodes.NodeNG)]
                region.extend((n, None, True) for n in body if not self.in_step_closure(n))
            self._region = region
        return self._region

    def _run_only_before_failing(self, node: nodes.NodeNG) -> bool:
        """``node``'s function is called only in branches that end the run (``if
        "error" in debug: diagnose_nan(model); raise ValueError(...)``): a diagnosis that
        reads each parameter once, as the run's last act."""
        func = enclosing_function(node)
        if func is None:
            return False
        sites = self.ev.call_sites(func)
        return bool(sites) and all(
            (frame := site.frame()) is not None and in_failing_branch(site, frame, self.ev)
            for site, _ in sites)

    def _data_transform(self, klass: nodes.ClassDef) -> bool:
        """Every instance of the module class ``klass`` in the project is a data transform:
        built (alone, or inside ``nn.Sequential``/``transforms.Compose``) as an argument
        of a Dataset, or of a ``transform=`` keyword, directly or through a name that
        only such arguments read. Its forward runs in the loader's workers on CPU
        tensors, never on the device. False when no construction is known."""
        sites: list[tuple[Evaluator, nodes.Call]] = [
            (self.ev, c) for c in self.an.calls_named(klass.name)
            if isinstance(c.func, nodes.Name) and c.func.name == klass.name]
        if self.ev.link is not None and isinstance(klass.parent, nodes.Module):
            remote = self.ev.link.constructions(self.ev, klass)
            if remote is None:
                return False
            sites += remote
        return bool(sites) and all(_fed_to_a_dataset(ev, call) for ev, call in sites)

    def _library_hooks(self) -> list[nodes.FunctionDef]:
        """The module's overrides of a library model's private methods that its forward
        calls (see :func:`flake8_xla.analysis.hooks.is_library_hook`), on the XLA path."""
        return [m for klass in self.an.module_nodes(nodes.ClassDef)
                for m in klass.body if isinstance(m, nodes.FunctionDef) and
                is_library_hook(self.ev, m) and not self.is_compiled(m) and
                not off_xla_path(klass, self.ev)]

    def _collect_new(self, region: list[tuple[nodes.NodeNG, Ctx | None, bool]],
                     body: list[nodes.NodeNG], holder: nodes.NodeNG, ctx: Ctx | None = None,
                     depth: int = 0) -> set[int]:
        """:meth:`_collect` ``body`` (of a step loop or function ``holder``, under the
        current ``_kind``) into ``region``; the ids of the nodes it added."""
        before = len(region)
        self._collect(body, holder, ctx, depth, region, set())
        return {id(n) for n, _, _ in region[before:]}

    def is_strong_in(self, node: nodes.NodeNG, ctx: Ctx | None) -> bool:
        """:meth:`is_strong` for ``node`` read under ``ctx``: a node that only another
        module's step with its caller's values makes strong is not strong when read
        without those values (its own loop's entry, with no context)."""
        return self.is_strong(node) and not (ctx is None and id(node) in self._ctx_strong_only)

    def is_strong(self, node: nodes.NodeNG) -> bool:
        """``node`` runs in a step with XLA evidence: a loop with a barrier or an XLA
        loader, a training loop, or a step function (see :func:`values.lazy_value`)."""
        self.step_region()
        return id(node) in self.strong_nodes

    def _mark(self, kind: str, added: set[int]) -> None:
        """File the nodes a step loop, step function or forward added, by its kind."""
        if kind in ("training", "barrier", "forward"):
            self.strong_nodes |= added
        if kind == "training":
            self.training_nodes |= added
        elif kind == "model":
            self.model_loop_nodes |= added
        elif kind == "forward":
            self.forward_nodes |= added
        if kind != "model":
            self.data_step_nodes |= added

    def _drives_only(self, loop: nodes.NodeNG) -> bool:
        """A loop whose step barriers all run inside step loops of its own that its
        iterations drive (a sampler's denoising loop per prompt or batch of prompts): it
        runs no barrier of its own."""
        return self._memo_q("drives_steps", loop, self._drives_own_steps) and \
            not self._calls_barrier(loop)

    def _generates(self, loop: nodes.NodeNG) -> bool:
        """Each iteration calls a function that runs a step loop of its own (a sampler's
        denoising loop, a decode loop) and the loop runs no barrier call itself: an
        iteration is a whole generation per item or batch of data."""
        return self._drives_step_loops(loop, calls_only=True) and \
            not self._calls_barrier(loop)

    def _calls_barrier(self, loop: nodes.NodeNG) -> bool:
        """An iteration of ``loop`` runs a barrier call itself (not only in inner loops)."""
        return any(self.is_barrier_call(c, cx)
                   for c, cx in self.calls_in(loop, into_loops=False))

    def only_in_model_loops(self, node: nodes.NodeNG) -> bool:
        """``node`` runs per iteration of loops over models or settings only, never per
        step over data (a helper that a data loop calls too is a step of that loop)."""
        self.step_region()
        return id(node) in self.model_loop_nodes and id(node) not in self.data_step_nodes

    def is_training_loop_node(self, node: nodes.NodeNG) -> bool:
        """``node`` runs once per training step (a training loop's or step function's)."""
        self.step_region()
        return id(node) in self.training_nodes

    def _iterates_callables(self, loop: nodes.NodeNG) -> bool:
        """A ``for`` loop over a literal table of two or more distinct functions (or of
        tuples holding one each: ``for name, test in [("a", test_a), ("b", test_b)]``):
        each iteration runs a different function once, a driver of smoke tests or
        phases, not a step repeated over data."""
        if not isinstance(loop, nodes.For) or not isinstance(loop.iter, (
                nodes.List, nodes.Tuple, nodes.Name)):
            return False
        funcs: set[int] = set()
        for v in self.ev.value(loop.iter):
            if v.kind not in (Kind.LIST, Kind.TUPLE) or v.elts is None:
                return False
            for item in v.elts:
                found = [x for x in item if x.kind is Kind.FUNCTION and x.node is not None]
                if not found:
                    for x in item:
                        if x.kind is Kind.TUPLE and x.elts is not None:
                            found += [y for part in x.elts for y in part
                                      if y.kind is Kind.FUNCTION and y.node is not None]
                if len(found) != 1:
                    return False
                funcs.add(id(found[0].node))
        return len(funcs) >= 2

    def _iterates_data(self, loop: nodes.NodeNG) -> bool:
        """A ``for`` loop over a loader or a dataset (not over ``range`` or a list)."""
        if not isinstance(loop, nodes.For):
            return False
        return any(self.is_data(v) for v in self.ev.value(loop.iter))

    def _feeds_batches(self, loop: nodes.NodeNG) -> bool:
        """A ``for`` loop over an iterable whose value is not known (a loader passed in
        from code the analysis cannot read) whose items, or what the body makes of them
        (``image = data["image"].to(device)``), go into the forward pass as its input:
        its iterations are batches, not models or settings (where the model called
        comes from the item: ``for name, net in nets.items(): net(x)``)."""
        if not isinstance(loop, nodes.For) or not _unknown_source(self.ev.value(loop.iter)):
            return False
        derived = {t.name for t in nodes_of(loop.target, nodes.AssignName)}
        for n in self.body_nodes(loop, into_loops=False):
            if isinstance(n, nodes.Assign) and any(
                    name.name in derived for name in nodes_of(n.value, nodes.Name)):
                derived |= {t.name for target in n.targets
                            for t in nodes_of(target, nodes.AssignName)}
        for call, cx in self.calls_in(loop, into_loops=False):
            if not self.is_forward_call(call, cx, loop=loop):
                continue
            if any(name.name in derived for name in nodes_of(call.func, nodes.Name)):
                return False  # the model itself comes from the item
            if _args_mention(call, derived):
                return True
        return False

    def _feeds_uploads(self, loop: nodes.NodeNG) -> bool:
        """A loop whose iterations move new host data to the device and run the forward
        pass on it (an environment rollout: ``nxt = torch.from_numpy(obs).to(device)``,
        ``obs = nxt``, ``logits = model(obs)`` per environment step): each iteration is a
        step over fresh inputs, as a batch of a loader is, not a pass over models or
        settings, nor a decode loop feeding its own outputs back."""
        uploaded: set[str] = set()
        copies: list[nodes.Assign] = []
        for n in self.body_nodes(loop, into_loops=False):
            if not isinstance(n, nodes.Assign):
                continue
            names = {t.name for target in n.targets for t in nodes_of(target, 
                nodes.AssignName)}
            if self._uploads(n.value):
                uploaded |= names
            elif isinstance(n.value, nodes.Name):
                copies.append(n)
        if not uploaded:
            return False
        for n in copies:  # ``obs = nxt`` (the upload reaches the next iteration's forward)
            if n.value.name in uploaded:
                uploaded |= {t.name for target in n.targets
                             for t in nodes_of(target, nodes.AssignName)}
        for call, cx in self.calls_in(loop, into_loops=False):
            if call.root() is not self.an.module or \
                    not self.is_forward_call(call, cx, loop=loop):
                continue
            if _args_mention(call, uploaded):
                return True
        return False

    def _uploads(self, expr: nodes.NodeNG) -> bool:
        """``expr`` moves a host value to the XLA device: ``.to(device)``/``.cuda()`` of a
        CPU tensor or host value somewhere along its chain of method calls
        (``torch.from_numpy(x).permute(0, 3, 1, 2).float().to(device)``)."""
        node = expr
        while isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute):
            if node.func.attrname in ("to", "cuda"):
                src = self.ev.value(node.func.expr)
                if src and all(v.kind is Kind.TENSOR and v.device == "cpu" for v in src) and \
                        any(v.kind is Kind.TENSOR and v.device == "xla"
                            for v in self.ev.value(node)):
                    return True
            node = node.func.expr
        return False

    def is_data(self, v: V.Value, depth: int = 0) -> bool:
        """A loader or dataset, also wrapped in tqdm/iter() or in a class of the module
        whose ``__iter__`` iterates one (``DeviceDataLoader``)."""
        if depth > 4:
            return False
        if v.kind in (Kind.LOADER, Kind.DATASET):
            return True
        if v.kind in (Kind.PROGRESS, Kind.ITERATOR) and v.bound:
            return any(self.is_data(b, depth + 1) for b in v.bound)
        if v.kind is Kind.OBJECT and isinstance(v.node, nodes.ClassDef):
            return any(self.is_data(b, depth + 1) for b in self.wrapped_loaders(v))
        return False

    def _inside_step_loop(self, loop: nodes.NodeNG) -> bool:
        cur = loop.parent
        while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
            if isinstance(cur, LOOPS) and self.is_step_loop(cur):
                return True
            cur = cur.parent
        return False

    def _collect(self, body: list[nodes.NodeNG], anchor: nodes.NodeNG, ctx: Ctx | None,
                 depth: int, out: list[tuple[nodes.NodeNG, Ctx | None, bool]],
                 seen: set[int]) -> None:
        skip: set[int] = set()
        for node in body:
            if id(node) in skip:
                continue
            # Branches are statements (and the arms of a conditional expression or of
            # ``and``): whether a node runs once or off the XLA path is decided there, and
            # a skipped node's subtree is skipped with it. Nested functions and lambdas are
            # not in the body, so nothing here runs inside a step closure.
            if (node.is_statement or isinstance(node.parent, (nodes.IfExp, nodes.BoolOp))) \
                    and ((isinstance(anchor, LOOPS) and runs_once(node, anchor, self.ev))
                         or (not isinstance(anchor, LOOPS) and
                             (in_failing_branch(node, anchor, self.ev) or
                              _batch_index_branch(node, anchor)))
                         or in_nonfinite_branch(node, anchor)
                         or off_xla_path(node, self.ev)):
                skip.update(id(n) for n in nodes_of(node, nodes.NodeNG))
                continue
            if isinstance(node, nodes.If) and isinstance(anchor, LOOPS):
                skip.update(self._evaluation_branch_nodes(node))
            out.append((node, ctx, False))
            if depth >= MAX_CALL_DEPTH:
                continue
            if isinstance(node, nodes.Call):
                called = self.ev.functions_called(node, ctx)
            elif isinstance(node, nodes.Attribute) and not (
                    isinstance(node.parent, nodes.Call) and node.parent.func is node):
                called = iter(self.ev.properties_read(node, ctx))  # ``tracker.mean``
            else:
                continue
            for func, fctx in called:
                key = (id(func), fctx)
                if hash(key) in seen or id(func) in self.step_closures():
                    continue
                link = self.ev.link
                if link is not None and link.multi and func.root() is not self.an.module:
                    # Reported in its own module, which makes it a step-region root.
                    seen.add(hash(key))
                    self.foreign_calls.append((func, fctx, self._kind))
                    # (a function of this module that it is handed and calls, such as
                    # ``every(step, 100, report, loss)`` running ``report(loss)``, runs
                    # in this step: collected here, with what the helper passes it)
                    for back, bctx in self._called_back(func, fctx):
                        bkey = hash((id(back), bctx))
                        if bkey not in seen and id(back) not in self.step_closures():
                            seen.add(bkey)
                            self._collect(self.function_body(back), back, bctx, depth + 2,
                                          out, seen)
                    continue
                if isinstance(func, nodes.FunctionDef) and (
                        self.is_compiled(func) or self.runs_own_steps(func)):
                    continue
                seen.add(hash(key))
                if fctx is not None:
                    self.ctx_calls.setdefault(fctx, (node, ctx))
                self._collect(self.function_body(func), func, fctx, depth + 1, out, seen)

    def _called_back(self, func: nodes.NodeNG, fctx: Ctx | None
                     ) -> list[tuple[nodes.NodeNG, Ctx | None]]:
        """Functions of this module that ``func`` (of another module, called under
        ``fctx``) calls directly because it was handed them (a callback parameter): each
        with its context there. Empty unless ``fctx`` passes such a function."""
        if fctx is None or not any(
                v.kind is Kind.FUNCTION and v.node is not None and
                v.node.root() is self.an.module for _, vs in fctx.args for v in vs):
            return []
        owner = self.steps_for(func)
        if owner is None or owner is self:
            return []
        out: list[tuple[nodes.NodeNG, Ctx | None]] = []
        for call in owner._body_calls(func, True):
            for back, bctx in owner.ev.functions_called(call, fctx):
                if back.root() is self.an.module and isinstance(back, nodes.FunctionDef):
                    out.append((back, bctx))
        return out

    def _evaluation_branch_nodes(self, branch: nodes.If) -> set[int]:
        """Nodes of a branch of ``branch`` that runs a whole pass over data of its own (an
        inline evaluation, ``if step % 1000 == 0:`` then a loop over the validation
        loader, or a call of an ``evaluate()`` that loops over one), other than that
        loop's: they run once per pass, as the body of a ``validate()`` that the step
        calls does (see :meth:`runs_own_steps`)."""
        out: set[int] = set()
        # (a sample generated every N steps, ``if step % 500 == 0: out = model.generate(...)``;
        # a branch of an evaluation loop that generates for each batch is per step)
        periodic = runs_every_n(branch.test)
        for block, every_n in ((branch.body, periodic), (branch.orelse, False)):
            passes = [lp for st in block for lp in [st, *self.walk_shallow(st)]
                      if isinstance(lp, nodes.For) and self._iterates_data(lp) and
                      self.is_step_loop(lp)]
            # (an ``evaluate()`` the branch always calls: a statement of its own block, or
            # of a ``with`` block in it, not one under a further test such as ``if
            # args.evaluate_during_training:``; or a ``model.generate()`` of a sample)
            # (every N steps, a generated sample counts too, and the statements of a
            # ``for`` over a fixed list: a superset of the plain passes' test)
            if every_n:
                runs = any(self._generates_sample(call) or
                           self._runs_data_pass(call, sampling=True)
                           for st in self._sampling_statements(block)
                           for call in nodes_of(st, nodes.Call))
            else:
                runs = any(self._runs_data_pass(call) for st in _unconditional(block)
                           if isinstance(st, (nodes.Assign, nodes.Expr))
                           for call in nodes_of(st, nodes.Call))
            if not passes and not runs:
                continue
            kept = {id(n) for lp in passes for n in nodes_of(lp, nodes.NodeNG)}
            for st in block:
                out.update(id(n) for n in nodes_of(st, nodes.NodeNG)
                           if id(n) not in kept)
        return out

    def _sampling_statements(self, block: list[nodes.NodeNG]) -> Iterator[nodes.NodeNG]:
        """The plain statements (assignments, expressions) that run whenever ``block``
        does (:func:`_unconditional`), and those of its ``for`` loops over what is not
        data (``for prompt in PROMPTS: print(sample(prompt))``: one generation per item
        of a fixed list, in a branch taken every N steps)."""
        for st in _unconditional(block):
            if isinstance(st, (nodes.Assign, nodes.Expr)):
                yield st
            elif isinstance(st, nodes.For) and not self._iterates_data(st):
                yield from self._sampling_statements(st.body)

    def _generates_sample(self, call: nodes.Call) -> bool:
        """``model.generate(...)`` of a module value: a whole generation, token by token,
        whose result the branch reads once. (A value taken for a tensor, a model of unknown
        class moved to the device, counts too: a tensor has no ``generate``.)"""
        f = call.func
        return isinstance(f, nodes.Attribute) and f.attrname == "generate" and any(
            v.kind in (Kind.MODULE, Kind.TENSOR) for v in self.ev.value(f.expr))

    def _runs_data_pass(self, call: nodes.Call, depth: int = 0,
                        sampling: bool = False) -> bool:
        """``call`` runs a function that loops over data of its own (``loss, preds =
        evaluate(cfg, model, val_loader)``, of this module or another), or one that
        samples: a loop of forward passes with no update anywhere in the function (an
        Inception score over images a generator draws); directly or through up to two
        further calls (``test(...)`` calling the metrics function it is handed, which
        calls the sampling loop). With ``sampling`` (a branch run every N steps), also one
        that generates a sample with ``model.generate()`` (``sample_text(prompt)``)."""
        for func, _ in self.ev.functions_called(call, None):
            owner = self.steps_for(func) if isinstance(func, nodes.FunctionDef) else None
            if owner is not None and owner._memo_q(
                    f"pass{depth}{sampling}", func,
                    lambda fn, o=owner: o._passes_over(fn, depth, sampling)):
                return True
        return False

    def _passes_over(self, fn: nodes.FunctionDef, depth: int, sampling: bool = False) -> bool:
        """``fn`` (of this module) runs a pass of its own (see :meth:`_runs_data_pass`)."""
        if self._loops_over_data_steps(fn):
            return True
        calls = list(self.ev.own_nodes(fn, nodes.Call))
        if any(self.is_update_call(c) for c in calls):
            return False
        if any(self._samples(lp) for lp in self.ev.own_nodes(fn, nodes.For)):
            return True
        if sampling and any(self._generates_sample(c) for c in calls):
            return True
        return depth < 2 and any(self._runs_data_pass(c, depth + 1, sampling) for c in calls)

    def _samples(self, loop: nodes.For) -> bool:
        """Each iteration of ``loop`` runs a model known as one (a module value, not a
        callable of unknown value that a tensor is handed to: ``writer.add_scalar(k, v)``
        in a logging loop) and it trains nothing: a sampling or scoring pass."""
        if self.is_training_loop(loop):
            return False
        klass = enclosing_class(loop)
        own_model = klass is not None and self.ev.class_kind(klass) is Kind.MODULE
        for call, cx in self.calls_in(loop, into_loops=False):
            if callee_name(call.func) in UPDATE_NAMES or self._inside_forward(call):
                continue
            if own_model and call.scope() is loop.scope() and _own_forward_call(call):
                return True  # (``self.forward(ids)`` in a model's own ``generate``)
            if any(v.kind is Kind.MODULE and v.device != "cpu"
                   for v in self.ev.value(call.func, cx)):
                return True
        return False

    def iterates_parameters(self, it: nodes.NodeNG) -> bool:
        """``model.parameters()``, ``named_parameters()``, ``state_dict()`` (or their items)."""
        vs = self.ev.value(it)
        for v in vs:
            if v.has("params"):
                return True
            if v.kind is Kind.ITERATOR and v.bound is not None and any(
                    b.has("params") for b in v.bound):
                return True
        return False


def runs_every_n(test: nodes.NodeNG) -> bool:
    """The body of an ``if`` with this test runs once every N iterations: the test (or a
    term of its ``and``) holds a remainder to one value, ``step % N == 0``, ``(i + 1) %
    N == 0`` or ``not step % N`` (``step % N != 0`` and a bare ``step % N`` run N - 1
    times out of N)."""
    if isinstance(test, nodes.BoolOp):
        return test.op == "and" and any(runs_every_n(v) for v in test.values)

    def remainder(n: nodes.NodeNG) -> bool:
        return isinstance(n, nodes.BinOp) and n.op == "%"

    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        return remainder(test.operand)
    return isinstance(test, nodes.Compare) and len(test.ops) == 1 and \
        test.ops[0][0] == "==" and (remainder(test.left) or remainder(test.ops[0][1]))


#: Words of a flag or predicate that picks the first process of the run (``if
#: master_process:``, ``xm.is_master_ordinal()``, ``accelerator.is_main_process``).
MASTER_WORDS = frozenset({"master", "main", "chief", "leader"})
#: Words of a process index compared with the first one (``rank == 0``,
#: ``args.local_rank in [-1, 0]``, ``xm.get_ordinal() == 0``).
RANK_WORDS = frozenset({"rank", "ordinal"})


def _own_words(ref: nodes.Name | nodes.Attribute) -> set[str]:
    """The words of the name itself (``args.local_rank`` gives {local, rank})."""
    return words_of_text(ref.name if isinstance(ref, nodes.Name) else ref.attrname)


def _rank_test(test: nodes.NodeNG) -> bool:
    """``test`` only picks the first process of the run: a flag or predicate named for
    the master/main process (``master_process``, ``xm.is_master_ordinal()``), a rank or
    ordinal compared with 0 or -1 (``rank == 0``, ``local_rank in [-1, 0]``), or an
    ``and`` of those. The block still runs on every run, on that process (not a setting
    such as ``cfg.lora_rank > 0``)."""
    if isinstance(test, nodes.BoolOp):
        return test.op == "and" and all(_rank_test(v) for v in test.values)
    if isinstance(test, nodes.Call) and not test.args:
        test = test.func
    if isinstance(test, (nodes.Name, nodes.Attribute)):
        return bool(_own_words(test) & MASTER_WORDS)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1:
        op, right = test.ops[0]
        left = test.left.func if isinstance(test.left, nodes.Call) else test.left
        if not isinstance(left, (nodes.Name, nodes.Attribute)):
            return False
        firsts = right.elts if isinstance(right, (nodes.List, nodes.Tuple)) else [right]
        return bool(_own_words(left) & RANK_WORDS) and op in ("==", "in") and bool(firsts) and all(
            isinstance(e, nodes.Const) and e.value in (0, -1) or
            isinstance(e, nodes.UnaryOp) and e.op == "-" and
            isinstance(e.operand, nodes.Const) and e.operand.value == 1 for e in firsts)
    return False


def _own_forward_call(call: nodes.Call) -> bool:
    """``self(x)`` or ``self.forward(x)``: a model's method running its own forward."""
    f = call.func
    return isinstance(f, nodes.Name) and f.name == "self" or \
        isinstance(f, nodes.Attribute) and f.attrname == "forward" and \
        isinstance(f.expr, nodes.Name) and f.expr.name == "self"


def _unconditional(block: list[nodes.NodeNG]) -> Iterator[nodes.NodeNG]:
    """The statements of ``block`` and, in turn, of the ``with`` and ``try`` blocks in it
    and of the ``if`` blocks that only pick the process (:func:`_rank_test`): those that
    run whenever the block does (on that process; a ``try`` body up to an exception)."""
    for st in block:
        yield st
        if isinstance(st, (nodes.With, nodes.Try)) or \
                isinstance(st, nodes.If) and _rank_test(st.test):
            yield from _unconditional(st.body)


def _unknown_source(vs: frozenset[V.Value], depth: int = 0) -> bool:
    """Every value of ``vs`` is not known, or wraps (``enumerate``, ``tqdm``, ``iter``) an
    iterable that is not known."""
    if not vs or depth > 4:
        return not vs
    return all(v.kind is Kind.UNKNOWN or v.kind in (Kind.ITERATOR, Kind.PROGRESS) and
               v.bound is not None and _unknown_source(v.bound, depth + 1) for v in vs)
