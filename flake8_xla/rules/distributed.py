"""XLA5xx: distributed training, checkpoints, launchers and Trainer settings."""

from __future__ import annotations

from collections.abc import Iterator

from astroid import nodes

from flake8_xla.analysis import Analyzer, const_str, guarded, keyword, source_key
from flake8_xla.context import Finding
from flake8_xla.rules.base import Rule

LAUNCHERS = frozenset({"torch_xla.distributed.xla_multiprocessing.spawn", "torch_xla.launch"})
WRAPPERS = ("DistributedDataParallel", "FullyShardedDataParallel", "XlaFullyShardedDataParallel",
            "ZeroRedundancyOptimizer", "FSDP", "DDP", "SpmdFullyShardedDataParallel")
REDUCERS = frozenset({"torch_xla.core.xla_model.reduce_gradients",
                      "torch_xla.core.xla_model.all_reduce",
                      "torch_xla.core.xla_model.optimizer_step",
                      "torch.distributed.all_reduce"})
# Objects whose state_dict() holds Python numbers, not device tensors.
HOST_STATE_OWNERS = ("sched", "scaler", "sampler", "rng", "lr_", "loader", "meter", "tracker",
                     "metric", "stopper", "logger", "writer")
MANAGED = ("accelerate", "lightning", "pytorch_lightning", "lightning_fabric", "deepspeed")


def launcher_calls(an: Analyzer) -> list[nodes.Call]:
    """``xmp.spawn(fn, ...)`` and ``torch_xla.launch(fn, ...)`` calls of the module."""
    return [c for name in ("spawn", "launch") for c in an.calls_named(name)
            if (an.qualname(c.func) or "") in LAUNCHERS]


def is_multi_replica(an: Analyzer) -> bool:
    """The module starts one process per device (``xmp.spawn``/``torch_xla.launch``)."""
    return bool(launcher_calls(an))


def reduces_gradients(an: Analyzer, loop: nodes.NodeNG) -> bool:
    """The loop (or what it calls, inner loops included) all-reduces the gradients."""
    return any((an.qualname(c.func) or "") in REDUCERS
               for c in an.calls_in(loop, into_loops=True))


def wraps_model(an: Analyzer) -> bool:
    """A DDP/FSDP/ZeRO wrapper or a framework that all-reduces gradients itself."""
    if any(an.imports.imports_prefix(m) for m in MANAGED):
        return True
    for call in an.module_nodes(nodes.Call):
        name = (an.qualname(call.func) or source_key(call.func) or "").rsplit(".", 1)[-1]
        if name in WRAPPERS:
            return True
    return False


class UnreducedOptimizerStep(Rule):
    """XLA502: a bare ``optimizer.step()`` in multi-replica XLA training.

    Source: PyTorch/XLA "PyTorch on XLA Devices", multi-processing section
    (``xm.optimizer_step`` all-reduces the gradients before the update).
    """

    code = "XLA502"
    fix = "none"
    name = "unreduced-optimizer-step"
    message = ("optimizer step without gradient all-reduce: each replica of this xmp.spawn/"
               "torch_xla.launch job updates with its own gradients, so the replicas drift apart; "
               "use xm.optimizer_step(optimizer)")
    explanation = """\
Under `xmp.spawn` or `torch_xla.launch` every process trains a replica of the model
on its shard of the data. `optimizer.step()` only applies the local gradients: no
all-reduce happens, the replicas diverge, and the run silently trains N different
models. `xm.optimizer_step(optimizer)` all-reduces the gradients across replicas
and then steps.

**Example**
```python
def _mp_fn(index):
    ...
    loss.backward()
    optimizer.step()
torch_xla.launch(_mp_fn)
```
**Use instead**
```python
    xm.optimizer_step(optimizer)
```
Not reported under DDP, FSDP, ZeRO, accelerate, Lightning or DeepSpeed, after
`xm.reduce_gradients(optimizer)` or a manual `xm.all_reduce`, nor in single-process
scripts.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or not is_multi_replica(an) or wraps_model(an):
            return
        for loop in an.module_nodes((nodes.For, nodes.While)):
            if not an.is_training_loop(loop):
                continue
            if reduces_gradients(an, loop):
                continue
            calls = list(an.calls_in(loop, into_loops=False))
            for call in calls:
                f = call.func
                if isinstance(f, nodes.Attribute) and f.attrname == "step" and not call.args \
                        and keyword(call, "found_inf") is None \
                        and "optim" in (source_key(f.expr) or "").lower():
                    yield self.finding(call)


class DistributedAmpWithoutAllReduce(Rule):
    """XLA403: ``scaler.step(optimizer)`` in multi-replica XLA training with no all-reduce.

    Source: PyTorch/XLA "Automatic Mixed Precision" guide and its ImageNet AMP
    example (``xm._fetch_gradients`` plus ``xm.all_reduce`` before ``scaler.step``).
    """

    code = "XLA403"
    fix = "none"
    name = "distributed-amp-without-all-reduce"
    message = ("distributed AMP without gradient all-reduce: this AMP optimizer step applies "
               "each replica's own gradients; call xm.reduce_gradients(optimizer) (or "
               "xm.all_reduce('sum', xm._fetch_gradients(optimizer), scale=1.0 / world_size)) "
               "before it")
    explanation = """\
