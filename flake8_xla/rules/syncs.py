"""XLA2xx: device-to-host transfers that force a graph execution mid-step."""

from __future__ import annotations

import string
from collections.abc import Iterator
from functools import lru_cache
from typing import ClassVar

from astroid import nodes
from astroid.const import Context

from flake8_xla.analysis import Analyzer, Ctx, Kind, const_str, keyword
from flake8_xla.analysis import values as V
from flake8_xla.analysis.apimodel import model
from flake8_xla.analysis.flows import TOKENIZER_READS, enclosing_function, iterates_keys_of
from flake8_xla.analysis.names import chain_root
from flake8_xla.analysis.paths import enclosing_loop, xla_truth
from flake8_xla.analysis.steps import COMPILE_CONTEXTS, LOOPS, Steps
from flake8_xla.analysis.treewalk import nodes_of
from flake8_xla.context import Finding
from flake8_xla.filefacts import FileFacts, may_have_step_region, words
from flake8_xla.rules.base import Rule

BULK_KINDS = frozenset({".cpu()", ".numpy()", ".to('cpu')"})
#: The legacy tensor types of the CPU (``torch.FloatTensor``; the CUDA ones live under
#: ``torch.cuda``): ``t.type(torch.FloatTensor)`` returns a CPU copy.
CPU_TENSOR_TYPES = frozenset(f"torch.{kind}Tensor" for kind in (
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool"))
#: The standard library's logging levels by name (``logging/__init__.py``).
_LEVELS = {"CRITICAL": 50, "FATAL": 50, "ERROR": 40, "WARNING": 30, "WARN": 30, "INFO": 20,
           "DEBUG": 10, "NOTSET": 0}


def _read_as_scalar(node: nodes.NodeNG) -> bool:
    """``node`` (a bulk copy to the host) is read at once as a Python number:
    ``loss.cpu().item()``. A loss printed per iteration, not outputs collected."""
    parent = node.parent
    return isinstance(parent, nodes.Attribute) and parent.expr is node and \
        parent.attrname in ("item", "tolist") and isinstance(parent.parent, nodes.Call) and \
        parent.parent.func is parent


#: Module containers whose ``__getitem__`` turns an index into a Python int.
INDEXED_MODULES = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential",
                             "torch.nn.ParameterList"})


def _callee_name(func: nodes.NodeNG) -> str | None:
    if isinstance(func, nodes.Attribute):
        return func.attrname
    if isinstance(func, nodes.Name):
        return func.name
    return None


@lru_cache(maxsize=1)
def sync_names() -> frozenset[str]:
    """Last parts of the names of every call or method that the API model says reads a
    value on the host (``item``, ``cpu``, ``print``, ``float``, ``set_postfix`` ...), and
    ``to``/``copy_``/``type``, which do when they move a lazy tensor to the CPU, and ``map`` (of
    ``float`` over tensors)."""
    api = model()
    out = {n.rsplit(".", 1)[-1] for n, e in api.calls.items() if e.sync or e.sync_kw}
    out |= {n for table in api.methods.values() for n, e in table.items() if e.sync}
    out |= {p.rstrip(".").rsplit(".", 1)[-1] for p, e in api.prefixes if e.sync}
    return frozenset(out | {"to", "copy_", "map", "type"})


#: Keywords of tensor factories that take sizes, bounds or fill values (read as Python
#: numbers when given a tensor): ``torch.arange(end=n)``, ``torch.full(s, fill_value=v)``.
SIZE_KEYWORDS = frozenset({"size", "start", "end", "step", "steps", "fill_value", "low",
                           "high", "n", "m"})


@lru_cache(maxsize=1)
def sync_prefixes() -> tuple[str, ...]:
    """Module prefixes whose every call reads tensor arguments on the host (``numpy.``)."""
    return tuple(p for p, e in model().prefixes if e.sync)


def _slice_bounds(sub: nodes.Subscript) -> list[nodes.NodeNG]:
    """The bounds (start, stop, step) written in ``sub``'s slices (``x[a:b, ::c]``)."""
    parts = sub.slice.elts if isinstance(sub.slice, nodes.Tuple) else [sub.slice]
    return [b for p in parts if isinstance(p, nodes.Slice)
            for b in (p.lower, p.upper, p.step) if b is not None]


def _rebinds_item(target: nodes.Subscript) -> bool:
    """``batch[k] = v.to(device)`` in ``for k, v in batch.items():``, ``batch["ids"] =
    ...`` or ``batch[k] = batch[k].to(device)``: a dict's entry replaced (tensors have no
    ``items()``/``keys()`` and no string keys; an entry stored back moved is a rebind),
    not a copy into a tensor."""
    if const_str(target.slice) is not None:
        return True
    stmt = target.parent
    if isinstance(stmt, nodes.Assign) and isinstance(stmt.value, nodes.Call) and \
            isinstance(stmt.value.func, nodes.Attribute) and \
            stmt.value.func.attrname in ("to", "cuda", "cpu") and \
            stmt.value.func.expr.as_string() == target.as_string():
        return True
    cur = target.parent
    while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
        if isinstance(cur, nodes.For) and isinstance(target.value, nodes.Name) and \
                iterates_keys_of(cur.iter, target.value.name, dict_only=True):
            return True
        cur = cur.parent
    return False


def _only_on_failure(node: nodes.NodeNG) -> bool:
    """``node`` is evaluated only when its statement fails: in the message of an ``assert``
    (``assert not torch.is_complex(y), f"y is complex: {y}"``: Python builds the message
    only when the test is false) or in a ``raise`` statement."""
    try:
        stmt = node.statement()
    except Exception:  # noqa: BLE001 - a node outside any statement: evaluated as written
        return False
    if isinstance(stmt, nodes.Assert):
        return stmt.fail is not None and (node is stmt.fail or stmt.fail.parent_of(node))
    return isinstance(stmt, nodes.Raise)


#: torch_xla's rendezvous calls: each runs torch_xla.sync() before it gathers
#: (``xla_rendezvous`` in torch_xla/core/xla_model.py, 2.9)
RENDEZVOUS_CALLS = frozenset({"torch_xla.core.xla_model.rendezvous",
                              "torch_xla.core.xla_model.xla_rendezvous",
                              "torch_xla.core.xla_model.mesh_reduce"})


def _helper_barrier(steps: Steps, call: nodes.Call, depth: int = 0) -> bool:
    """``flush()``, a project function (of this module or another) whose body runs a
    barrier as one of its own statements (``torch_xla.sync()``), or calls such a helper in
    turn: calling it cuts the graph as the barrier does."""
    try:
        called = list(steps.ev.functions_called(call, None))
    except Exception:  # noqa: BLE001 - unknown: no barrier
        return False
    for func, _ in called:
        own = steps.steps_for(func)
        if own is None or not isinstance(func, nodes.FunctionDef):
            continue
        for stmt in func.body:
            if isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call) and \
                    _callee_name(stmt.value.func) != "wait_device_ops" and (
                        own.is_barrier_call(stmt.value) or
                        depth < 1 and _helper_barrier(own, stmt.value, depth + 1)):
                return True
    return False


