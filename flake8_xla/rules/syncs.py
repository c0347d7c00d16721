"""XLA2xx: device-to-host transfers that force a graph execution mid-step."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import (
    LOG_METHODS,
    SCALAR_SYNC_METHODS,
    SYNC_BUILTINS,
    SYNC_METHODS,
    Env,
    const_str,
    source_key,
)
from flake8_xla.context import Finding
from flake8_xla.rules.base import Rule

BULK_KINDS = frozenset({".cpu()", ".numpy()", ".to('cpu')"})
# Calls that turn a tensor argument into a Python number or array on the host.
HOST_LOGGERS = frozenset({"wandb.log", "mlflow.log_metric", "mlflow.log_metrics"})
HOST_LOGGER_METHODS = frozenset({"add_scalar", "add_scalars", "add_histogram", "set_postfix",
                                 "set_postfix_str", "log_metrics", "log_metric"})
LOGGER_NAMES = ("logger", "log", "logging", "_logger", "LOGGER", "LOG")


class HostSync(Rule):
    """XLA201: a lazy XLA tensor read on the host inside a step loop.

    Source: PyTorch/XLA "Troubleshooting: known performance caveats" (``.item()``
    and printing tensors force execution) and the ``xm.add_step_closure`` API docs.
    """

    code = "XLA201"
    fix = "unsafe"
    name = "host-sync-in-step"
    message = ("host sync {where}: {what} copies a lazy XLA tensor to the host, which "
               "executes the pending graph and stalls the device; {fix}")
    FIX_STEP = "log it inside xm.add_step_closure(...) or read it once after the loop"
    FIX_PARAM = ("reduce on the device first (e.g. torch.stack([...]).tolist() once) instead "
                 "of one read per parameter")
    explanation = """\
A lazy XLA tensor has no value until its graph runs. `.item()`, `.tolist()`, `.cpu()`,
`.numpy()`, `float(t)`, `print(t)`, a logging call, an f-string or `%`/`str.format`
of a tensor all need the value, so torch_xla cuts the graph there, compiles and
executes it, and copies the result to the host, before the step's own
`torch_xla.sync()`. The device idles while the host waits.

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
Not reported: code inside a step closure, code that runs once after the loop, CPU
tensors and Python numbers.
"""
    source = (
        "https://docs.pytorch.org/xla/master/learn/troubleshoot.html#known-performance-caveats",
        "https://docs.pytorch.org/xla/master/learn/api-guide.html#torch_xla.core.xla_model.add_step_closure",
    )
    versions = "all"

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        self.an = an
        reported: set[tuple[int, int]] = set()
        for node, env, scalar_only in an.step_region():
            what = self._sync_kind(node, env, scalar_only)
            if what in BULK_KINDS and id(node) in an.model_loop_nodes:
                continue  # a batch copied out of an inference loop: the transfer is the point
            if what and (node.lineno, node.col_offset) not in reported:
                reported.add((node.lineno, node.col_offset))
                if scalar_only:
                    yield self.finding(node, what=what, where="per model parameter",
                                       fix=self.FIX_PARAM)
                else:
                    yield self.finding(node, what=what, where="in the step loop",
                                       fix=self.FIX_STEP)

    def _sync_kind(self, node: nodes.NodeNG, env: Env, scalar_only: bool) -> str | None:
        an = self.an
        t = an.is_tensor
        if isinstance(node, nodes.Call):
            func = node.func
            if isinstance(func, nodes.Attribute):
                name = func.attrname
                methods = SCALAR_SYNC_METHODS if scalar_only else SYNC_METHODS
                if name in methods and t(func.expr, env):
                    return f".{name}()"
                if name == "to" and not scalar_only and node.args and an.is_cpu_device(
                        node.args[0]) and t(func.expr, env):
                    return ".to('cpu')"
            if isinstance(func, nodes.Name) and func.name in SYNC_BUILTINS and \
                    an.is_builtin(func, func.name) and node.args and t(node.args[0], env):
                return f"{func.name}()"
            if scalar_only:
                return None
            args = list(node.args) + [k.value for k in node.keywords or ()]
            if an.is_builtin(func, "print") and any(t(a, env) for a in args):
                return "print() of a tensor"
            if self._is_log_call(func) and any(t(a, env) for a in args):
                return "a logging call with a tensor"
            if isinstance(func, nodes.Attribute) and func.attrname == "format" and \
                    const_str(func.expr) is not None and any(t(a, env) for a in args):
                return "str.format() of a tensor"
            if isinstance(func, nodes.Name) and func.name in ("str", "repr", "format") and \
                    an.is_builtin(func, func.name) and node.args and t(node.args[0], env):
                return f"{func.name}() of a tensor"
            q = an.qualname(func) or ""
            if q.startswith(("numpy.", "math.")) and any(t(a, env) for a in node.args):
                return f"{q.replace('numpy.', 'np.')}() of a tensor"
            if (q in HOST_LOGGERS or (isinstance(func, nodes.Attribute) and
                                      func.attrname in HOST_LOGGER_METHODS)) and \
                    any(t(a, env) for a in args):
                name = q or f".{func.attrname}"
                return f"{name}() with a tensor (it converts the value on the host)"
        if scalar_only:
            return None
        if isinstance(node, nodes.JoinedStr) and any(
                isinstance(v, nodes.FormattedValue) and t(v.value, env) for v in node.values):
            return "an f-string of a tensor"
        if isinstance(node, nodes.BinOp) and node.op == "%" and const_str(node.left) is not None:
            right = node.right
            items = right.elts if isinstance(right, nodes.Tuple) else [right]
            if any(t(i, env) for i in items):
                return "%-formatting of a tensor"
        return None

    def _is_log_call(self, func: nodes.NodeNG) -> bool:
        if not isinstance(func, nodes.Attribute):
            return False
        q = self.an.qualname(func) or ""
        if q in ("torch_xla.core.xla_model.master_print", "tqdm.tqdm.write"):
            return True
        if func.attrname not in LOG_METHODS:
            return False
        base = (source_key(func.expr) or "").split(".")[-1]
        return q.startswith("logging.") or base in LOGGER_NAMES or base.endswith("logger")