With a GradScaler, `scaler.step(optimizer)` replaces `xm.optimizer_step`, so nothing
all-reduces the gradients across the replicas of an `xmp.spawn`/`torch_xla.launch`
job. Each replica then steps on its own gradients and the replicas drift apart.

**Example**
```python
scaler.scale(loss).backward()
scaler.step(optimizer)
```
**Use instead**
```python
scaler.scale(loss).backward()
gradients = xm._fetch_gradients(optimizer)
xm.all_reduce("sum", gradients, scale=1.0 / xr.world_size())
scaler.step(optimizer)
```
Not reported under DDP/FSDP wrappers or in single-process scripts.
"""
    source = ("https://docs.pytorch.org/xla/master/perf/amp.html",
              "https://github.com/pytorch/xla/blob/master/test/test_train_mp_imagenet_amp.py")

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or not is_multi_replica(an) or wraps_model(an):
            return
        for loop in an.module_nodes((nodes.For, nodes.While)):
            if reduces_gradients(an, loop):
                continue
            calls = list(an.calls_in(loop, into_loops=False))
            for call in calls:
                f = call.func
                if not (isinstance(f, nodes.Attribute) and f.attrname == "step"):
                    continue
                scaler_step = len(call.args) == 1 and "scaler" in (
                    source_key(f.expr) or "").lower()
                # The syncfree hand-off of torch_xla 2.9: optimizer.step(found_inf=...).
                syncfree_step = keyword(call, "found_inf") is not None
                if scaler_step or syncfree_step:
                    yield self.finding(call)


class TorchSaveXla(Rule):
    """XLA503: ``torch.save`` of XLA tensors or an XLA module's ``state_dict()``.

    Source: PyTorch/XLA "PyTorch on XLA Devices", saving and loading section
    (``xm.save`` moves tensors to the CPU and writes from the master ordinal only).
    """

    code = "XLA503"
    fix = "safe"
    name = "torch-save-xla"
    message = ("torch.save of XLA tensors: {what} holds tensors on the XLA device, which are "
               "copied to the host one by one and pickled with their device (and under "
               "xmp.spawn every replica writes the file); use xm.save(...), which moves them to "
               "the CPU at once and saves on the master ordinal")
    explanation = """\
`torch.save` of a state dict whose tensors live on the XLA device serialises XLA
tensors: each one is transferred to the host one by one, loading needs an XLA
device, and under `xmp.spawn` every process writes the same file. `xm.save`
moves the data to the CPU in one transfer and writes from the master ordinal only.

Measured (checks/XLA503, PJRT_DEVICE=CPU): 4 device-to-host transfers per save
(one per tensor) for the flagged script against 1 per save with `xm.save`, and the
flagged checkpoint loads back onto the XLA device.

