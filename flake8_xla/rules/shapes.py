"""XLA1xx: dynamic shapes that make XLA compile a new graph."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import const_str, keyword, mentions, source_key
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
        for call in an.module.nodes_of_class(nodes.Call):
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
            if pad is None or q.startswith(("torch.", "tensorflow", "keras")):
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
        an = self.ctx.analyzer
        func = call.frame()
        if not isinstance(func, nodes.FunctionDef):
            return False
        if "collate" in func.name.lower():
            return True
        for other in an.module.nodes_of_class(nodes.Call):
            fn = keyword(other, "collate_fn")
            if fn is not None and an.resolve_function(fn) is func:
                return True
        return False
