"""One fixer per fixable rule: ``fixer(ctx, target) -> list[Edit]``.

A fixer finds the node the rule reported at ``target`` (see
:meth:`FixContext.at`) and returns the edits that remove the hazard, or an
empty list when the code there has a shape it does not rewrite (then the
finding stays, as with any rule without a fix). What each fix does, and why it
is safe or unsafe, is the rule's "Fix safety" section in ``docs/rules.md``
(:data:`FIX_SAFETY`, which the docs generator reads).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import libcst as cst
from libcst.metadata import BaseAssignment, FunctionScope, GlobalScope, ScopeProvider

from flake8_xla.fixes.core import (
    SAFE,
    UNSAFE,
    Edit,
    FixContext,
    Target,
    dotted,
    expr,
    has_star_args,
    keyword_arg,
    last_name,
    positional,
    string_value,
    with_keyword,
)

Fixer = Callable[[FixContext, Target], list[Edit]]
#: The length ``padding='max_length'`` pads to when the call sets none (XLA101, unsafe).
DEFAULT_MAX_LENGTH = 512
#: Loader workers set by the unsafe part of the XLA506 fix.
DEFAULT_NUM_WORKERS = 4


def _first(nodes: Iterable[cst.CSTNode], kind: type, pred: Callable[[cst.CSTNode], bool]
           = lambda n: True) -> cst.CSTNode | None:
    return next((n for n in nodes if isinstance(n, kind) and pred(n)), None)


def _replace_with(code: str) -> Callable[[cst.CSTNode], cst.CSTNode]:
    """A rewrite that puts the expression ``code`` in the node's place."""
    return lambda updated: expr(code)


def _unused_after(ctx: FixContext, node: cst.Attribute) -> list[tuple[str, str | None,
                                                                      str | None]]:
    """The import of ``node``'s base module (``xm`` in ``xm.mark_step``), which the fix may
    leave unused (it is removed only if nothing else uses it)."""
    base = dotted(node.value)
    for qualified, local in ctx.bindings.items():
        if local == base and base != qualified:
            return [(qualified, None, local)]
    return []


def _called(ctx: FixContext, node: cst.CSTNode) -> cst.Call | None:
    """The call whose callee is ``node``, or None."""
    parent = ctx.parent(node)
    return parent if isinstance(parent, cst.Call) and parent.func is node else None


def _quoted(like: cst.BaseExpression | None, value: str) -> cst.SimpleString:
    """``value`` as a string literal with the quotes of ``like`` (default: double)."""
    quote = like.quote if isinstance(like, cst.SimpleString) and like.quote in ("'", '"') \
        else '"'
    return cst.SimpleString(f"{quote}{value}{quote}")


def _string_arg_like(call: cst.Call) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if isinstance(a.value, cst.SimpleString)), None)


def _import_from_edits(ctx: FixContext, target: Target, renames: dict[str, tuple[str, str]],
                       allow: Callable[[str], bool] = lambda local: True) -> list[Edit]:
    """``from M import old [as L]`` -> ``from NEW_MODULE import new as L`` for ``renames``
    (``old -> (new module, new name)``); the other names of the statement stay."""
    stmt = _first(ctx.at(target), cst.ImportFrom)
    if stmt is None or stmt.relative or isinstance(stmt.names, cst.ImportStar):
        return []
    moved: list[tuple[str, str, str]] = []  # (new module, new name, local name)
    kept: list[cst.ImportAlias] = []
    for alias in stmt.names:
        old = alias.name.value if isinstance(alias.name, cst.Name) else None
        local = alias.asname.name.value if alias.asname is not None and isinstance(
            alias.asname.name, cst.Name) else old
        if old in renames and local is not None and allow(local):
            module, new = renames[old]
            moved.append((module, new, local))
        else:
            kept.append(alias)
    if not moved:
        return []

    def statement(module: str, names: list[tuple[str, str]]) -> cst.ImportFrom:
        text = ", ".join(new if new == local else f"{new} as {local}" for new, local in names)
        parsed = cst.parse_statement(f"from {module} import {text}\n")
        return parsed.body[0]  # type: ignore[attr-defined, return-value]

    groups: dict[str, list[tuple[str, str]]] = {}
    for module, new, local in moved:
        groups.setdefault(module, []).append((new, local))
    new_imports = [statement(m, names) for m, names in groups.items()]
    line = ctx.parent(stmt)
    if kept or len(new_imports) > 1:
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return []
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)

        def split(updated: cst.CSTNode) -> cst.FlattenSentinel:
            assert isinstance(updated, cst.SimpleStatementLine)
            first = updated.body[0]
            lines: list[cst.SimpleStatementLine] = []
            if kept and isinstance(first, cst.ImportFrom):
                lines.append(updated.with_changes(body=[first.with_changes(
                    names=kept, lpar=None, rpar=None)]))
            for i, imp in enumerate(new_imports):
                lines.append(updated.with_changes(body=[imp]) if not lines and i == 0 else
                             cst.SimpleStatementLine(body=[imp],
                                                     trailing_whitespace=updated.trailing_whitespace))
            return cst.FlattenSentinel(lines)

        return [Edit(line, split, SAFE)]
    return [Edit(stmt, lambda updated: new_imports[0], SAFE)]