**Example**
```python
torch.save(model.state_dict(), "model.pt")
```
**Use instead**
```python
xm.save(model.state_dict(), "model.pt")
```
Not reported after an explicit move to the CPU (`xm._maybe_convert_to_cpu`,
`.cpu()`), nor for non-tensor objects such as an argparse namespace.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for call in an.module_nodes(nodes.Call):
            if (an.qualname(call.func) or "") != "torch.save" or not call.args:
                continue
            what = self._xla_payload(call.args[0], 0)
            if what:
                yield self.finding(call, what=what)

    def _xla_payload(self, node: nodes.NodeNG, depth: int) -> str | None:
        """What in ``node`` holds XLA tensors, or None (CPU data, or unknown)."""
        an = self.ctx.analyzer
        if depth > 4:
            return None
        if isinstance(node, nodes.Call):
            f = node.func
            if isinstance(f, nodes.Attribute) and f.attrname == "state_dict":
                owner = f.expr
                if self._on_cpu(owner, node):
                    return None
                key = (source_key(owner) or "").lower()
                if any(word in key for word in HOST_STATE_OWNERS):
                    return None  # a scheduler's, scaler's or sampler's state: Python numbers
                return f"{owner.as_string()}.state_dict()"
            if isinstance(f, nodes.Attribute) and f.attrname in ("cpu", "numpy", "tolist"):
                return None
            if (an.qualname(f) or "").endswith("_maybe_convert_to_cpu"):
                return None
            return None
        if isinstance(node, nodes.Dict):
            for _, value in node.items:
                found = self._xla_payload(value, depth + 1)
                if found:
                    return found
            return None
        if isinstance(node, (nodes.Name, nodes.Attribute)):
            values = an.values_of(node)
            if values:
                for value in values:
                    found = self._xla_payload(value, depth + 1)
                    if found:
                        return found
                if an.is_module_object(node):
                    # torch.save(model) of a model moved to the XLA device
                    return node.as_string()[:40] if self._moved_to_xla(values) else None
                tensors = [v for v in values if not isinstance(v, nodes.Dict) and an.is_tensor(v)]
                return node.as_string()[:40] if tensors else None
        if an.is_tensor(node):
            return node.as_string()[:40]
        return None

    def _moved_to_xla(self, values: list[nodes.NodeNG]) -> bool:
        an = self.ctx.analyzer
        return any(isinstance(v, nodes.Call) and isinstance(v.func, nodes.Attribute) and
                   v.func.attrname == "to" and v.args and an.is_xla_device(v.args[0])
                   for v in values)

    def _on_cpu(self, owner: nodes.NodeNG, at: nodes.NodeNG) -> bool:
        """The module was moved to the CPU: ``model.cpu().state_dict()``, or before."""
        an = self.ctx.analyzer
        if isinstance(owner, nodes.Call) and isinstance(owner.func, nodes.Attribute) and (
                owner.func.attrname == "cpu" or (owner.func.attrname == "to" and owner.args and
                                                 an.is_cpu_device(owner.args[0]))):
            return True
        if isinstance(owner, nodes.Attribute) and owner.attrname == "module":
            owner = owner.expr  # model.module.state_dict() of a wrapped model
        return an.is_cpu_module(owner) if isinstance(owner, (nodes.Name, nodes.Attribute)) \
            else False


