"""The value analysis on small sources: what a name or call holds, asked directly."""

from __future__ import annotations

import ast

from astroid import nodes

from flake8_xla.analysis import Analyzer, build_module
from flake8_xla.analysis.values import Kind
from flake8_xla.engine import stub_builtins
from flake8_xla.imports import ImportTable

CACHED_GLOBAL = '''\
import os

try:
    import torch_xla.core.xla_model as xm
except ImportError:
    xm = None


def device_type():
    global _device_type
    try:
        return _device_type
    except NameError:
        if xm is not None:
            _device_type = "xla"
        else:
            _device_type = os.getenv("DEVICE_TYPE", "cpu")
    return _device_type


def local_only():
    try:
        return _never_bound
    except NameError:
        return None


mode = device_type()
other = local_only()
'''


def _value_of_assigned(source: str, target: str, func: str | None = None) -> frozenset:
    """The value assigned to ``target`` (in function ``func``, when given) of ``source``."""
    tree = ast.parse(source)
    an = Analyzer(build_module(source, "checked", tree), ImportTable(tree))
    with stub_builtins():
        for assign in an.module_nodes(nodes.Assign):
            if assign.targets[0].as_string() == target and (
                    func is None or assign.scope().name == func):
                return an.value(assign.value)
    raise AssertionError(f"no assignment to {target}")


def test_a_global_cached_by_its_getter_holds_what_the_getter_stores() -> None:
    # ``try: return _device_type`` before any binding in the function: the name is the
    # module's, bound by an earlier call, so the read holds the stored strings ("xla"
    # on the XLA path), not an unknown value
    values = _value_of_assigned(CACHED_GLOBAL, "mode")
    assert values and all(v.kind is Kind.HOST and v.text == "xla" for v in values)


def test_a_name_bound_nowhere_stays_unknown_or_absent() -> None:
    # (no ``global`` statement and no binding: nothing to follow)
    values = _value_of_assigned(CACHED_GLOBAL, "other")
    assert not any(v.kind is Kind.HOST and v.text == "xla" for v in values)


FILLED_DEFAULT = '''\
import torch_xla


def run(device=None):
    if device is None:
        device = torch_xla.device()
    where = device
    return where


def keep(device=None):
    if device is None:
        print("no device")
    where = device
    return where
'''


def test_a_default_filled_in_under_is_none_leaves_no_none() -> None:
    # ``if device is None: device = torch_xla.device()``: after the branch the parameter's
    # own values reach the use only when they are not None
    values = _value_of_assigned(FILLED_DEFAULT, "where", "run")
    assert values and not any(v.kind is Kind.HOST and v.qual == "none" for v in values)
    assert any(v.kind is Kind.DEVICE and v.device == "xla" for v in values)


def test_a_branch_that_fills_nothing_keeps_none() -> None:
    values = _value_of_assigned(FILLED_DEFAULT, "where", "keep")
    assert any(v.kind is Kind.HOST and v.qual == "none" for v in values)


GLOBAL_CYCLE = '''\
import torch
import torch_xla


def init_a(device, half):
    global a_model, b_model
    a_model = torch.nn.Linear(4, 4)
    if b_model:
        b_model = b_model.cpu()
        b_model = None
    if half:
        a_model = a_model.half().to(device)
    else:
        a_model = a_model.to(device)


def init_b(device, half):
    global a_model, b_model
    b_model = torch.nn.Linear(4, 4)
    if a_model:
        a_model = a_model.cpu()
        a_model = None
    if half:
        b_model = b_model.half().to(device)
    else:
        b_model = b_model.to(device)


a_model = b_model = None
init_a(torch_xla.device(), False)
'''


def test_globals_rebound_from_themselves_in_two_functions_do_not_recurse() -> None:
    # ``global b_model`` then ``b_model = b_model.cpu()``: the read resolves to every
    # binding of the module's name, this one among them; the qualified-name lookup must
    # stop at the cycle (it recursed until RecursionError)
    tree = ast.parse(GLOBAL_CYCLE)
    an = Analyzer(build_module(GLOBAL_CYCLE, "checked", tree), ImportTable(tree))
    with stub_builtins():
        names = [n for n in an.module_nodes(nodes.Name) if n.name.endswith("_model")]
        assert names and all(an.qualname(n) is None for n in names)


MODEL_CONFIG = '''\
import torch_xla


def build(model_object):
    device = torch_xla.device()
    model = model_object.to(device)
    size = model.config.hidden_size
    return size
'''