def _statements_before(node: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """The statements that run before ``node``'s own in the same iteration or call,
    nearest first: those before it in its block, then those before each block around it,
    up to (not beyond) the body of its loop or function (earlier iterations of the loop
    are not before it). A node of a ``for`` statement's iterable runs once, before that
    loop's first iteration, after the statements before the ``for`` (``for det, i in
    zip(dets, targets["id"].cpu().tolist()):`` after a barrier)."""
    cur = node.statement()
    header = isinstance(cur, nodes.For) and (cur.iter is node or cur.iter.parent_of(node))
    while cur.parent is not None and (header or not isinstance(
            cur, (nodes.FunctionDef, nodes.Module, *LOOPS))):
        header = False
        block = next((b for b in (getattr(cur.parent, f, None) for f in (
            "body", "orelse", "finalbody", "handlers")) if isinstance(b, list) and
            any(s is cur for s in b)), None)
        if block is not None:
            index = next(i for i, s in enumerate(block) if s is cur)
            yield from reversed(block[:index])
        if isinstance(cur.parent, LOOPS):
            return
        cur = cur.parent


#: Reads of a tensor's value on the host, as methods (``loss.item()``) or builtins
#: (``float(loss)``).
_VALUE_READS = frozenset({"item", "tolist", "cpu", "numpy"})
_BUILTIN_READS = frozenset({"float", "int", "bool"})
#: The reads after which the tensor holds its computed data (measured, torch_xla 2.9 on
#: the CPU: after ``.cpu()`` or ``.tolist()`` a second read of any kind executes no graph;
#: after ``.item()`` or ``float()`` it executes the graph again).
_MATERIALIZING_READS = frozenset({"tolist", "cpu"})


def _read_subject(node: nodes.NodeNG, reads: frozenset[str] = _VALUE_READS,
                  builtins: frozenset[str] = _BUILTIN_READS) -> str | None:
    """The name whose value ``node`` reads on the host (``loss.item()``,
    ``loss.detach().cpu()``, ``float(loss)``), else None; ``reads`` and ``builtins`` are
    the methods and builtins that count."""
    if not isinstance(node, nodes.Call):
        return None
    f = node.func
    if isinstance(f, nodes.Attribute) and f.attrname in reads and not node.args:
        subject = f.expr
    elif isinstance(f, nodes.Name) and f.name in builtins and len(node.args) == 1:
        subject = node.args[0]
    else:
        return None
    while isinstance(subject, nodes.Call) and isinstance(subject.func, nodes.Attribute) and \
            subject.func.attrname == "detach" and not subject.args:
        subject = subject.func.expr
    return subject.name if isinstance(subject, nodes.Name) else None


def _read_again(node: nodes.NodeNG) -> bool:
    """``node`` reads a tensor (by name) that a simple statement before it in the same
    iteration already copied to the host with ``.cpu()`` or ``.tolist()``, with no
    rebinding of the name between: ``host = loss.detach().cpu()`` then ``if step % 500 ==
    0: print(loss.item())``. That copy executed the graph and left the tensor holding its
    data, so the second read executes nothing. (A first ``.item()`` or ``float()`` does not:
    a second read after it executes the graph again, measured on torch_xla 2.9.)"""
    name = _read_subject(node)
    if name is None:
        return False
    for before in _statements_before(node):
        if any(isinstance(a, nodes.AssignName) and a.name == name
               for a in nodes_of(before, nodes.AssignName)):
            return False  # (rebound: a new value)
        if isinstance(before, (nodes.Assign, nodes.AugAssign, nodes.AnnAssign, nodes.Expr)) \
                and any(_read_subject(c, _MATERIALIZING_READS, frozenset()) == name
                        for c in nodes_of(before, 
                            nodes.Call, skip_klass=(nodes.Lambda, nodes.IfExp, nodes.BoolOp))):
            return True
    return False


def _in_periodic_branch(node: nodes.NodeNG) -> bool:
    """``node`` runs in the body of an ``if`` whose test takes a remainder (``if step %
    log_every == 0:``): a branch taken every N iterations of the loop around it (syntax
    only; the search stops at the enclosing loop or function)."""
    cur = node
    while cur.parent is not None and not isinstance(cur, (nodes.FunctionDef, *LOOPS)):
        parent = cur.parent
        if isinstance(parent, nodes.If) and cur is not parent.test and any(
                b.op == "%" for b in nodes_of(parent.test, nodes.BinOp)) and any(
                s is cur for s in parent.body):
            return True
        cur = parent
    return False


#: Calls that write an image, video, audio clip or figure out of the process: the host
#: data they take is their product (torchvision ``utils.save_image``, scikit-image and
#: imageio ``imsave``/``imwrite``, PIL ``Image.fromarray``, OpenCV ``imwrite``,
#: matplotlib ``imsave``/``imshow``, wandb's media types, soundfile/torchaudio ``save``).
MEDIA_WRITERS = frozenset({
    "torchvision.utils.save_image", "skimage.io.imsave", "imageio.imwrite", "imageio.imsave",
    "imageio.mimwrite", "imageio.mimsave", "imageio.v2.imwrite", "imageio.v2.imsave",
    "imageio.v2.mimsave", "imageio.v3.imwrite", "PIL.Image.fromarray", "cv2.imwrite",
    "matplotlib.pyplot.imsave", "matplotlib.pyplot.imshow", "wandb.Image", "wandb.Video",
    "wandb.Audio", "soundfile.write", "scipy.io.wavfile.write", "torchaudio.save"})
#: Methods of a TensorBoard ``SummaryWriter`` (torch.utils.tensorboard, tensorboardX) that
#: write media.
MEDIA_METHODS = frozenset({"add_image", "add_images", "add_video", "add_audio",
                           "add_figure", "add_mesh"})
#: Modules whose functions turn host data into other host data (``np.clip(grid, 0, 255)``).
_HOST_ARRAY_MODULES = ("numpy.", "PIL.", "cv2.", "einops.", "torchvision.utils.make_grid")


def _media_writer(an: Analyzer, call: nodes.Call) -> bool:
    """``call`` writes media (:data:`MEDIA_WRITERS`, :data:`MEDIA_METHODS`)."""
    f = call.func
    if isinstance(f, nodes.Attribute) and f.attrname in MEDIA_METHODS:
        return True
    return (an.qualname(f) or "") in MEDIA_WRITERS


def _written_in_forward(an: Analyzer, node: nodes.NodeNG) -> bool:
    """``node`` lies in a torch module's ``forward``, or in a method of the module that its
    ``forward`` calls on ``self`` (two calls deep): the step's graph is still being traced
    there."""
    func = node.frame()
    klass = func.parent if isinstance(func, nodes.FunctionDef) else None
    if not isinstance(klass, nodes.ClassDef) or an.ev.class_kind(klass) is not Kind.MODULE:
        return False
    methods = {m.name: m for m in klass.body if isinstance(m, nodes.FunctionDef)}
    reached, frontier = {"forward"}, ["forward"]
    for _ in range(2):
        frontier = [c.func.attrname for name in frontier if name in methods
                    for c in nodes_of(methods[name], nodes.Call)
                    if isinstance(c.func, nodes.Attribute) and
                    isinstance(c.func.expr, nodes.Name) and c.func.expr.name == "self" and
                    c.func.attrname in methods and c.func.attrname not in reached]
        reached.update(frontier)
    return func.name in reached


def written_as_media(an: Analyzer, node: nodes.NodeNG, depth: int = 0) -> bool:
    """The host copy ``node`` (``grid.cpu()``) ends in a media writer: an argument of one,
    directly or through host-array transforms (``.numpy().transpose(1, 2, 0) * 255``,
    ``np.clip(...)``, ``.astype(np.uint8)``) and names assigned in the same function
    (``grid = make_grid(x).cpu()`` ... ``io.imsave(path, grid)``). Writing sample images
    every N steps: the transfer is the point (the corpus's convention). Syntax and
    qualified names only; a path through any other call stays a read."""
    if depth > 4:
        return False
    cur = node
    while True:
        parent = cur.parent
        if isinstance(parent, (nodes.BinOp, nodes.UnaryOp, nodes.Subscript, nodes.Starred,
                               nodes.Tuple, nodes.List)) or (
                isinstance(parent, nodes.Attribute) and parent.expr is cur):
            cur = parent
            continue
        if isinstance(parent, nodes.Call) and parent.func is not cur:
            if _media_writer(an, parent):
                return True
            if (an.qualname(parent.func) or "").startswith(_HOST_ARRAY_MODULES):
                cur = parent
                continue
            return _collected_for_media(an, parent, depth)
        if isinstance(parent, nodes.Call) and parent.func is cur:
            # ``x.numpy()``, ``x.transpose(1, 2, 0)``: a method of the host copy
            if _media_writer(an, parent):
                return True
            cur = parent
            continue
        if isinstance(parent, nodes.Keyword):
            call = parent.parent
            return isinstance(call, nodes.Call) and _media_writer(an, call)
        break
    stmt = cur.parent
    if not (isinstance(stmt, nodes.Assign) and stmt.value is cur and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], nodes.AssignName)):
        return False
    target = stmt.targets[0]
    scope = stmt.scope()
    uses = [n for n in an.ev.name_uses(target.name) if n.scope() is scope and
            any(b is target for b in an.ev.bindings(n))]
    # (every use this assignment reaches ends in a writer, or in a name that does)
    return bool(uses) and all(written_as_media(an, n, depth + 1) for n in uses)


def _collected_for_media(an: Analyzer, call: nodes.Call, depth: int) -> bool:
    """``frames.append(grid)``: the list ``frames`` is read only by loops and comprehensions
    whose items end in a media writer (``[plt.imshow(np.transpose(g, (1, 2, 0))) for g in
    frames]``, an animation of the preview grids), by a writer itself
    (``imageio.mimsave(path, frames)``) or by ``len()``."""
    f = call.func
    if not (isinstance(f, nodes.Attribute) and f.attrname == "append" and
            isinstance(f.expr, nodes.Name) and len(call.args) == 1):
        return False
    scope = call.scope()
    media = False
    for use in an.ev.name_uses(f.expr.name):
        if use.scope() is not scope and not (
                isinstance(use.scope(), nodes.ComprehensionScope) and
                use.scope().parent is not None and use.scope().parent.scope() is scope):
            continue
        parent = use.parent
        if isinstance(parent, nodes.Attribute) and parent.attrname == "append":
            continue
        if isinstance(parent, nodes.Call) and an.is_builtin(parent.func, "len"):
            continue
        if isinstance(parent, nodes.Call) and _media_writer(an, parent):
            media = True
            continue
        if isinstance(parent, (nodes.For, nodes.Comprehension)) and parent.iter is use and \
                isinstance(parent.target, nodes.AssignName):
            item = parent.target.name
            holder = parent.parent if isinstance(parent, nodes.Comprehension) else parent
            reads = [n for n in nodes_of(holder, nodes.Name) if n.name == item]
            if reads and all(written_as_media(an, n, depth + 1) for n in reads):
                media = True
                continue
        return False
    return media