class SamplerWithoutReplicaInfo(Rule):
    """XLA504: ``DistributedSampler`` in multi-replica XLA code without world size and rank.

    Source: PyTorch/XLA "PyTorch on XLA Devices" (shard with
    ``num_replicas=xr.world_size(), rank=xr.global_ordinal()``) and the
    torch.distributed docs (the defaults need an initialised process group).
    """

    code = "XLA504"
    fix = "none"
    name = "sampler-without-replica-info"
    message = ("DistributedSampler without num_replicas/rank: with no process group it cannot "
               "shard the data across XLA replicas; pass num_replicas=xr.world_size(), "
               "rank=xr.global_ordinal() (import torch_xla.runtime as xr)")
    explanation = """\
`DistributedSampler(dataset)` reads the world size and rank from the default
process group. An `xmp.spawn`/`torch_xla.launch` job has none unless it called
`dist.init_process_group("xla")`, so the sampler fails or, with a group set up
differently, every replica trains on the same shard.

**Example**
```python
sampler = DistributedSampler(dataset, shuffle=True)
```
**Use instead**
```python
sampler = DistributedSampler(dataset, num_replicas=xr.world_size(),
                             rank=xr.global_ordinal(), shuffle=True)
```
Not reported when the module calls `init_process_group("xla")`.
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
              ("https://docs.pytorch.org/docs/stable/data.html#torch.utils.data.distributed."
              "DistributedSampler"))

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or not is_multi_replica(an):
            return
        for call in an.calls_named("init_process_group"):
            backend = call.args[0] if call.args else keyword(call, "backend")
            method = const_str(keyword(call, "init_method")) or ""
            if const_str(backend) in ("xla", None) or method.startswith("xla"):
                return  # an XLA (or configurable) process group gives the sampler its rank
        for call in an.module_nodes(nodes.Call):
            q = an.qualname(call.func) or ""
            if not q.endswith("DistributedSampler"):
                continue
            missing = keyword(call, "num_replicas") is None or keyword(call, "rank") is None
            if any(k.arg is None for k in call.keywords or ()) or guarded(call):
                continue
            if missing and len(call.args) < 3:
                yield self.finding(call)


class SpawnEntryPoint(Rule):
    """XLA505: a launcher entry point that does not take the process index.

    Source: PyTorch/XLA "PyTorch on XLA Devices", multi-processing section
    (``xmp.spawn(_mp_fn, args=...)`` calls ``_mp_fn(index, *args)``) and the
    transformers ``xla_spawn.py`` launcher (imports the script and calls ``_mp_fn``).
    """

    code = "XLA505"
    fix = "none"
    name = "spawn-entry-point"
    message = ("launcher entry point: {what}; define it as def _mp_fn(index): ... (the launcher "
               "passes the process index first)")
    explanation = """\
`xmp.spawn(fn, args=(...))` and `torch_xla.launch(fn, args=(...))` call
`fn(index, *args)` in every process. A function without the index parameter
fails at start-up with a TypeError on every replica. Scripts meant for the
transformers launcher (`xla_spawn.py`) must define a module-level `_mp_fn(index)`.

**Example**
```python
def main():
    ...
xmp.spawn(main)
```
**Use instead**
```python
def _mp_fn(index):
    main()
xmp.spawn(_mp_fn)
```
"""
    source = ("https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
              ("https://github.com/huggingface/transformers/blob/main/examples/pytorch/"
              "xla_spawn.py"))

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for call in launcher_calls(an):
            fn = call.args[0] if call.args else keyword(call, "fn")
            target = an.resolve_function(fn) if fn is not None else None
            if target is None:
                continue
            extra = keyword(call, "args")
            n_extra = len(extra.elts) if isinstance(extra, nodes.Tuple) else 0
            params = target.args.posonlyargs + target.args.args
            if target.args.vararg is None and len(params) < 1 + n_extra and not (
                    extra is not None and not isinstance(extra, nodes.Tuple)):
                what = (f"{target.name}() does not take the process index" if not params else
                        f"{target.name}() takes {len(params)} argument(s) but gets the process "
                        f"index plus {n_extra} from args=")
                yield self.finding(fn, what=what)


class TrainerXlaSettings(Rule):
    """XLA506: Hugging Face ``TrainingArguments`` not set up for XLA.

    Source: transformers docs, ``TrainingArguments.optim`` (``adamw_torch_xla``) and
    ``dataloader_num_workers``; PyTorch/XLA performance guide (keep the host
    input pipeline ahead of the device).
    """

    code = "XLA506"
    fix = "safe"
    name = "trainer-xla-settings"
    message = ("Trainer on XLA: {what}; set optim='adamw_torch_xla' (the default fused AdamW "
               "fails on XLA tensors) and dataloader_num_workers>0 so the host keeps the device "
               "fed")
    explanation = """\
