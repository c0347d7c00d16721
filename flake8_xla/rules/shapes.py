"""XLA1xx: dynamic shapes that make XLA compile a new graph."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import NO_ENV, const_str, keyword, mentions, source_key
from flake8_xla.context import Finding
from flake8_xla.rules.base import Rule

TOKENIZER_METHODS = frozenset({"pad", "batch_encode_plus", "encode_plus", "prepare_seq2seq_batch",
                               "__call__", "encode", "batch_encode"})
COLLATORS = frozenset({"DataCollatorWithPadding", "DataCollatorForSeq2Seq",
                       "DataCollatorForTokenClassification"})
XLA_WORDS = ("xla", "tpu", "trainium", "neuron")


class DynamicPadding(Rule):
    """XLA101: padding to the longest sequence of each batch.

    Source: PyTorch/XLA "Known performance caveats" (dynamic shapes cause
    recompilation) and the transformers docs on ``padding`` / data collators
    (``'longest'`` is the default of ``DataCollatorWithPadding``).
    """

    code = "XLA101"
    fix = "unsafe"
    name = "dynamic-padding"
    message = ("dynamic padding: {what} pads each batch to its longest sequence, so every new "
               "length is a new graph shape and XLA recompiles; use padding='max_length' with "
               "max_length=N (or pad_to_multiple_of to bound the shapes)")
    explanation = """\
Padding to the longest sequence in each batch gives a new input shape whenever that
length changes. XLA traces a graph per shape and compiles every new one, so a
training run compiles again on most steps instead of reusing the cached graph.

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
(`"max_length" if use_tpu else "longest"`) is not reported.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://huggingface.co/docs/transformers/pad_truncation",
    )
    versions = "all"

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for call in an.module_nodes(nodes.Call):
            q = an.qualname(call.func) or ""
            short = q.rsplit(".", 1)[-1] if q.startswith("transformers") else (
                call.func.name if isinstance(call.func, nodes.Name) else "")
            if short in COLLATORS and (q.startswith("transformers") or not q):
                if self._collator_is_dynamic(call):
                    yield self.finding(call, what=f"{short} at its default padding")
                continue
            if q.startswith("torch.nn.utils.rnn.pad_sequence"):
                if self._in_collate_fn(call):
                    yield self.finding(call, what="pad_sequence in a collate function")
                continue
            pad = keyword(call, "padding")
            if q.startswith(("torch.", "tensorflow", "keras")):
                continue
            multiple = keyword(call, "pad_to_multiple_of")
            if multiple is not None and not self._may_be_none(multiple):
                continue  # bounded: a few shapes at most
            if pad is None:
                # tokenizer.pad(features) pads to the longest by default.
                f = call.func
                if isinstance(f, nodes.Attribute) and f.attrname == "pad" and \
                        "tok" in (source_key(f.expr) or "").lower() and \
                        keyword(call, "max_length") is None:
                    yield self.finding(call, what="tokenizer.pad() at its default padding=True")
                continue
            if not self._is_tokenizer_call(call):
                continue
            if self._is_dynamic_strategy(pad, an, 0):
                yield self.finding(pad, what=f"padding={pad.as_string()}")

    def _is_tokenizer_call(self, call: nodes.Call) -> bool:
        func = call.func
        if isinstance(func, nodes.Attribute) and func.attrname in TOKENIZER_METHODS:
            return True
        key = (source_key(func) or "").lower()
        if "tok" in key:
            return True
        kws = {k.arg for k in call.keywords or ()}
        return bool(kws & {"truncation", "return_tensors", "max_length", "return_attention_mask"})

    def _is_dynamic_strategy(self, node: nodes.NodeNG, an, depth: int) -> bool:
        """True when ``node`` may select 'longest' padding on the XLA path."""
        if depth > 6:
            return False
        if isinstance(node, nodes.Const):
            return node.value is True or node.value == "longest"
        if isinstance(node, nodes.Attribute) and node.attrname == "LONGEST":
            return True
        if isinstance(node, nodes.IfExp):
            if mentions(node.test, *XLA_WORDS):
                branch = node.body
                if isinstance(node.test, nodes.UnaryOp) and node.test.op == "not":
                    branch = node.orelse
                return self._is_dynamic_strategy(branch, an, depth + 1)
            return self._is_dynamic_strategy(node.body, an, depth + 1) or \
                self._is_dynamic_strategy(node.orelse, an, depth + 1)
        if isinstance(node, nodes.Name):
            return any(self._is_dynamic_strategy(v, an, depth + 1) for v in an.values_of(node))
        return False

    def _collator_is_dynamic(self, call: nodes.Call) -> bool:
        an = self.ctx.analyzer
        pad = keyword(call, "padding")
        if pad is None and len(call.args) >= 2 and const_str(call.args[0]) is None:
            pad = call.args[1] if (an.qualname(call.func) or "").endswith("WithPadding") else None
        multiple = keyword(call, "pad_to_multiple_of")
        if multiple is not None and not self._may_be_none(multiple):
            return False
        if pad is None:
            return True
        return self._is_dynamic_strategy(pad, an, 0)

    @staticmethod
    def _may_be_none(node: nodes.NodeNG) -> bool:
        if isinstance(node, nodes.Const):
            return node.value is None
        if isinstance(node, nodes.IfExp):
            return DynamicPadding._may_be_none(node.body) or DynamicPadding._may_be_none(
                node.orelse)
        return False

    def _in_collate_fn(self, call: nodes.Call) -> bool:
        """``pad_sequence`` in a collate function whose batches keep the padded length.

        A collate function is named like one, handed to ``collate_fn=`` (a def or a
        lambda), or the ``__call__`` of a collator class. Not reported when the
        function pads the result again to a fixed size (``F.pad``).
        """
        an = self.ctx.analyzer
        func = call.frame()
        if isinstance(func, nodes.Lambda):
            parent = func.parent
            return isinstance(parent, nodes.Keyword) and parent.arg == "collate_fn"
        if not isinstance(func, nodes.FunctionDef):
            return False
        if any((an.qualname(c.func) or "") == "torch.nn.functional.pad"
               for c in func.nodes_of_class(nodes.Call)):
            return False
        if "collate" in func.name.lower():
            return True
        klass = func.parent
        if func.name == "__call__" and isinstance(klass, nodes.ClassDef) and \
                "collat" in klass.name.lower():
            return True
        for other in an.module_nodes(nodes.Call):
            fn = keyword(other, "collate_fn")
            if fn is not None and an.resolve_function(fn) is func:
                return True
        return False