def test_a_config_read_through_a_moved_unknown_object_is_no_tensor() -> None:
    # ``model_object.to(device)`` of an unknown object is taken for a tensor; its
    # ``.config`` is a model's, which no tensor has: a host value, not a lazy tensor
    values = _value_of_assigned(MODEL_CONFIG, "size")
    assert values and not any(v.kind is Kind.TENSOR for v in values)


TENSOR_TESTS = '''\
import torch
import torch_xla


def copy_out(batch):
    device = torch_xla.device()
    batch = {k: v.to(device) for k, v in batch.items()}
    state = batch["state"].cpu() if isinstance(batch["state"], torch.Tensor) else batch["state"]
    mask = batch.get("mask")
    if mask is not None and isinstance(mask, torch.Tensor):
        mask = mask.detach().cpu()
    kept = mask
    other = batch.get("other")
    if other is not None and other.dim() > 1 and isinstance(other, torch.Tensor):
        other = other.cpu()
    other_kept = other
    late = batch.get("late")
    if isinstance(late, torch.Tensor):
        late = late.cpu()
    if other_kept is None:
        late = batch["state"] * 2
    late_kept = late
    return state, kept, other_kept, late_kept
'''


def test_the_other_arm_of_a_tensor_test_of_a_subscript_holds_no_tensor() -> None:
    # ``batch["state"].cpu() if isinstance(batch["state"], torch.Tensor) else
    # batch["state"]``: the else arm runs only for a value that is no tensor
    values = _value_of_assigned(TENSOR_TESTS, "state", "copy_out")
    assert values and all(v.kind is not Kind.TENSOR or v.device == "cpu" for v in values)


def test_a_name_copied_out_under_a_tensor_test_holds_no_device_tensor_after() -> None:
    # ``if mask is not None and isinstance(mask, torch.Tensor): mask = mask.cpu()``:
    # the value from before the branch reaches the use only when it holds no tensor
    values = _value_of_assigned(TENSOR_TESTS, "kept", "copy_out")
    assert values and not any(v.kind is Kind.TENSOR and v.device == "xla" for v in values)


def test_a_branch_with_another_condition_narrows_nothing() -> None:
    # (``other.dim() > 1`` false: the device tensor skips the copy and reaches the use)
    values = _value_of_assigned(TENSOR_TESTS, "other_kept", "copy_out")
    assert any(v.kind is Kind.TENSOR and v.device == "xla" for v in values)


def test_a_binding_after_the_tensor_test_keeps_its_tensor() -> None:
    # (``late = batch["state"] * 2`` after the branch: a device tensor that reaches the use)
    values = _value_of_assigned(TENSOR_TESTS, "late_kept", "copy_out")
    assert any(v.kind is Kind.TENSOR and v.device == "xla" for v in values)


TYPE_INFO = '''\
import torch


def mask_fill(x):
    low = torch.finfo(x.dtype).min
    top = torch.iinfo(torch.int32).max
    made = torch.zeros(3)
    return low, top, made
'''


def test_type_info_numbers_are_host_values_and_other_torch_calls_tensors() -> None:
    # ``torch.finfo(dtype).min`` is a Python float (a type info object's field), not a
    # tensor whose use as a fill value or a size would read a lazy tensor
    for name in ("low", "top"):
        values = _value_of_assigned(TYPE_INFO, name, "mask_fill")
        assert values and all(v.kind is Kind.HOST for v in values), name
    assert all(v.kind is Kind.TENSOR for v in _value_of_assigned(TYPE_INFO, "made", "mask_fill"))


ANNOTATED_NONE = '''\
import typer


def main(resume: str = None, name: str = typer.Option(None, help="run id"),
         steps: int = 10):
    first = resume
    second = name
    third = steps
    return first, second, third
'''


def test_an_annotated_parameter_keeps_its_none_default() -> None:
    # ``resume: str = None`` called by no one here (a command-line entry point): a run
    # that passes nothing gets None, so ``if resume is None:`` may hold; typer's
    # ``Option(None)`` is the command line's value, whose default is its first argument
    for name in ("first", "second"):
        values = _value_of_assigned(ANNOTATED_NONE, name, "main")
        assert any(v.kind is Kind.HOST and v.qual == "none" for v in values), name
        assert any(v.kind is Kind.HOST and v.qual == "str" for v in values), name
    third = _value_of_assigned(ANNOTATED_NONE, "third", "main")
    assert third and not any(v.qual == "none" for v in third)