# XLA508 ------------------------------------------------------------------------------
DEPRECATED = {"mark_step": "sync", "xla_device": "device"}


def fix_deprecated_api(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA508: ``xm.mark_step`` -> ``torch_xla.sync``, ``xm.xla_device`` -> ``torch_xla.device``."""
    node = _first(ctx.at(target), cst.Attribute, lambda n: n.attr.value in DEPRECATED)
    if node is None:
        return _import_from_edits(ctx, target, {old: ("torch_xla", new)
                                                for old, new in DEPRECATED.items()})
    new = DEPRECATED[node.attr.value]
    ref, imp = ctx.module_ref("torch_xla")
    call = _called(ctx, node)
    if new == "device" and call is not None:
        if keyword_arg(call, "devkind") is not None or len(positional(call)) > 1 or \
                has_star_args(call):
            return []  # torch_xla.device() has no devkind

        def device(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            args = [a.with_changes(keyword=cst.Name("index"))
                    if a.keyword is not None and a.keyword.value == "n" else a
                    for a in updated.args]
            return updated.with_changes(func=expr(f"{ref}.device"), args=args)

        return [Edit(call, device, SAFE, [imp], _unused_after(ctx, node))]
    return [Edit(node, _replace_with(f"{ref}.{new}"), SAFE, [imp], _unused_after(ctx, node))]


# XLA507 ------------------------------------------------------------------------------
RUNTIME = {"xrt_world_size": "world_size", "get_ordinal": "global_ordinal",
           "get_local_ordinal": "local_ordinal"}


def fix_removed_api(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA507: the replica queries -> ``torch_xla.runtime``; ``torch_xla.amp.GradScaler(...)``
    -> ``torch.amp.GradScaler('xla', ...)``."""
    node = _first(ctx.at(target), cst.Attribute,
                  lambda n: n.attr.value in RUNTIME or n.attr.value == "GradScaler")
    if node is None:
        def no_args(local: str) -> bool:
            return not any(isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and
                           n.func.value == local and n.args for n in ctx.positions)

        return _import_from_edits(ctx, target, {old: ("torch_xla.runtime", new)
                                                for old, new in RUNTIME.items()}, no_args)
    call = _called(ctx, node)
    if node.attr.value == "GradScaler":
        if call is None or has_star_args(call) or keyword_arg(call, "use_zero_grad") is not None:
            return []
        torch, imp = ctx.module_ref("torch")

        def scaler(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            device = cst.Arg(value=cst.SimpleString('"xla"'),
                             comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                             if updated.args else cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(func=expr(f"{torch}.amp.GradScaler"),
                                        args=[device, *updated.args])

        return [Edit(call, scaler, SAFE, [imp])]
    if call is not None and call.args:
        return []  # defval=...: the runtime functions take no argument
    xr, imp = ctx.module_ref("torch_xla.runtime", "xr")
    new = RUNTIME[node.attr.value]
    return [Edit(node, _replace_with(f"{xr}.{new}"), SAFE, [imp], _unused_after(ctx, node))]


# XLA501 ------------------------------------------------------------------------------
def _is_cuda(value: str | None) -> bool:
    return value is not None and (value == "cuda" or value.startswith("cuda:"))


def _cuda_fstring(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.FormattedString) or not node.parts:
        return False
    head = node.parts[0]
    return isinstance(head, cst.FormattedStringText) and (
        head.value == "cuda" or head.value.startswith("cuda:"))


def _built_cuda(node: cst.CSTNode) -> bool:
    """A ``cuda:`` device string built at run time: ``"cuda:{}".format(rank)``, ``"cuda:" +
    str(rank)``, ``"cuda:%d" % rank`` (the whole expression becomes ``'xla'``)."""
    head: str | None = None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == "format":
        head = (string_value(node.func.value) or "").split("{")[0]
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        head = string_value(node.left)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
        head = (string_value(node.left) or "").split("%")[0]
    return bool(head) and head.startswith("cuda:")


def _xla_literal(ctx: FixContext, node: cst.CSTNode) -> list[Edit]:
    """The edit of one CUDA device literal: ``'xla'``, or ``'cpu'`` for ``map_location``."""
    parent = ctx.parent(node)
    quote = node.quote if isinstance(node, (cst.SimpleString, cst.FormattedString)) else '"'
    quote = quote if quote in ("'", '"') else '"'
    if isinstance(parent, cst.Arg) and parent.keyword is not None and \
            parent.keyword.value == "map_location":
        # torch.load cannot restore storages onto 'xla': load on the CPU (unsafe: the
        # loaded tensors are CPU tensors until load_state_dict or .to(device) moves them).
        return [Edit(node, lambda updated: cst.SimpleString(f"{quote}cpu{quote}"), UNSAFE)]
    return [Edit(node, lambda updated: cst.SimpleString(f"{quote}xla{quote}"), SAFE)]


def fix_hardcoded_cuda(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA501: ``'cuda'`` -> ``'xla'``, ``.cuda()`` -> ``.to('xla')``."""
    for node in ctx.at(target):
        if _built_cuda(node):
            return _xla_literal(ctx, node)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            attr = node.func.attr.value
            if attr == "cuda" and not has_star_args(node):
                def to_xla(updated: cst.CSTNode) -> cst.CSTNode:
                    assert isinstance(updated, cst.Call) and isinstance(updated.func,
                                                                        cst.Attribute)
                    kept = [a for a in updated.args if a.keyword is not None and
                            a.keyword.value != "device"]
                    device = cst.Arg(value=cst.SimpleString('"xla"'),
                                     comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                                     if kept else cst.MaybeSentinel.DEFAULT)
                    if kept:
                        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    return updated.with_changes(
                        func=updated.func.with_changes(attr=cst.Name("to")), args=[device, *kept])

                return [Edit(node, to_xla, SAFE)]
            if attr == "to" and node.args and node.args[0].keyword is None:
                first = node.args[0].value
                if _is_cuda(string_value(first)) or _cuda_fstring(first) or _built_cuda(first):
                    return _xla_literal(ctx, first)
        if _is_cuda(string_value(node)) or _cuda_fstring(node):
            return _xla_literal(ctx, node)
    return []


# XLA401 ------------------------------------------------------------------------------
_AUTOCAST_POSITIONAL = ("enabled", "dtype", "cache_enabled")  # torch.cuda.amp.autocast
_CUDA_AMP_IMPORTS = [("torch.cuda.amp", "autocast", None), ("torch.cuda", "amp", None)]


def _bf16_dtype(torch: str, value: cst.BaseExpression | None) -> cst.BaseExpression:
    name = last_name(value) if value is not None else None
    if value is None or name in ("float16", "half"):
        return expr(f"{torch}.bfloat16")
    return value


def fix_cuda_amp(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA401: CUDA autocast -> ``torch.autocast('xla', dtype=torch.bfloat16)``.

    GradScalers, ``custom_fwd`` and apex are left alone (no mechanical fix).
    """
    torch, imp = ctx.module_ref("torch")
    for node in ctx.at(target):
        if isinstance(node, cst.Call) and last_name(node.func) == "autocast":
            if has_star_args(node):
                return []
            # torch.autocast / torch.amp.autocast name the device first (the rule reports
            # them for a 'cuda' literal); torch.cuda.amp.autocast(enabled, dtype, ...) not.
            device_arg = keyword_arg(node, "device_type")
            if device_arg is None and node.args and node.args[0].keyword is None and \
                    string_value(node.args[0].value) is not None:
                device_arg = node.args[0]
            if device_arg is not None and string_value(device_arg.value) == "cuda":
                # torch.autocast('cuda', ...): the same call on the XLA device.
                def on_xla(updated: cst.CSTNode) -> cst.CSTNode:
                    assert isinstance(updated, cst.Call)
                    args = list(updated.args)
                    for i, arg in enumerate(args):
                        if (arg.keyword is None and i == 0) or (
                                arg.keyword is not None and arg.keyword.value == "device_type"):
                            args[i] = arg.with_changes(value=_quoted(arg.value, "xla"))
                            break
                    if len(positional(updated)) > 1:
                        # torch.autocast("cuda", torch.float16, ...): the dtype by position
                        args[1] = args[1].with_changes(value=_bf16_dtype(torch, args[1].value))
                        return updated.with_changes(args=args)
                    call = updated.with_changes(args=args)
                    dtype = keyword_arg(call, "dtype")
                    return with_keyword(call, "dtype", _bf16_dtype(
                        torch, dtype.value if dtype is not None else None))

                return [Edit(node, on_xla, SAFE, [imp])]
            if device_arg is not None:
                return []  # another device (cpu, a variable): not CUDA autocast

            def xla_autocast(updated: cst.CSTNode) -> cst.CSTNode:
                assert isinstance(updated, cst.Call)
                values: dict[str, cst.BaseExpression] = {}
                for i, arg in enumerate(updated.args):
                    key = arg.keyword.value if arg.keyword is not None else (
                        _AUTOCAST_POSITIONAL[i] if i < len(_AUTOCAST_POSITIONAL) else "")
                    values[key] = arg.value
                values["dtype"] = _bf16_dtype(torch, values.get("dtype"))
                call = cst.Call(func=expr(f"{torch}.autocast"),
                                args=[cst.Arg(cst.SimpleString('"xla"'))])
                for key in ("dtype", "enabled", "cache_enabled"):
                    if key in values:
                        call = with_keyword(call, key, values[key])
                return updated.with_changes(func=call.func, args=call.args)

            if len(node.args) > len(_AUTOCAST_POSITIONAL) or any(
                    a.keyword is not None and a.keyword.value not in _AUTOCAST_POSITIONAL
                    for a in node.args):
                return []
            return [Edit(node, xla_autocast, SAFE, [imp], list(_CUDA_AMP_IMPORTS))]
        if isinstance(node, (cst.Name, cst.Attribute)) and last_name(node) == "autocast" and \
                isinstance(ctx.parent(node), cst.Decorator):
            return [Edit(node, _replace_with(f'{torch}.autocast("xla", dtype={torch}.bfloat16)'),
                         SAFE, [imp], list(_CUDA_AMP_IMPORTS))]
    return []


# XLA503 ------------------------------------------------------------------------------
_SAVE_KEYWORDS = {"obj": "data", "f": "file_or_path"}


def fix_torch_save(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA503: ``torch.save(obj, f)`` -> ``xm.save(obj, f)``."""
    call = _first(ctx.at(target), cst.Call, lambda n: last_name(n.func) == "save")
    if call is None or has_star_args(call) or len(positional(call)) > 2 or any(
            a.keyword is not None and a.keyword.value not in _SAVE_KEYWORDS for a in call.args):
        return []
    xm, imp = ctx.module_ref("torch_xla.core.xla_model", "xm")

    def save(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        args = [a.with_changes(keyword=cst.Name(_SAVE_KEYWORDS[a.keyword.value]))
                if a.keyword is not None else a for a in updated.args]
        return updated.with_changes(func=expr(f"{xm}.save"), args=args)

    return [Edit(call, save, SAFE, [imp])]


# XLA506 ------------------------------------------------------------------------------
def fix_trainer_settings(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA506: ``optim='adamw_torch_xla'`` (safe); ``dataloader_num_workers=4`` (unsafe)."""
    call = _first(ctx.at(target), cst.Call, lambda n: "TrainingArguments" in (
        last_name(n.func) or ""))
    if call is None or has_star_args(call):
        return []
    edits: list[Edit] = []
    like = _string_arg_like(call)
    optim = keyword_arg(call, "optim")
    if optim is None or string_value(optim.value) == "adamw_torch_fused":
        edits.append(Edit(call, lambda updated: with_keyword(
            updated, "optim", _quoted(like, "adamw_torch_xla")), SAFE))  # type: ignore[arg-type]
    workers = keyword_arg(call, "dataloader_num_workers")
    if workers is None or (isinstance(workers.value, cst.Integer) and
                           workers.value.evaluated_value == 0):
        edits.append(Edit(call, lambda updated: with_keyword(
            updated, "dataloader_num_workers",  # type: ignore[arg-type]
            cst.Integer(str(DEFAULT_NUM_WORKERS))), UNSAFE))
    return edits


# XLA102 ------------------------------------------------------------------------------
def fix_ragged_last_batch(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA102: ``drop_last=True`` (``dataloader_drop_last=True`` for TrainingArguments)."""
    call = _first(ctx.at(target), cst.Call)
    if call is None or has_star_args(call):
        return []
    args = "TrainingArguments" in (last_name(call.func) or "")
    shuffled = keyword_arg(call, "shuffle")
    if not args and keyword_arg(call, "sampler") is None and not (
            shuffled is not None and isinstance(shuffled.value, cst.Name) and
            shuffled.value.value == "True"):
        # an evaluation or prediction loader (no shuffle, no sampler): dropping its last
        # rows would lose predictions (a submission short of rows); pad it instead
        return []
    name = "dataloader_drop_last" if args else "drop_last"
    return [Edit(call, lambda updated: with_keyword(updated, name,  # type: ignore[arg-type]
                                                    cst.Name("True")), UNSAFE)]


# XLA301 ------------------------------------------------------------------------------
_EXITS = (cst.Return, cst.Break, cst.Continue, cst.Raise)


def fix_missing_barrier(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA301: the step barrier of ``--xla-version`` as the loop body's last statement."""
    loop = _first(ctx.at(target), (cst.For, cst.While))
    if loop is None:
        return []
    sync, imp = ctx.sync()

    def barrier(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, (cst.For, cst.While))
        body = updated.body
        if isinstance(body, cst.SimpleStatementSuite):
            small = list(body.body)
            at = len(small) - (1 if small and isinstance(small[-1], _EXITS) else 0)
            small.insert(at, cst.Expr(expr(sync)))
            return updated.with_changes(body=body.with_changes(body=[
                s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for s in small]))
        stmts = list(body.body)
        last = stmts[-1] if stmts else None
        exits = isinstance(last, cst.SimpleStatementLine) and any(
            isinstance(s, _EXITS) for s in last.body)
        new = cst.parse_statement(f"{sync}\n")
        stmts.insert(len(stmts) - 1 if exits else len(stmts), new)
        return updated.with_changes(body=body.with_changes(body=stmts))

    return [Edit(loop, barrier, UNSAFE, [imp])]


# XLA201 ------------------------------------------------------------------------------
class _Blockers(cst.CSTVisitor):
    """Finds what cannot move into a lambda: yield, await, walrus, nested defs."""

    def __init__(self) -> None:
        self.found = False

    def visit_Yield(self, node: cst.Yield) -> None:
        self.found = True

    def visit_Await(self, node: cst.Await) -> None:
        self.found = True

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.found = True


def _local_reads(ctx: FixContext, stmt: cst.CSTNode) -> list[str] | None:
    """Names read in ``stmt`` that its scope binds as variables, in first-use order: the
    enclosing function's locals, or (a loop at module level) the module's variables
    (not its imports, functions or classes). The closure takes them as arguments, so it
    sees the values of this step, not what the names hold when it runs.

    None when ``stmt`` is inside neither a function nor the module body.
    """
    scopes = ctx.wrapper.resolve(ScopeProvider)
    own = scopes.get(stmt)
    if not isinstance(own, (FunctionScope, GlobalScope)):
        return None
    at_module = isinstance(own, GlobalScope)

    def variable(assignment: BaseAssignment) -> bool:
        if at_module:
            return isinstance(assignment.scope, GlobalScope) and isinstance(
                getattr(assignment, "node", None), cst.Name)
        return isinstance(assignment.scope, FunctionScope)

    names: list[str] = []
    inside = {id(n) for n in _walk(stmt)}

    for node in _walk(stmt):
        if not isinstance(node, cst.Name):
            continue
        scope = scopes.get(node)
        if scope is None:
            continue
        if node.value not in scope:
            continue
        assignments = list(scope[node.value])
        if any(id(getattr(a, "node", None)) in inside for a in assignments):
            continue  # bound inside the statement (a comprehension or lambda variable)
        if assignments and all(variable(a) for a in assignments) and \
                node.value not in names and _is_load(ctx, node):
            names.append(node.value)
    return names


def _is_load(ctx: FixContext, node: cst.Name) -> bool:
    parent = ctx.parent(node)
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    return not (isinstance(parent, cst.Arg) and parent.keyword is node)


def _walk(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    stack = [node]
    while stack:
        cur = stack.pop()
        yield cur
        stack.extend(reversed(cur.children))


def fix_host_sync(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA201: the statement that reads the tensor, moved into ``xm.add_step_closure``."""
    stmt: cst.Expr | None = None
    for node in ctx.at(target):
        for cur in (node, *ctx.ancestors(node)):
            if isinstance(cur, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
                break
            if isinstance(cur, cst.Expr) and isinstance(
                    ctx.parent(cur), (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                stmt = cur
                break
            if isinstance(cur, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                break  # an assignment, a condition ...: the value is used, not only shown
        if stmt is not None:
            break
    if stmt is None or not isinstance(stmt.value, cst.Call):
        return []
    blockers = _Blockers()
    stmt.visit(blockers)
    if blockers.found:
        return []
    names = _local_reads(ctx, stmt)
    if names is None:
        return []
    xm, imp = ctx.module_ref("torch_xla.core.xla_model", "xm")
    params = ", ".join(names)
    args = f", args=({params},)" if len(names) == 1 else (f", args=({params})" if names else "")

    def closure(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Expr)
        body = cst.Module([]).code_for_node(updated.value)
        lam = f"lambda {params}: " if names else "lambda: "
        call = expr(f"{xm}.add_step_closure({lam}{body}{args})")
        return updated.with_changes(value=call)

    return [Edit(stmt, closure, UNSAFE, [imp])]


# XLA101 ------------------------------------------------------------------------------
#: Calls that XLA101 reports but that take no ``padding=`` strategy.
NOT_PADDING_CALLS = frozenset({"pad_sequence", "batch_by_size", "max", "full", "zeros", "ones",
                               "empty", "new_full", "new_zeros", "new_ones", "new_empty"})


def fix_dynamic_padding(ctx: FixContext, target: Target) -> list[Edit]:
    """XLA101: ``padding='max_length'`` and, when the call sets none, ``max_length=512``."""
    call: cst.Call | None = None
    for node in ctx.at(target):
        parent = ctx.parent(node)
        if isinstance(parent, cst.Arg) and parent.keyword is not None and \
                parent.keyword.value == "padding" and isinstance(ctx.parent(parent), cst.Call):
            call = ctx.parent(parent)  # type: ignore[assignment]
            break
        if isinstance(node, cst.Call):
            call = node
            break
    if call is None or has_star_args(call) or last_name(call.func) in NOT_PADDING_CALLS:
        return []  # (no padding= to set: a pad_sequence, a token budget, a tensor factory)
    like = _string_arg_like(call)

    def static(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        new = with_keyword(updated, "padding", _quoted(like, "max_length"))
        if keyword_arg(new, "max_length") is None:
            new = with_keyword(new, "max_length", cst.Integer(str(DEFAULT_MAX_LENGTH)))
        return new

    return [Edit(call, static, UNSAFE)]


#: rule code -> fixer. Every rule whose ``fix`` is not 'none' has one (a test checks).
FIXERS: dict[str, Fixer] = {
    "XLA101": fix_dynamic_padding,
    "XLA102": fix_ragged_last_batch,
    "XLA201": fix_host_sync,
    "XLA301": fix_missing_barrier,
    "XLA401": fix_cuda_amp,
    "XLA501": fix_hardcoded_cuda,
    "XLA503": fix_torch_save,
    "XLA506": fix_trainer_settings,
    "XLA507": fix_removed_api,
    "XLA508": fix_deprecated_api,
}