TRAINING_ARGUMENTS = frozenset({"transformers.TrainingArguments",
                                "transformers.Seq2SeqTrainingArguments"})
BOOL_FUNCS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf", "any", "all",
                        "eq", "ne", "gt", "lt", "ge", "le", "logical_and", "logical_or",
                        "logical_not", "is_nonzero"})
DYNAMIC_SHAPE_FUNCS = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive",
                                 "argwhere"})


class RaggedLastBatch(Rule):
    """XLA102: a DataLoader on the XLA path that yields a smaller last batch.

    Source: PyTorch/XLA "Known performance caveats" (every new input shape is a
    new graph) and the torch.utils.data.DataLoader docs (``drop_last``).
    """

    code = "XLA102"
    fix = "unsafe"
    name = "ragged-last-batch"
    message = ("ragged last batch: {what} yields a smaller final batch, a new input shape for "
               "which XLA compiles the whole step graph again; {fix}")
    FIX_LOADER = ("pass drop_last=True for training (pad the last batch instead where every "
                  "sample must count, as in evaluation)")
    FIX_TRAINER = "set dataloader_drop_last=True"
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
Reported only when the loader reaches an XLA loader (`MpDeviceLoader`,
`ParallelLoader`) or a training step loop, and `drop_last` is absent or literally
`False`. Not reported with accelerate, whose prepared loaders even out the
batches across processes (`even_batches=True`).
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://docs.pytorch.org/docs/stable/data.html#torch.utils.data.DataLoader",
    )

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or an.imports.imports_prefix("accelerate"):
            return
        for call in an.module_nodes(nodes.Call):
            q = an.qualname(call.func) or ""
            if q in TRAINING_ARGUMENTS:
                if any(k.arg is None for k in call.keywords or ()):
                    continue  # **kwargs may set it
                drop = keyword(call, "dataloader_drop_last")
                if drop is None or (isinstance(drop, nodes.Const) and drop.value is False):
                    yield self.finding(call, what=f"{q.rsplit('.', 1)[-1]} without "
                                                  "dataloader_drop_last=True",
                                       fix=self.FIX_TRAINER)
                continue
            if not q.endswith("DataLoader") or not q.startswith("torch"):
                continue
            drop = keyword(call, "drop_last")
            if drop is not None and not (isinstance(drop, nodes.Const) and drop.value is False):
                continue
            if keyword(call, "batch_sampler") is not None or any(
                    k.arg is None for k in call.keywords or ()):
                continue  # the batch sampler or **kwargs decide
            batch = keyword(call, "batch_size")
            if batch is None and len(call.args) < 2:
                continue  # batch_size defaults to 1: no ragged batch
            if isinstance(batch, nodes.Const) and batch.value in (1, None):
                continue
            if self._on_xla_path(call):
                yield self.finding(call, what="this DataLoader", fix=self.FIX_LOADER)

    def _on_xla_path(self, call: nodes.Call) -> bool:
        """The loader reaches an XLA loader or a training step loop."""
        an = self.ctx.analyzer
        uses: list[nodes.NodeNG] = [call]
        stmt = call.parent
        if isinstance(stmt, nodes.Assign) and stmt.value is call:
            names = {t.name for t in stmt.targets if isinstance(t, nodes.AssignName)}
            attrs = {t.attrname for t in stmt.targets if isinstance(t, nodes.AssignAttr)}
            scope = stmt.scope()
            for node in scope.nodes_of_class((nodes.Name, nodes.Attribute)):
                if isinstance(node, nodes.Name) and node.name in names or isinstance(node, nodes.Attribute) and node.attrname in attrs:
                    uses.append(node)
        for use in uses:
            parent = use.parent
            while isinstance(parent, nodes.Call) and (
                    an.qualname(parent.func) or source_key(parent.func) or "") in (
                    "enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "iter"):
                use, parent = parent, parent.parent
            if isinstance(parent, nodes.Call) and use in parent.args and (
                    (an.qualname(parent.func) or "").startswith(
                        "torch_xla.distributed.parallel_loader.")):
                return True
            if isinstance(parent, nodes.For) and parent.iter is use and \
                    an.is_training_loop(parent):
                return True
        return False


def _bool_mask(an, node: nodes.NodeNG, env) -> bool:
    """A lazy boolean tensor: a comparison of a lazy tensor, or a name bound to one."""
    if isinstance(node, nodes.Compare):
        return an.is_tensor(node, env)
    if isinstance(node, nodes.UnaryOp) and node.op == "~":
        return _bool_mask(an, node.operand, env)
    if isinstance(node, nodes.BinOp) and node.op in ("&", "|"):
        return _bool_mask(an, node.left, env) or _bool_mask(an, node.right, env)
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and \
            node.func.attrname in ("isnan", "isinf", "isfinite", "eq", "ne", "gt", "lt", "ge",
                                   "le", "logical_and", "logical_or", "logical_not", "bool"):
        return an.is_tensor(node, env)
    if isinstance(node, nodes.Name):
        return any(isinstance(v, (nodes.Compare, nodes.UnaryOp, nodes.BinOp, nodes.Call))
                   and _bool_mask(an, v, env) for v in an.values_of(node))
    return False


class DataDependentControlFlow(Rule):
    """XLA103: Python control flow on the value of a lazy XLA tensor.

    Source: PyTorch/XLA "Known performance caveats" (data-dependent control flow
    forces execution) and the PyTorch/XLA dynamic shape notes.
    """

    code = "XLA103"
    fix = "none"
    name = "data-dependent-control-flow"
    message = ("data-dependent control flow: {what} needs the value of a lazy XLA tensor, so "
               "the pending graph executes and the result is copied to the host each step; keep "
               "the decision on the device with torch.where or a mask")
    explanation = """\
`if loss > x:`, `while not done:`, `assert (t >= 0).all()`, or `a if flag else b`
where the test is a lazy XLA tensor: Python needs a bool, so torch_xla executes
the graph up to that point and copies the answer to the host, inside every step.
Each branch taken can also trace a different graph.

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
Reported inside training, evaluation and generation step loops. Not reported:
`is None` tests, shapes, Python numbers, CPU tensors.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://docs.pytorch.org/xla/master/learn/dynamic_shape.html",
    )

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        seen: set[int] = set()
        tests: list[tuple[nodes.NodeNG, object, str]] = []
        for node, env, per_param in an.step_region():
            if per_param:
                continue
            if isinstance(node, (nodes.If, nodes.While, nodes.IfExp)):
                tests.append((node.test, env, type(node).__name__.lower().replace("ifexp",
                                                                                  "a conditional")))
            elif isinstance(node, nodes.Assert):
                tests.append((node.test, env, "assert"))
        for loop in an.module_nodes(nodes.While):
            if an.is_step_loop(loop):
                tests.append((loop.test, NO_ENV, "while"))
        for test, env, kind in tests:
            if id(test) in seen:
                continue
            seen.add(id(test))
            if self._reads_value(test, env):
                word = kind if kind == "a conditional" else f"`{kind}`"
                yield self.finding(test, what=f"{word} on {test.as_string()[:40]}")

    def _reads_value(self, test: nodes.NodeNG, env) -> bool:
        an = self.ctx.analyzer
        if isinstance(test, nodes.BoolOp):
            return any(self._reads_value(v, env) for v in test.values)
        if isinstance(test, nodes.UnaryOp) and test.op == "not":
            return self._reads_value(test.operand, env)
        if isinstance(test, nodes.Compare):
            return an.is_tensor(test, env)
        if isinstance(test, nodes.Call):
            f = test.func
            q = an.qualname(f) or ""
            if isinstance(f, nodes.Attribute) and f.attrname in ("any", "all") and \
                    an.is_tensor(f.expr, env):
                return True
            if q in ("torch.equal", "torch.allclose"):
                return any(an.is_tensor(a, env) for a in test.args)
            # torch.isnan(loss), torch.any(t), loss.isfinite(): a lazy bool tensor.
            if q.startswith("torch.") and q.rsplit(".", 1)[-1] in BOOL_FUNCS:
                return any(an.is_tensor(a, env) for a in test.args)
            return isinstance(f, nodes.Attribute) and f.attrname in BOOL_FUNCS and \
                an.is_tensor(f.expr, env)
        if isinstance(test, nodes.Name):
            return _bool_mask(an, test, env)
        return False


class DynamicShapeOp(Rule):
    """XLA104: an op whose output shape depends on tensor values.

    Source: PyTorch/XLA dynamic shape docs (``nonzero``, ``masked_select`` and
    boolean indexing have data-dependent output shapes) and "Known performance
    caveats".
    """

    code = "XLA104"
    fix = "none"
    name = "dynamic-shape-op"
    message = ("dynamic-shape op: {what} has an output shape that depends on tensor values, so "
               "XLA must execute to learn the shape and compiles a new graph per size; use "
               "fixed-size masks (torch.where, multiply by the mask) instead")
    explanation = """\
`torch.nonzero`, `masked_select`, `unique`, boolean-mask indexing `t[t > 0]` and
slicing by a tensor value `t[:n_tensor]` produce outputs whose size depends on the
data. XLA compiles for static shapes: it has to execute the pending graph to learn
the size, and every new size is a new graph to compile.

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
Reported inside step loops. Not reported on CPU tensors (for example in
`Dataset.__getitem__` or a collate function).
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/dynamic_shape.html",
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
    )

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        seen: set[tuple[int, int]] = set()
        for node, env, per_param in an.step_region():
            if per_param:
                continue
            what = self._kind(node, env)
            if what and (node.lineno, node.col_offset) not in seen:
                seen.add((node.lineno, node.col_offset))
                yield self.finding(node, what=what)

    def _kind(self, node: nodes.NodeNG, env) -> str | None:
        an = self.ctx.analyzer
        if isinstance(node, nodes.Call):
            f = node.func
            q = an.qualname(f) or ""
            short = q.rsplit(".", 1)[-1]
            if q.startswith("torch.") and short in DYNAMIC_SHAPE_FUNCS and node.args and \
                    an.is_tensor(node.args[0], env):
                return f"torch.{short}"
            if q == "torch.where" and len(node.args) == 1 and an.is_tensor(node.args[0], env):
                return "torch.where(cond) with one argument"
            if isinstance(f, nodes.Attribute) and f.attrname in DYNAMIC_SHAPE_FUNCS and \
                    not q and an.is_tensor(f.expr, env):
                return f".{f.attrname}()"
        if isinstance(node, nodes.Subscript) and an.is_tensor(node.value, env):
            index = node.slice
            if _bool_mask(an, index, env):
                return "boolean-mask indexing"
            parts = index.elts if isinstance(index, nodes.Tuple) else [index]
            for part in parts:
                if isinstance(part, nodes.Slice) and any(
                        b is not None and an.is_tensor(b, env)
                        for b in (part.lower, part.upper)):
                    return "slicing by a tensor value"
        return None