With torch 2.8 and later the Trainer's default optimizer is `adamw_torch_fused`,
which raises a RuntimeError on XLA tensors at the first optimizer step ("`fused=True`
requires all the params to be floating point Tensors of supported devices");
`optim="adamw_torch_xla"` selects torch_xla's AdamW. `dataloader_num_workers=0` loads
and collates every batch in the training process, so the device waits for the
host between steps (not measurable on the CPU device).

Measured (checks/XLA506, PJRT_DEVICE=CPU): the flagged script fails at its first
optimizer step; the fixed one trains.

**Example**
```python
args = TrainingArguments("out", per_device_train_batch_size=8)
```
**Use instead**
```python
args = TrainingArguments("out", per_device_train_batch_size=8,
                         optim="adamw_torch_xla", dataloader_num_workers=4)
```
Reported only for explicit `TrainingArguments(...)` calls in XLA code.
"""
    source = (("https://huggingface.co/docs/transformers/main_classes/trainer#transformers."
              "TrainingArguments"),)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None:
            return
        for call in an.module_nodes(nodes.Call):
            if (an.qualname(call.func) or "") not in (
                    "transformers.TrainingArguments", "transformers.Seq2SeqTrainingArguments"):
                continue
            if any(k.arg is None for k in call.keywords or ()):
                continue  # **kwargs: the settings may be in there
            optim = keyword(call, "optim")
            workers = keyword(call, "dataloader_num_workers")
            problems = []
            if optim is None:
                problems.append("optim is not set (the default is the fused AdamW)")
            elif const_str(optim) == "adamw_torch_fused":
                problems.append("optim='adamw_torch_fused'")
            if workers is None:
                problems.append("dataloader_num_workers is not set (defaults to 0)")
            elif isinstance(workers, nodes.Const) and workers.value == 0:
                problems.append("dataloader_num_workers=0")
            if problems:
                yield self.finding(call, what=" and ".join(problems))


class MissingMpFn(Rule):
    """XLA509: a Trainer script for the XLA launcher without a module-level ``_mp_fn(index)``.

    Source: transformers ``examples/pytorch/xla_spawn.py`` (imports the script and
    calls ``mod._mp_fn``) and the transformers TPU examples.
    """

    code = "XLA509"
    fix = "none"
    name = "missing-mp-fn"
    message = ("no _mp_fn(index): the transformers XLA launcher (xla_spawn.py) imports this "
               "Trainer script and calls _mp_fn(index), which it does not define; add "
               "def _mp_fn(index): main()")
    explanation = """\
`python xla_spawn.py --num_cores 8 run_glue.py ...` imports the training script and
calls its module-level `_mp_fn(index)` in every process. A Trainer script without
it fails with an AttributeError on every core.

**Example**
```python
def main():
    trainer = Trainer(model=model, args=args)
    trainer.train()
```
**Use instead**
```python
def _mp_fn(index):
    # For xla_spawn (TPUs)
    main()
```
Reported at the `Trainer(...)` call of a script with a `__main__` block.
"""
    source = (("https://github.com/huggingface/transformers/blob/main/examples/pytorch/"
              "xla_spawn.py"),)

    def check(self) -> Iterator[Finding]:
        an = self.ctx.analyzer
        if an is None or "_mp_fn" in an.module.locals or launcher_calls(an) or \
                an.calls_named("use_spmd"):
            return  # launches itself, or a single-process SPMD script
        has_main = any(isinstance(n, nodes.If) and "__main__" in n.test.as_string()
                       for n in an.module.body)
        if not has_main:
            return
        trainers = {"transformers.Trainer", "transformers.Seq2SeqTrainer"}
        subclasses = {c.name for c in an.module_nodes(nodes.ClassDef)
                      if any((an.qualname(b) or "") in trainers for b in c.bases)}
        for call in an.module_nodes(nodes.Call):
            q = an.qualname(call.func) or ""
            if q in trainers or (isinstance(call.func, nodes.Name) and
                                 call.func.name in subclasses):
                yield self.finding(call)
                return