class HostSync(Rule):
    """XLA201: a lazy XLA tensor read on the host inside a step loop.

    Source: PyTorch/XLA "Troubleshooting: known performance caveats" (``.item()``
    and printing tensors force execution), the ``xm.add_step_closure`` API docs, and
    ``lightning/pytorch/loops/progress`` (the progress bar reads logged values).
    """

    code = "XLA201"
    fix = "unsafe"
    name = "host-sync-in-step"
    message = ("host sync {where}: {what} copies a lazy XLA tensor to the host, which "
               "executes the pending graph and stalls the device; {fix}")
    migrate_message = ("host sync {where}: {what} reads a TPU tensor on the host, so TorchTPU "
                       "compiles and runs the deferred ops, waits for the TPU and copies the "
                       "result; read it every N steps or once after the loop, and reduce on "
                       "the device first rather than once per parameter")
    FIX_STEP = "log it inside xm.add_step_closure(...) or read it once after the loop"
    FIX_PARAM = ("reduce on the device first (e.g. torch.stack([...]).tolist() once) instead "
                 "of one read per parameter")
    RENDEZVOUS = ("host sync {where}: {what} runs torch_xla.sync(), which executes the "
                  "pending graph mid-step, and reads the replicas' payload sizes on the host "
                  "every call, even for a Python number; {fix}")
    FIX_RENDEZVOUS = ("reduce on the device with xm.all_reduce and read the result in "
                      "xm.add_step_closure(...), or call mesh_reduce once after the loop")
    FIX_INTO_CPU = ("keep the accumulator on the XLA device (torch.zeros(n, device=...)) and "
                    "move it to the CPU once after the loop")
    explanation = """\
A lazy XLA tensor has no value until its graph runs. `.item()`, `.tolist()`, `.cpu()`,
`.numpy()`, `float(t)`, `print(t)`, a logging call, an f-string or `%`/`str.format`
of a tensor, a meter or progress bar that formats it (`tqdm.set_postfix(loss=loss)`,
Lightning's `self.log(..., prog_bar=True)` when it logs at the step: not with
`on_step=False`, nor by default in `validation_step`), storing it into a CPU tensor, the
builtin `max`/`min` of tensors (Python tests `a > b`), indexing a Python list or tuple, or
an `nn.ModuleList`, with a 0-d tensor (`classes[pred]`, `self.experts[best](x)` take the
tensor's `__index__`), `xm.mesh_reduce` (it starts with a copy
to the CPU) and `clip_grad_norm_(..., error_if_nonfinite=True)` (torch tests the norm in
Python), storing it into a numpy array's item (`loss_curve[step] = loss.detach()`, numpy
calls `__float__`) all need the value, so torch_xla cuts the graph there, compiles and executes
it, and copies the result to the host, before the step's own `torch_xla.sync()`. The
device idles while the host waits. So does `torch.tensor([loss_a, loss_b])` of lazy
tensors: it fills a CPU buffer item by item (measured on PJRT_DEVICE=CPU: two graph
executions and two transfers for two items), where `torch.stack([...])` stays on the
device; `torch.tensor(t)` of one tensor is a device copy and is not reported.

Measured (checks/XLA201, PJRT_DEVICE=CPU): about one extra graph execution and one
device-to-host transfer per step for the flagged script.

**Example**
```python
for batch in loader:
    loss = model(**batch).loss
    loss.backward(); optimizer.step(); torch_xla.sync()
    print(f"loss {loss.item()}")
```
**Use instead**
```python
    xm.add_step_closure(lambda loss: print(f"loss {loss.item()}"), args=(loss,))
```
Reported in step loops, in step functions (one training step without a loop, a
framework's step hook, and the `val_step`/`eval_step` method beside a `train_step` that
a trainer outside the project runs per batch) and in the functions they call. Not
reported: code inside a
step closure, code that runs once (after the loop, or in a branch that ends the loop),
code in a branch that runs a pass of its own every N steps (`if step % 5000 == 0:
test(G, ...)` where the test helper, or a function it calls, evaluates over a loader or
samples images through a loop of forward passes with no update (a model's own
sampling method over `self.forward` too), or generates a sample with `model.generate()`,
in the branch or in a helper it calls (`sample_text(prompt)`, also inside a `try:`
block, or once per prompt of a fixed list): what it reads, it reads once per pass), the arm of a NaN guard (`if not torch.isfinite(loss): print(loss.item()); continue` runs
only on the steps whose numbers went wrong; its test is still read every step), code off
the XLA path, CPU tensors and Python numbers, `log.debug(...)` in a module that
sets its logging level above DEBUG, or sets none while the script that imports it does
(logging drops the record before it formats it), and
a copy out (`.cpu()`, `.numpy()`, `.to('cpu')`) of a name (or of a tensor stored on it,
`model.fc.weight.detach().cpu()`) computed before a barrier that
runs earlier in the same step (`xm.mark_step()` then `pooled = pooled.cpu()`, or a
project helper whose body runs the barrier, `flush()`, or a `with xp.StepTrace(...):` or
`with torch_xla.step():` block left before it, or a block whose last statement is a
barrier; a copy in a `for` statement's iterable runs where the `for` starts: the barrier
executed the graph, so the copy runs none; a `.item()` there is still reported, a
blocking read the corpus calls debatable), a second read of a tensor that a simple statement before it in the same
step already copied with `.cpu()` or `.tolist()`, with no new value between (`host =
loss.detach().cpu()` then `print(loss.item())` every N steps: the copy executed the graph
and left the tensor holding its data; after a first `.item()` or `float()` a second read
executes the graph again, measured on torch_xla 2.9, and is reported), code that runs once
per pass over the data (an `except StopIteration:`
handler of `next(it)`) or on the first step only (`if not hasattr(self, "n"): self.n =
t.item()`) or, in a framework's step hook, under a test of its batch-index parameter against
one number (`if batch_idx == 0:` in a Lightning `validation_step`: once per epoch), and
`xm.mesh_reduce` of a Python number in a branch taken every N steps,
right after a barrier or an `xm.rendezvous` (nothing is pending on the device), and a
copy out whose data goes to an image, video or figure writer (`save_image`, `imsave`,
`Image.fromarray`, `wandb.Image`, `writer.add_image`), directly or through host-array
steps (`make_grid`, numpy) and names, or kept in a list that is only shown or written
afterwards (`img_list.append(make_grid(fake))`, then `plt.imshow` of each item): sample
images written every N steps, where the transfer is the point (not one written from a
module's `forward`: the copy there cuts the step's graph in two, each executed and
compiled apart);
nor a copy out (`.cpu()`, `.numpy()`) in a loop whose every iteration runs a whole
generation (a project sampler or decoder with a step loop of its own) for a host metric,
per prompt or per batch of data: the generated result is what the loop exists to copy.
A rollout loop that uploads each new observation from an environment and runs the
policy on it is a step loop over fresh inputs, like a loader's: the sampled actions
copied back to the host for the environment are reported. A
Lightning `Callback`'s per-batch hooks (`on_train_batch_end(trainer, pl_module, outputs,
batch, batch_idx)`) run in the step, with its outputs and batch on the device.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://docs.pytorch.org/xla/master/learn/api-guide.html#torch_xla.core.xla_model.add_step_closure",
    )
    versions = "all"

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return may_have_step_region(facts)

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None:
            return
        steps = an.steps
        reported: set[tuple[int, int]] = set()
        for node, ctx, per_param in an.rule_region():
            found = self._sync_kind(node, ctx, per_param)
            if found is None or _only_on_failure(node):
                continue
            if self.weak and HostSync._sync_kind(self._strict(), node, ctx, per_param):
                continue  # XLA201's finding
            what, fix = found
            if what in BULK_KINDS and not per_param and self._read_after_barrier(node):
                continue  # the barrier above already ran the graph: a copy of its results
            if not per_param and _read_again(node):
                continue  # an earlier read of the same tensor this step ran its graph
            if what in BULK_KINDS and steps.only_in_model_loops(node) and \
                    not _read_as_scalar(node):
                continue  # outputs copied out of an inference loop: the transfer is the point
            if what in BULK_KINDS and not per_param and written_as_media(an, node) and \
                    not _written_in_forward(an, node):
                # sample images written out: the transfer is the point (not in a module's
                # forward, where the rest of the step's graph is still to be traced: the
                # copy cuts it in two, executed and compiled apart)
                continue
            key = (node.lineno, node.col_offset)
            if key in reported:
                continue
            reported.add(key)
            if per_param:
                yield self.finding(node, what=what, where="per model parameter",
                                   fix=self.FIX_PARAM)
            else:
                where = "in the training step" if id(node) in steps.step_function_nodes \
                    else "in the evaluation step" if id(node) in steps.eval_step_nodes \
                    else "in the step loop"
                caller = steps.root_origin.get(id(node))
                if caller is not None:
                    # the step is another module's: name it (issue 11, item 4)
                    where += f" of {caller}"
                if fix is self.FIX_RENDEZVOUS:
                    yield self.finding_text(node, f"{self.code} " + self.RENDEZVOUS.format(
                        where=where, what=what, fix=fix))
                else:
                    yield self.finding(node, what=what, where=where, fix=fix)

    weak: ClassVar[bool] = False

    def _periodic_host_reduce(self, call: nodes.Call, ctx: Ctx | None) -> bool:
        """``xm.rendezvous("log")`` then ``xm.mesh_reduce("loss", avg_loss, np.mean)`` of
        a Python number, in a branch taken every N steps (``if (step + 1) %
        args.logging_steps == 0:``): the barrier or rendezvous before it has run the
        pending graph, so its own torch_xla.sync() executes nothing, and it copies nothing
        from the device (a read right after an explicit sync). Per step, of a tensor (a
        copy of pending device data), or with nothing synced before it, it is reported."""
        data = call.args[1] if len(call.args) > 1 else keyword(call, "data")
        if data is None or not _in_periodic_branch(call) or not self._synced_before(call):
            return False
        vs = self.an.value(data, ctx)
        return bool(vs) and V.is_host_only(vs)

    def _synced_before(self, node: nodes.NodeNG) -> bool:
        """A statement before ``node``'s, in its block or a block around it inside its
        loop or function, is a barrier (:meth:`_is_barrier_statement`) or a rendezvous
        (``xm.rendezvous``/``xm.xla_rendezvous``/``xm.mesh_reduce``, each of which runs
        torch_xla.sync() first: torch_xla/core/xla_model.py)."""
        return any(self._is_barrier_statement(before) or (
            isinstance(before, (nodes.Expr, nodes.Assign)) and
            isinstance(before.value, nodes.Call) and
            self.an.qualname(before.value.func) in RENDEZVOUS_CALLS)
            for before in _statements_before(node))

    def _read_after_barrier(self, node: nodes.NodeNG) -> bool:
        """``xm.mark_step()`` then ``pooled = pooled.cpu()`` in the same iteration: a read
        (the rule asks it of copies out) of a name that no statement rebinds between a
        barrier that runs before it (in its block, or in a block around it inside the loop
        or function) and the read. The barrier has executed the graph that computed it, so
        the read copies a result and runs no graph of its own (only a read of the name
        itself, through ``.detach()``/``.data``/``.cpu()``, a tensor stored on it by
        attribute, ``model.fc.weight``, or a dict entry, ``targets["image_id"]``:
        ``loss.mean().cpu()`` computes after the barrier)."""
        subject: nodes.NodeNG | None = None
        entry = False  # (read through a dict entry)
        if isinstance(node, nodes.Call):
            f = node.func
            subject = f.expr if isinstance(f, nodes.Attribute) else (
                node.args[0] if node.args else None)
        while isinstance(subject, (nodes.Call, nodes.Attribute, nodes.Subscript)):
            if isinstance(subject, nodes.Call) and isinstance(subject.func, nodes.Attribute) \
                    and subject.func.attrname in ("detach", "cpu", "numpy") and \
                    not subject.args:
                subject = subject.func.expr
            elif isinstance(subject, nodes.Attribute) and subject.attrname == "data":
                subject = subject.expr
            elif isinstance(subject, nodes.Subscript) and \
                    isinstance(subject.slice, nodes.Const) and \
                    isinstance(subject.slice.value, str):
                # ``targets["image_id"].cpu()``: an entry of a dict of tensors (a batch's,
                # a model output's) is looked up on the host, no tensor op (an integer
                # index of a tensor slices it: a new op after the barrier)
                subject = subject.value
                entry = True
            elif isinstance(subject, nodes.Attribute) and \
                    isinstance(chain_root(subject), nodes.Name):
                # ``model.fc.weight.detach().cpu()``: a stored tensor (a parameter the
                # optimizer step before the barrier updated), read by its attribute path;
                # an attribute of the name written after the barrier is a new value
                subject = chain_root(subject)
            else:
                return False
        if not isinstance(subject, nodes.Name):
            return False
        name = subject.name
        between: list[nodes.NodeNG] = []
        for before in _statements_before(node):
            if self._is_barrier_statement(before):
                if entry and any(n.name == name for s in between
                                 for n in nodes_of(s, nodes.Name)):
                    # (the dict is used after the barrier, ``logs["acc"] = ...``, a store
                    # or a mutator call: an entry read may be one computed since)
                    return False
                return not any(
                    isinstance(a, nodes.AssignName) and a.name == name or
                    isinstance(a, nodes.AssignAttr) and isinstance(
                        root := chain_root(a.expr), nodes.Name) and root.name == name
                    for s in between
                    for a in nodes_of(s, (nodes.AssignName, nodes.AssignAttr)))
            between.append(before)
        return False

    def _is_barrier_statement(self, stmt: nodes.NodeNG) -> bool:
        """``xm.mark_step()`` / ``xm.optimizer_step(opt, barrier=True)`` as a statement, or
        an ``if`` that the XLA path takes whose body ends with one (``if device.type ==
        "xla": xm.mark_step()``)."""
        steps = self.an.steps
        if isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call):
            # (``xm.wait_device_ops()`` waits for what runs, and runs nothing pending)
            f = stmt.value.func
            if "wait_device_ops" in (_callee_name(f),
                                     (self.an.qualname(f) or "").rsplit(".", 1)[-1]):
                return False
            return steps.is_barrier_call(stmt.value) or _helper_barrier(steps, stmt.value)
        if isinstance(stmt, nodes.If) and stmt.body and (
                xla_truth(stmt.test, self.an.ev) is True or _names_xla(stmt.test)):
            return self._is_barrier_statement(stmt.body[-1])
        if isinstance(stmt, nodes.With) and stmt.body:
            # ``with xp.StepTrace("train_step"):`` / ``with torch_xla.step():``: leaving the
            # block runs the barrier (torch_xla/debug/profiler.py, torch_xla/torch_xla.py);
            # or the block's last statement is one
            return any(isinstance(expr, nodes.Call) and
                       self.an.qualname(expr.func) in COMPILE_CONTEXTS
                       for expr, _ in stmt.items) or \
                self._is_barrier_statement(stmt.body[-1])
        return False

    def _strict(self) -> HostSync:
        """The plain XLA201 rule on the same file (XLA901 leaves its findings to it)."""
        strict = self.__dict__.get("_strict_rule")
        if strict is None:
            strict = self.__dict__["_strict_rule"] = HostSync(self.ctx)
        return strict

    def _writes_checkpoint(self, node: nodes.NodeNG) -> bool:
        """``node`` (a copy to the host) builds what a checkpoint save writes: it lies in
        the object handed to ``torch.save``/``xm.save``/``save_pretrained`` in its function,
        in the value of a name that object reads (``state = {k: v.cpu() ...}``, or
        ``state[k] = v.cpu()`` in a loop), or in what a helper returns when every call of
        the helper is in such an object (``torch.save(to_cpu(sd), path)``; a recursive
        helper's calls of itself in what it returns count as passing it on). That copy is
        the checkpoint's write, the one XLA503 asks for, not a read mid-step; a copy
        beside an unrelated save (a metric appended each step) is still one."""
        func = enclosing_function(node)
        if not isinstance(func, nodes.FunctionDef):
            return False
        if id(node) in self._saved_nodes(func):
            return True
        if not self._returned(node, func):
            return False
        # (a recursive helper's own calls, in what it returns, pass their result on:
        # ``return {k: to_cpu(v) for k, v in obj.items()}``)
        sites = [call for call, _ in self.an.ev.call_sites(func)
                 if not (enclosing_function(call) is func and self._returned(call, func))]
        return bool(sites) and all(
            isinstance(caller := enclosing_function(call), nodes.FunctionDef) and
            id(call) in self._saved_nodes(caller) for call in sites)

    def _saved_nodes(self, func: nodes.FunctionDef) -> set[int]:
        """ids of the nodes of ``func`` that make up an object it saves (memoised)."""
        memo = self.__dict__.setdefault("_saved", {})
        found = memo.get(id(func))
        if found is not None:
            return found
        an = self.an
        found = memo[id(func)] = set()
        work: list[nodes.NodeNG] = []
        # (also a save in a function nested in ``func``, a thread target or a closure
        # that writes ``func``'s object: ``def _do_save(): torch.save(state, path)``)
        calls = list(an.ev.own_nodes(func, nodes.Call))
        for inner in an.ev.own_nodes(func, nodes.FunctionDef):
            calls += an.ev.own_nodes(inner, nodes.Call)
        for call in calls:
            if an.does(call, "save") or an.does(call, "xla_save"):
                obj = call.args[0] if call.args else keyword(call, "obj")
                if obj is None and isinstance(call.func, nodes.Attribute):
                    obj = call.func.expr  # ``model.save_pretrained(path)``
                if obj is not None:
                    work.append(obj)
        names: set[str] = set()
        while work and len(found) < 5000:
            expr = work.pop()
            for n in nodes_of(expr, nodes.NodeNG):
                found.add(id(n))
                if isinstance(n, nodes.Name) and n.name not in names:
                    names.add(n.name)
                    for b in an.ev.bindings(n):
                        stmt = b.statement() if isinstance(b, nodes.AssignName) else None
                        if isinstance(stmt, (nodes.Assign, nodes.AnnAssign)) and \
                                stmt.value is not None and func.parent_of(stmt):
                            work.append(stmt.value)
        for stmt in an.ev.own_nodes(func, nodes.Assign):
            # ``state[k] = v.cpu()`` into a saved name
            if any(isinstance(t, nodes.Subscript) and isinstance(t.value, nodes.Name) and
                   t.value.name in names for t in stmt.targets):
                found.update(id(n) for n in nodes_of(stmt.value, nodes.NodeNG))
        return found

    @staticmethod
    def _returned(node: nodes.NodeNG, func: nodes.FunctionDef) -> bool:
        """``node`` lies in what ``func`` returns (a ``return`` expression of its own)."""
        cur = node.parent
        while cur is not None and cur is not func:
            if isinstance(cur, nodes.Return):
                return enclosing_function(cur) is func
            cur = cur.parent
        return False

    def _sync_kind(self, node: nodes.NodeNG, ctx: Ctx | None, per_param: bool
                   ) -> tuple[str, str] | None:
        an = self.an
        strong = self.weak or an.steps.is_strong_in(node, ctx)

        def lazy(expr: nodes.NodeNG, cx: Ctx | None) -> bool:
            return an.is_lazy(expr, cx, strong)

        def holds(expr: nodes.NodeNG, cx: Ctx | None) -> bool:
            return an.holds_lazy(expr, cx, strong)

        fix = self.FIX_STEP
        if isinstance(node, nodes.AugAssign) and not per_param:
            # ``self.tp_arr[i] += tp``: numpy converts the lazy tensor to add it (its
            # ``__array__``), a copy to the host
            target = node.target.value if isinstance(node.target, nodes.Subscript) \
                else node.target
            base = an.value(target, ctx)
            if base and all(v.kind is Kind.HOST and v.qual == "numpy" for v in base) and \
                    lazy(node.value, ctx):
                return f"`{node.op}` of a tensor into a numpy array", fix
            return None
        if isinstance(node, nodes.Call):
            func = node.func
            qual = an.qualname(func) or ""
            if _callee_name(func) not in sync_names() and not qual.startswith(
                    sync_prefixes()) and qual.rsplit(".", 1)[-1] not in sync_names():
                return None  # syntax first: only calls that may read a value on the host
            entries = an.entries(node, ctx)
            syncs = {e.sync for e in entries if e.sync}
            if not per_param and any(e.does("rendezvous") for e in entries) and \
                    not self._writes_checkpoint(node) and \
                    not self._periodic_host_reduce(node, ctx):
                # ``xm.mesh_reduce('loss', loss.item(), np.mean)`` per step: the
                # rendezvous cuts the graph (torch_xla.sync()) and reads the payload sizes
                # on the host every call, even for a Python number
                return f"{func.as_string()[:30]}()", \
                    self.FIX_RENDEZVOUS
            if isinstance(func, nodes.Attribute):
                name = func.attrname
                receiver_lazy = lazy(func.expr, ctx)
                if receiver_lazy and syncs & {"scalar"}:
                    return f".{name}()", fix
                if syncs & {"scalar"} and name in TOKENIZER_READS and node.args and (
                        an.steps.is_training_loop_node(node) or
                        self._decodes_growing_ids(node)) and holds(node.args[0], ctx):
                    # ``tokenizer.decode(ids)`` in a training step: the token ids are read
                    # back as Python ints (decoding what a sampling loop generated, once per
                    # sample, is that loop's purpose, and is not reported)
                    return f".{name}() of token ids", fix
                if per_param:
                    return None
                if receiver_lazy and syncs & {"transfer"} and not self._writes_checkpoint(node):
                    return f".{name}()", fix
                if name == "to" and receiver_lazy and (node.args or keyword(node, "device")) \
                        and self._to_cpu(node, ctx) \
                        and not self._writes_checkpoint(node):
                    return ".to('cpu')", fix
                if name == "type" and receiver_lazy and node.args and (
                        an.qualname(node.args[0]) or const_str(node.args[0]) or "") in \
                        CPU_TENSOR_TYPES:
                    # ``t.type(torch.FloatTensor)``: a legacy type names a CPU tensor, so
                    # the cast copies the lazy tensor to the host
                    return f".type({node.args[0].as_string()[:30]})", fix
                if name == "copy_" and node.args and lazy(node.args[0], ctx) and any(
                        v.kind is Kind.TENSOR and v.device == "cpu"
                        for v in an.value(func.expr, ctx)):
                    return ".copy_() of a lazy tensor into a CPU tensor", self.FIX_INTO_CPU
            args = list(node.args) + [k.value for k in node.keywords or ()]
            if an.is_builtin(func, "map") and len(node.args) >= 2 and (
                    entry := an.ev.api.call(an.qualname(node.args[0]))) is not None and \
                    entry.sync == "scalar" and any(
                    holds(a, ctx) for a in node.args[1:]):
                return f"map({node.args[0].as_string()}, ...) over tensors", fix
            # a function (``float(t)``, ``math.sqrt(t)``, ``np.mean(ts)``), not a method
            function = not isinstance(func, nodes.Attribute) or an.qualname(func) is not None
            if "scalar" in syncs and function and node.args and lazy(node.args[0], ctx):
                return f"{func.as_string()}()", fix
            if per_param:
                return None
            if "transfer" in syncs and function and any(holds(a, ctx) for a in args):
                return f"{func.as_string()[:30]}() of a tensor", fix
            if "size" in syncs and function and any(holds(a, ctx) for a in [*node.args, *(
                    k.value for k in node.keywords or () if k.arg in SIZE_KEYWORDS)]):
                # ``torch.arange(lengths.max())``: a size or bound given as a 0-d tensor
                # is read as a Python number (and each value read is a new graph shape)
                return f"{func.as_string()[:30]}() with a size or bound in a tensor", fix
            if "items" in syncs and function and node.args and any(
                    v.kind in (Kind.LIST, Kind.TUPLE) and V.holds_lazy(frozenset({v}), strong)
                    for v in an.value(node.args[0], ctx)):
                # ``torch.tensor(losses)`` of a list of lazy tensors: each item is read as
                # a number into a CPU buffer, one transfer per item
                return f"{func.as_string()[:30]}() of a list of tensors", fix
            if "read" in syncs and not self._debug_dropped(func):
                fields = self._format_fields(node)
                if any(holds(a, ctx) for a in self._read_arguments(node, fields)) or \
                        self._formats_lazy_entry(node, fields, ctx, strong):
                    return self._read_what(func), fix
            for e in entries:
                flag = keyword(node, e.sync_kw) if e.sync_kw else None
                if e.sync_kw and flag is None and any(k.arg is None for k in node.keywords or ()):
                    # ``clip_grad_norm_(params, **CLIP_KW)`` with ``CLIP_KW =
                    # dict(max_norm=1.0, error_if_nonfinite=True)``
                    unpacked = an.star_keywords(node) or {}
                    on = unpacked.get(e.sync_kw)
                    flag = node if on is not None and V.known_bool(on) is True else None
                if flag is not None and (flag is node or not self._false(flag, ctx)) \
                        and any(holds(a, ctx) or any(
                        V.device_params(v) for v in an.value(a, ctx)) for a in args):
                    return f"{func.as_string()[:30]}({e.sync_kw}=...)", fix
            if "compare" in syncs and function and keyword(node, "key") is None and any(
                    holds(a, ctx) for a in node.args) and (
                    not (an.is_builtin(func, "sorted") or qual.startswith("heapq.")) or
                    self._lazy_items(node, ctx, strong)):
                # max(best, loss): Python's truth test of ``loss > best`` (with ``key=``
                # the key's results are compared instead, below)
                return f"{func.as_string()[:30]}() comparing tensors", fix
            if "compare" in syncs and function and self._lazy_keys(node, ctx, strong):
                # ``sorted(beams, key=lambda b: b[0])`` of (lazy score, tokens) pairs: each
                # comparison of two keys is a truth test read on the host
                return f"{func.as_string()[:30]}(key=...) comparing tensors", fix
            if "prog_bar" in syncs and self._prog_bar(node) and any(
                    holds(a, ctx) for a in args):
                flag = "prog_bar" if isinstance(bar := keyword(node, "prog_bar"), nodes.Const) \
                    and bar.value is True else "sync_dist"
                return f"{func.as_string()[:30]}(..., {flag}=True) of a tensor", fix
            return None
        if per_param:
            return None
        if isinstance(node, nodes.JoinedStr) and any(
                isinstance(v, nodes.FormattedValue) and holds(v.value, ctx)
                for v in node.values):
            return "an f-string of a tensor", fix
        if isinstance(node, nodes.Subscript) and not isinstance(node.slice, nodes.Slice) and \
                node.ctx == Context.Load and lazy(node.slice, ctx):
            # ``classes[pred]``: a Python list or tuple indexed by a 0-d tensor takes its
            # ``__index__``, which reads the value (a dict hashes the tensor object: no
            # read); so does ``nn.ModuleList``/``nn.Sequential`` (``operator.index``).
            # Only an index every value of which is a lazy tensor: an unknown helper's
            # result (``ctx.tensor_parameter_id(t)``) may be a Python int.
            held = an.value(node.value, ctx)
            index = an.value(node.slice, ctx)
            lists = all(v.kind in (Kind.LIST, Kind.TUPLE) for v in held)
            if held and index and (lists or all(
                    v.kind in (Kind.LIST, Kind.TUPLE) or (
                        v.kind is Kind.MODULE and v.qual in INDEXED_MODULES)
                    for v in held)) and all(V.lazy_value(v, strong) for v in index):
                what = "a Python list" if lists else "an nn.ModuleList"
                return f"indexing {what} with a tensor", fix
        if isinstance(node, nodes.Subscript) and node.ctx == Context.Load and (
                bounds := _slice_bounds(node)):
            # ``values.cpu()[ix, start:ends[ix]]`` with ``ends`` a lazy tensor: a slice of
            # a host value takes its bounds' ``__index__``, which reads each on the host
            # (only a bound every value of which is a lazy tensor; a lazy tensor sliced so
            # is a dynamic shape, XLA104's). The bounds first: most subscripts have none.
            base = an.value(node.value, ctx)
            if base and all(v.kind is Kind.TENSOR and v.device == "cpu" or
                            v.kind in (Kind.LIST, Kind.TUPLE, Kind.HOST) for v in base) and \
                    not V.holds_lazy(base, strong=strong):
                for bound in bounds:
                    vs = an.value(bound, ctx)
                    if vs and all(V.lazy_value(v, strong) for v in vs):
                        return "slicing with a tensor as a bound", fix
        if isinstance(node, nodes.BinOp) and node.op == "%" and self._format_string(node.left):
            right = node.right
            items = right.elts if isinstance(right, nodes.Tuple) else [right]
            if any(holds(i, ctx) if not isinstance(i, nodes.Starred) else
                   V.holds_lazy(an.ev.iterate(an.value(i.value, ctx), 0), strong=strong)
                   for i in items):
                # (``("%11s" * 2 + "%11.4g" * n) % (epoch, mem, *losses)``: a starred
                # tensor spreads its elements, each formatted with ``__format__``)
                return "%-formatting of a tensor", fix
        if isinstance(node, nodes.Assign) and holds(node.value, ctx):
            for target in node.targets:
                if isinstance(target, nodes.Subscript) and not _rebinds_item(target) and any(
                        v.kind is Kind.TENSOR and v.device == "cpu"
                        for v in an.value(target.value, ctx)):
                    # (a module's plain tensor attribute too, ``self.cache[:b] = out``:
                    # measured, the store runs the graph and copies to the host each call)
                    return "storing a lazy XLA tensor into a CPU tensor", self.FIX_INTO_CPU
                if isinstance(target, nodes.Subscript) and lazy(node.value, ctx) and (
                        base := an.value(target.value, ctx)) and all(
                        v.kind is Kind.HOST and v.qual == "numpy" for v in base):
                    # ``loss_curve[step] = loss.detach()``: numpy's item assignment converts
                    # the lazy tensor (``__float__``), a copy to the host
                    return "a tensor stored into a numpy array", fix
        return None

    def _format_string(self, node: nodes.NodeNG) -> bool:
        """``node`` is a format string: a literal, or an expression of literals
        (``"%11s" * 2 + "%11.4g" * n``)."""
        if const_str(node) is not None:
            return True
        if isinstance(node, nodes.BinOp) and node.op in ("+", "*"):
            parts = [p for p in (node.left, node.right)
                     if not (node.op == "*" and not self._format_string(p))]
            return bool(parts) and all(self._format_string(p) for p in parts)
        return False

    def _decodes_growing_ids(self, call: nodes.Call) -> bool:
        """``print(tokenizer.decode(ids[0]))`` in the body of a generation loop: a ``range``
        or ``while`` loop whose iterations run a forward pass and carry a lazy tensor to
        the next (``ids = torch.cat([ids, nxt], 1)``), decoding ids it computes (the
        sequence so far, or the new token), so every new token is read back to the host.
        Decoding once per prompt or per batch is not this."""
        an = self.an
        root = chain_root(call.args[0])
        collected = False
        if isinstance(root, nodes.Call) and root.args and isinstance(root.args[0], nodes.Name) \
                and (an.qualname(root.func) or "") in ("torch.cat", "torch.stack"):
            root = root.args[0]  # ``torch.cat(generated, -1)``: the list of tokens so far
            collected = True
        if not isinstance(root, nodes.Name):
            return False
        loop = call.parent
        while loop is not None and not isinstance(loop, (*LOOPS, nodes.FunctionDef,
                                                         nodes.Lambda, nodes.Module)):
            loop = loop.parent
        if isinstance(loop, nodes.For):
            if not (isinstance(loop.iter, nodes.Call) and an.is_builtin(loop.iter.func, "range")
                    and an.steps.is_forward_loop(loop)):
                return False
        elif isinstance(loop, nodes.While):
            if not any(an.steps.is_forward_call(c, cx, loop=loop)
                       for c, cx in an.steps.calls_in(loop, into_loops=False)):
                return False
        else:
            return False
        binds = an.ev.bindings(root)
        fresh = any(loop.parent_of(b) for b in binds)  # (a new list per iteration)
        if not (collected or fresh) or collected and not any(
                isinstance(c.func, nodes.Attribute) and c.func.attrname in ("append", "extend")
                and isinstance(c.func.expr, nodes.Name) and c.func.expr.name == root.name
                and (enclosing_loop(c) is loop or not fresh)
                for c in nodes_of(loop, nodes.Call)):
            # decoded ids that the loop does not compute, nor collect in its own body (an
            # inner loop's tokens, decoded once per sample, are that loop's result)
            return False
        # the loop carries tensors across its iterations (the ids it extends), which a
        # loop over prompts that generates for each one does not
        frame = loop.frame()
        for name, assigned in an.ev._loop_assigns(loop).items():
            if any(b.lineno < loop.lineno and not loop.parent_of(b)
                   for b in frame.locals.get(name, ())) and any(
                    an.is_lazy(b) for b in assigned):
                return True
        return False

    def _false(self, flag: nodes.NodeNG, ctx: Ctx | None) -> bool:
        """``flag`` is False on the XLA path: a False constant, a name bound only to
        False, or a test that the XLA path makes False."""
        if xla_truth(flag, self.an.ev) is False:
            return True
        return V.known_bool(self.an.value(flag, ctx)) is False

    def _compared_items(self, call: nodes.Call) -> nodes.NodeNG | None:
        """The argument whose items a comparing call compares: the first of ``sorted``,
        ``min`` and ``max``, the second of ``heapq.nlargest(n, items)``; None when the
        call passes none."""
        at = 1 if (self.an.qualname(call.func) or "").startswith("heapq.") else 0
        return call.args[at] if len(call.args) > at else None

    def _lazy_items(self, call: nodes.Call, ctx: Ctx | None, strong: bool) -> bool:
        """The items ``sorted(xs)`` compares are lazy tensors themselves (the pairs of
        ``sorted(d.items())`` compare their distinct names first, never their tensors)."""
        arg = self._compared_items(call)
        items = self.an.ev.iterate(self.an.value(arg, ctx), 0) if arg is not None \
            else frozenset()
        return bool(items) and all(V.lazy_value(v, strong) for v in items)

    def _lazy_keys(self, call: nodes.Call, ctx: Ctx | None, strong: bool) -> bool:
        """``key=lambda item: ...`` (or ``key=itemgetter(k)``) of ``sorted``/``min``/``max``
        (or ``heapq.nlargest``/``nsmallest``) gives a lazy tensor for the items compared:
        the keys are compared on the host."""
        key = keyword(call, "key")
        arg = self._compared_items(call)
        if arg is None:
            return False
        ev = self.an.ev
        if isinstance(key, nodes.Call) and self.an.qualname(key.func) == "operator.itemgetter" \
                and len(key.args) == 1 and isinstance(key.args[0], nodes.Const) and \
                type(key.args[0].value) is int:
            # ``key=itemgetter(0)`` of (lazy score, index) pairs: the scores are compared
            k = key.args[0].value
            items = ev.iterate(self.an.value(arg, ctx), 0)
            return any(v.kind in (Kind.TUPLE, Kind.LIST) and v.elts is not None and
                       len(v.elts) > k and any(V.lazy_value(x, strong) for x in v.elts[k])
                       for v in items)
        if not isinstance(key, nodes.Lambda) or len(key.args.args or []) != 1:
            return False
        from flake8_xla.analysis.flows import CallArgs
        items = ev.iterate(self.an.value(arg, ctx), 0)
        depth = ctx.depth + 1 if ctx is not None else 1
        kctx = ev.ctx_for_values(key, CallArgs((items,), (), False, False), ctx, depth, 0)
        return any(V.lazy_value(v, strong) for v in ev.value(key.body, kctx, 0))

    def _to_cpu(self, call: nodes.Call, ctx: Ctx | None) -> bool:
        from flake8_xla.analysis.specs import device_value

        dev = keyword(call, "device") or call.args[0]
        is_dev, device = device_value(self.an.ev, dev, ctx, 0)
        return is_dev and device == "cpu"

    @staticmethod
    def _prog_bar(call: nodes.Call) -> bool:
        """``self.log(..., prog_bar=True)`` that shows the value at each step, or
        ``sync_dist=True`` that reduces it across the replicas at each step (on XLA,
        Lightning's ``XLAStrategy.reduce`` is ``xm.mesh_reduce``: a rendezvous and a copy
        to the host; ``pytorch/strategies/xla.py``). Lightning logs at the step only with
        ``on_step=True``, its default in ``training_step`` alone (``validation_step``/
        ``test_step`` default to the epoch: the value is accumulated on the device and
        read at the epoch's end; Lightning ``core/module.py`` ``log()``, "Logging" guide's
        table of hook defaults)."""
        if not any(isinstance(flag := keyword(call, name), nodes.Const) and flag.value is True
                   for name in ("prog_bar", "sync_dist")):
            return False
        on_step = keyword(call, "on_step")
        if on_step is not None:
            return not (isinstance(on_step, nodes.Const) and on_step.value is False)
        name = getattr(enclosing_function(call), "name", "")
        return not name.startswith(
            ("validation_step", "test_step", "predict_step", "on_validation", "on_test",
             "on_predict"))

    def _debug_dropped(self, func: nodes.NodeNG) -> bool:
        """``log.debug("loss %s", loss)`` in a module that sets its logging level above
        DEBUG (``logging.basicConfig(level=logging.INFO)``, ``log.setLevel("WARNING")``)
        and never to DEBUG, or, setting none itself, in a project whose neighbouring
        modules (the script that imports it) set only such levels: logging drops the
        record before it formats its arguments (``Logger.debug`` tests ``isEnabledFor``
        first), so the tensor is never read."""
        name = func.attrname if isinstance(func, nodes.Attribute) else (
            func.name if isinstance(func, nodes.Name) else "")
        if name != "debug":
            return False
        levels = self._logging_levels(self.an)
        if not levels and self.an.link is not None:
            # (set where the program starts: ``logging.basicConfig(level=logging.INFO)`` in
            # the training script that imports this engine module)
            for other in self.an.link.iter_neighbour_analyzers(hops=2):
                if other is not self.an:
                    levels += self._logging_levels(other)
        return bool(levels) and all(lv is not None and lv > 10 for lv in levels)

    @staticmethod
    def _logging_levels(an: Analyzer) -> list[int | None]:
        """The levels ``an``'s module sets with ``logging.basicConfig(level=...)`` and
        ``setLevel(...)`` (None for one that is not a known constant)."""
        levels: list[int | None] = []
        for call in [*an.calls_named("basicConfig"), *an.calls_named("setLevel")]:
            level = keyword(call, "level") if call.func.as_string().endswith(
                "basicConfig") else (call.args[0] if call.args else None)
            if level is None:
                continue
            text = const_str(level) or (level.attrname if isinstance(
                level, nodes.Attribute) else None)
            levels.append(_LEVELS.get((text or "").upper()))
        return levels

    @staticmethod
    def _format_fields(call: nodes.Call) -> frozenset[str] | None:
        """The fields a ``"...".format(**d)`` call of a literal format string names
        (``"{name}: {count} samples"``: name, count); None for any other call."""
        f = call.func
        if not (isinstance(f, nodes.Attribute) and f.attrname == "format"):
            return None
        text = const_str(f.expr)
        if text is None:
            return None
        try:
            return frozenset(field.split(".")[0].split("[")[0]
                             for _, field, _, _ in string.Formatter().parse(text) if field)
        except ValueError:
            return None

    @staticmethod
    def _read_arguments(call: nodes.Call, fields: frozenset[str] | None
                        ) -> list[nodes.NodeNG]:
        """The arguments a reading call converts on the host: every one, except the
        keywords of a literal format string's ``.format`` that it does not name
        (``fields``, see :meth:`_format_fields`; a ``**d`` is asked entry by entry, see
        :meth:`_formats_lazy_entry`)."""
        return list(call.args) + [k.value for k in call.keywords or ()
                                  if fields is None or k.arg is not None and k.arg in fields]

    def _formats_lazy_entry(self, call: nodes.Call, fields: frozenset[str] | None,
                            ctx: Ctx | None, strong: bool) -> bool:
        """``"{name}: {last}".format(**self.__dict__)``: an entry that the literal format
        string names (``fields``, see :meth:`_format_fields`) holds a lazy tensor
        (``str.format`` formats only the fields it names)."""
        if not fields:
            return False
        for k in call.keywords or ():
            if k.arg is not None:
                continue
            for v in self.an.value(k.value, ctx):
                if v.kind is not Kind.DICT or v.items is None:
                    if V.holds_lazy(frozenset({v}), strong=strong):
                        return True  # (entries unknown by name: any may be formatted)
                    continue
                if any(key in fields and V.holds_lazy(vs, strong=strong)
                       for key, vs in v.items):
                    return True
        return False

    @staticmethod
    def _read_what(func: nodes.NodeNG) -> str:
        if isinstance(func, nodes.Name):
            name = func.name
            if name == "print":
                return "print() of a tensor"
            return f"{name}() of a tensor"
        if isinstance(func, nodes.Attribute):
            if func.attrname == "format":
                return "str.format() of a tensor"
            if func.attrname in ("debug", "info", "warning", "error", "critical", "log",
                                 "exception", "warn"):
                return "a logging call with a tensor"
            return f"{func.as_string()[:30]}() with a tensor (it converts the value on the host)"
        return "a call that reads a tensor on the host"


class AnomalyDetection(Rule):
    """XLA202: autograd anomaly detection switched on for training on XLA.

    Source: ``torch/autograd/anomaly_mode.py`` (``detect_anomaly`` checks every backward
    op's output for NaN, which reads each value on the host) and PyTorch/XLA "Known
    performance caveats" (value reads force graph execution).
    """

    code = "XLA202"
    name = "anomaly-detection-in-training"
    message = ("anomaly detection on: {what} makes every backward op check its output for NaN "
               "on the host, a device-to-host sync per op on XLA; switch it off for training "
               "(use it only to debug a few steps on the CPU)")
    explanation = """\
`torch.autograd.set_detect_anomaly(True)` and `with torch.autograd.detect_anomaly():`
make autograd record a traceback for every op and check every backward result for
NaN. The check reads each gradient's value: on an XLA device each read cuts the lazy
graph, executes it and copies the result to the host, so a step turns into hundreds
of small executions.

Measured (checks/XLA202, PJRT_DEVICE=CPU): see the pair's case.toml.

**Example**
```python
torch.autograd.set_detect_anomaly(True)
for x, y in loader:
    loss_fn(model(x), y).backward()
```
**Use instead**
```python
torch.autograd.set_detect_anomaly(False)  # or drop the call
```
Not reported: `set_detect_anomaly(False)`, code off the XLA path, and anomaly mode
switched on by a run setting (`if args.detect_anomaly:`, `set_detect_anomaly(cfg.debug)`):
the user turns it on to debug, as with `set_detect_anomaly(flag)` itself. An argparse
option that is on by default (`default=True`, `action="store_false"`, or
`parser.set_defaults(...)`, also in an argument group) is no such switch: every run that
does not turn it off trains with anomaly mode, and it is reported. A setting that is
literally False (`class CFG: debug = False`), a test that needs an off-by-default flag
(`if args.debug and is_master:`), and `check_nan=False` (no NaN check, so no host read)
are not reported, nor is anomaly mode in a program that never runs `backward()` (an
inference script: neither the module, nor a project function it calls, nor a project
module that imports it calls it), nor a `with detect_anomaly():` block that runs no
backward.
"""
    source = ("https://docs.pytorch.org/docs/stable/autograd.html#anomaly-detection",
              "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats")

    @classmethod
    def precondition(cls, facts: FileFacts) -> bool:
        return facts.any_ident(words()["anomaly"])

    def check(self) -> Iterator[Finding]:
        an = self.an
        if an is None or not self._backward_may_run():
            return
        for call in an.rule_nodes(nodes.Call):
            if not an.does(call, "anomaly") or an.off_xla_path(call) or \
                    self._behind_switch(call):
                continue
            q = an.qualname(call.func) or ""
            flag = call.args[0] if call.args else keyword(call, "mode")
            check_nan = call.args[1] if len(call.args) > 1 else keyword(call, "check_nan")
            if check_nan is not None and self._default_truth(check_nan) is False:
                continue  # no NaN check, so no host read of each op's output
            what = call.as_string()[:60]
            if q.endswith("set_detect_anomaly"):
                values = an.value(flag) if flag is not None else V.EMPTY
                if any(v.kind is Kind.HOST and v.text == "True" for v in values) or (
                        flag is not None and self._default_truth(flag) is True):
                    yield self.finding(call, what=what)
            elif q.endswith("detect_anomaly"):
                if isinstance(flag, nodes.Const) and flag.value is False or \
                        self._cpu_only_block(call) or self._no_backward_inside(call):
                    continue
                yield self.finding(call, what=what)

    def _backward_may_run(self) -> bool:
        """Some code that may run with this module's anomaly mode calls ``backward()``: the
        module itself, a project function it calls (up to three calls deep), or, with the
        project link, a module that imports it (directly or through others: a settings
        module imported by the training script). An inference script (``with
        torch.inference_mode():`` over a test set, a model builder imported from the
        training script) runs no backward, so anomaly mode checks nothing there."""
        an = self.an
        if self._calls_backward(an.module.body):
            return True
        link = an.link
        rel = link.rel_of(an) if link is not None else None
        if rel is None:
            return False
        for m in link.index.importers(rel):
            facts = link.index.facts(m)
            if facts is None or "backward" in facts.call_attrs:
                return True
        return False

    def _calls_backward(self, body: list[nodes.NodeNG], depth: int = 0,
                        seen: set[int] | None = None) -> bool:
        """A ``.backward(...)`` call in ``body``, or in a project function it calls (up to
        three calls deep; a function defined in ``body`` counts where it is called)."""
        an = self.an
        seen = set() if seen is None else seen
        for stmt in body:
            for call in nodes_of(stmt, nodes.Call):
                if isinstance(call.func, nodes.Attribute) and call.func.attrname == "backward":
                    return True
                if depth >= 3:
                    continue
                for func, _ in an.ev.functions_called(call, None):
                    if isinstance(func, nodes.FunctionDef) and id(func) not in seen:
                        seen.add(id(func))
                        if self._calls_backward(func.body, depth + 1, seen):
                            return True
        return False

    def _no_backward_inside(self, call: nodes.Call) -> bool:
        """``with torch.autograd.detect_anomaly():`` around code that runs no backward
        (an evaluation loop under ``torch.no_grad()``): the mode checks nothing there."""
        item = call.parent
        if not isinstance(item, nodes.With):
            return False
        return not self._calls_backward(item.body)

    def _behind_switch(self, call: nodes.Call) -> bool:
        """``call`` runs only when a run setting says so (``if args.debug:``, ``if not
        cfg.fast:``, ``if cfg.get("detect_anomaly"):``, ``if os.environ.get("DEBUG"):``,
        ``if args.debug and xm.is_master_ordinal():``) whose value on the XLA path is not
        known, a debugging switch of the run as ``set_detect_anomaly(args.debug)`` is; or
        in a branch that a setting's known value or command-line default does not take
        (``CFG.debug = False``, a ``store_true`` flag)."""
        child: nodes.NodeNG = call
        cur = call.parent
        while cur is not None and not isinstance(cur, (nodes.FunctionDef, nodes.Module)):
            if isinstance(cur, (nodes.If, nodes.IfExp)) and child is not cur.test and \
                    xla_truth(cur.test, self.an.ev) is None:
                state = self._switch_state(cur.test)
                if state == "set":
                    return True
                if state is not None:
                    taken = any(s is child for s in cur.body) if isinstance(cur, nodes.If) \
                        else child is cur.body
                    if state is not taken:
                        return True  # a branch the run takes only when told to
                    # (the branch the setting's default takes: anomaly mode is on)
            child, cur = cur, cur.parent
        return False

    def _default_truth(self, test: nodes.NodeNG) -> bool | None:
        """The truth of ``test`` by a known value or the command line's defaults (see
        :meth:`_switch_state`); None when it is not known."""
        state = self._switch_state(test)
        return state if isinstance(state, bool) else None

    def _switch_state(self, test: nodes.NodeNG, depth: int = 0) -> bool | str | None:
        """What a test of run settings gives by default: True or False when its value is
        known (a literal bound to it, an argparse option's ``default=``, or the default
        of a ``store_true``/``store_false`` flag, :func:`~flake8_xla.analysis.specs.
        option_default`), ``"set"`` when it reads run settings of unknown value (an
        attribute or key of a settings object, ``.get()``/``getattr``/``os.getenv``, a
        parameter, a name bound to one of these), and None when it is not such a test
        (a value the code computes: ``step < 10``, ``xm.is_master_ordinal()``). ``not``,
        ``and``, ``or`` and comparisons with True/False combine their parts."""
        if depth > 4:
            return None
        known = V.known_bool(self.an.value(test))
        if known is not None and not isinstance(test, (nodes.BoolOp, nodes.UnaryOp)):
            return known
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            inner = self._switch_state(test.operand, depth + 1)
            return (not inner) if isinstance(inner, bool) else inner
        if isinstance(test, nodes.BoolOp):
            parts = [self._switch_state(v, depth + 1) for v in test.values]
            stop = test.op != "and"  # the value that decides: False for and, True for or
            if stop in parts:
                return stop
            if "set" in parts and (test.op == "and" or all(p is not None for p in parts)):
                return "set"  # on only where the user turns a setting on
            return (not stop) if all(p is (not stop) for p in parts) else None
        if isinstance(test, nodes.Compare):
            if len(test.ops) != 1:
                return None
            op, right = test.ops[0]
            if op not in ("is", "is not", "==", "!=") or not (
                    isinstance(right, nodes.Const) and isinstance(right.value, bool)):
                return None
            inner = self._switch_state(test.left, depth + 1)
            if not isinstance(inner, bool):
                return inner
            same = right.value if op in ("is", "==") else not right.value
            return inner if same else not inner
        if isinstance(test, nodes.Attribute):
            from flake8_xla.analysis.specs import option_default
            try:
                default = option_default(self.an.ev, test, None, 0)
            except Exception:  # noqa: BLE001 - unknown: a setting
                default = None
            return "set" if default is None else bool(default)
        if isinstance(test, nodes.Subscript):
            return "set"
        if isinstance(test, nodes.Call):
            func = test.func
            if (isinstance(func, nodes.Attribute) and func.attrname == "get") or \
                    self.an.is_builtin(func, "getattr") or self.an.qualname(func) == "os.getenv":
                return "set"
            return None
        if isinstance(test, nodes.Name):
            binds = self.an.ev.bindings(test)
            if len(binds) != 1:
                return None
            bind = binds[0]
            if isinstance(bind, nodes.AssignName) and isinstance(bind.parent, nodes.Arguments):
                return "set"  # a parameter: the caller's setting
            if isinstance(bind, nodes.AssignName) and isinstance(bind.parent, nodes.Assign):
                return self._switch_state(bind.parent.value, depth + 1)
        return None

    def _cpu_only_block(self, call: nodes.Call) -> bool:
        """``with detect_anomaly():`` around backward passes of CPU tensors only."""
        with_node = call.parent
        if not isinstance(with_node, nodes.With):
            return False
        losses = [c.func.expr for stmt in with_node.body for c in nodes_of(stmt, nodes.Call)
                  if isinstance(c.func, nodes.Attribute) and c.func.attrname == "backward"]
        return bool(losses) and all(
            (vs := self.an.value(loss)) and all(v.kind is Kind.TENSOR and v.device == "cpu"
                                                for v in vs) for loss in losses)


class PossibleHostSync(HostSync):
    """XLA901: a host read in the step of a tensor whose device is not known (opt-in).

    The noisy variant of XLA201: the tensor is computed only from values the analysis
    knows nothing about (a parameter with no call site, an unknown library call), so it
    may be a CPU tensor. Off unless selected (``--extend-select=XLA901``).

    Source: as XLA201, PyTorch/XLA "Troubleshooting: known performance caveats".
    """

    code = "XLA901"
    name = "possible-host-sync"
    opt_in = True
    measurable = False
    weak = True
    fix = "none"
    message = ("possible host sync {where}: {what} copies a tensor to the host, which on the "
               "XLA device executes the pending graph and stalls it; if the tensor is on the "
               "XLA device, {fix}")
    explanation = """Like XLA201, but for tensors whose device the linter cannot tell: a value computed
only from function parameters with no call site in the file, or from calls it does
not know. On the XLA device the read costs what XLA201 measures (checks/XLA201); on
the CPU it costs nothing. Turn it on to review such reads:
`flake8 --select=XLA --extend-select=XLA901`.

**Example**
```python
def train(model, loader, optimizer):
    for x, y in loader:
        loss = loss_fn(model(x), y)
        loss.backward(); optimizer.step()
        stats.append(loss.cpu())
```
**Use instead**
```python
        xm.add_step_closure(lambda t: stats.append(t.cpu()), args=(loss,))
```
"""


def _names_xla(test: nodes.NodeNG) -> bool:
    """``device.type == "xla"`` (or ``in ("xla", "neuron")``): a test that holds on the XLA
    device, whatever the linter knows of the value it compares."""
    if not isinstance(test, nodes.Compare) or len(test.ops) != 1 or \
            test.ops[0][0] not in ("==", "in"):
        return False
    right = test.ops[0][1]
    texts = [const_str(e) for e in right.elts] if isinstance(
        right, (nodes.Tuple, nodes.List, nodes.Set)) else [const_str(right)]
    return "xla" in texts
