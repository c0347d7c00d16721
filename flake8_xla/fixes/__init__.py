"""Automatic fixes (``flake8-xla --fix``, ``--diff``, ``--unsafe-fixes``), ruff's model.

Every rule declares the kind of its fix in its ``fix`` attribute:

- ``safe``: the fix keeps what the script does on XLA (it only spells it the way
  torch_xla wants: a new API name, the XLA device, a save that moves the data to
  the CPU first). ``--fix`` applies it.
- ``unsafe``: the fix changes behaviour the user must review (data order or
  count, step boundaries, when a value is printed, numerics, padding length).
  Applied only with ``--unsafe-fixes``.
- ``none``: no mechanical fix.

A rule whose fix is safe may still make an individual edit that is unsafe
(XLA501 on ``map_location='cuda'``, XLA506's loader workers); the rule's "Fix
safety" section in ``docs/rules.md`` says so (:data:`FIX_SAFETY`).

The fixers (:mod:`flake8_xla.fixes.rules`) use LibCST, which keeps comments and
formatting; it is imported only when a fix runs, so the flake8 plugin needs
only flake8 and astroid. They take the source and the linter's findings
``(line, column, code)`` and never ask the analysis anything.
:func:`fix_until_stable` re-lints after each round and stops when nothing is
left to fix (at most :data:`MAX_ROUNDS` rounds), so a fix never leaves a
half-fixed file; a round whose result does not compile is dropped (its fixes are
then tried one at a time), so the fixed text always parses.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

SAFE, UNSAFE, NONE = "safe", "unsafe", "none"
FIX_KINDS = (SAFE, UNSAFE, NONE)
MAX_ROUNDS = 10

#: code -> what the fix does and why it is (un)safe: the "Fix safety" section of the docs.
FIX_SAFETY: dict[str, str] = {
    "XLA101": (
        "Sets `padding=\"max_length\"`, and `max_length=512` when the call sets no "
        "`max_length`. Unsafe: every batch is then padded (and, with `truncation=True`, "
        "cut) to that length, which changes the inputs the model sees and the memory a "
        "step needs; confirm the length (or use `pad_to_multiple_of`). `pad_sequence` "
        "in a collate function is not fixed."),
    "XLA102": (
        "Adds `drop_last=True` to the `DataLoader` (`dataloader_drop_last=True` to "
        "`TrainingArguments`). Unsafe: the last, smaller batch of every epoch is no "
        "longer trained on, which changes the data order and the step count. Only a "
        "loader that shuffles (`shuffle=True`) or takes a `sampler=` is changed: an "
        "evaluation or prediction loader keeps every row (pad its last batch instead)."),
    "XLA201": (
        "Moves the statement that reads the tensor (a `print(...)`, a logging call) into "
        "`xm.add_step_closure(lambda loss, step: ..., args=(loss, step))`, passing the "
        "function's local variables it reads. Unsafe: the statement then runs after the "
        "step's graph has executed, so its output comes later and in another order; a "
        "read whose value the step uses (`v = loss.item()`, `if loss.item() > x`) is not "
        "fixed."),
    "XLA301": (
        "Adds the step barrier of `--xla-version` (`torch_xla.sync()` from 2.8 on, "
        "`xm.mark_step()` before) as the last statement of the loop body, before a "
        "final `break`/`continue`/`return`. Unsafe: it cuts the graph where the author "
        "may not want it (gradient accumulation across iterations, a loop whose step "
        "spans several iterations), and iterations that `continue` early skip it."),
    "XLA401": (
        "Rewrites `torch.cuda.amp.autocast(...)` (also imported as `autocast` or `amp`) "
        "and `torch.autocast('cuda', ...)` to `torch.autocast('xla', dtype=torch.bfloat16, "
        "...)`, keeping `enabled` and `cache_enabled` and turning a float16 dtype into "
        "bfloat16; a now unused `torch.cuda.amp` import is removed. Safe: on XLA the CUDA "
        "context did nothing, and bfloat16 autocast is the XLA equivalent of the mixed "
        "precision the script asked for (it does change numerics against the float32 run "
        "it silently was). GradScalers, `custom_fwd`/`custom_bwd` and apex are not fixed."),
    "XLA501": (
        "Replaces the CUDA device literal with `'xla'` (`torch.device('xla')`, "
        "`.to('xla')`, `device='xla'`, a default argument), and `.cuda(...)` with "
        "`.to('xla', ...)`. Safe: `'xla'` is the process's default XLA device, the "
        "device `torch_xla.device()` returns. Exception, unsafe: `map_location='cuda'` "
        "becomes `map_location='cpu'` (torch.load cannot restore onto 'xla'), so the "
        "loaded tensors stay on the CPU until `load_state_dict` or `.to(device)`."),
    "XLA503": (
        "Replaces `torch.save(obj, f)` with `xm.save(obj, f)` and imports "
        "`torch_xla.core.xla_model as xm` where needed. Safe: the file holds the same data, "
        "as CPU tensors, written by the master ordinal only; calls that pass "
        "`pickle_module` or other torch.save options are not fixed."),
    "XLA506": (
        "Sets `optim=\"adamw_torch_xla\"` on `TrainingArguments` that do not choose an "
        "optimizer (or choose the fused AdamW). Safe: the fused default fails on XLA "
        "tensors. The unsafe part, `dataloader_num_workers=4` where it is unset or 0, "
        "needs `--unsafe-fixes`: worker processes need a picklable, fork-safe dataset and "
        "host memory, so choose the number for your host."),
    "XLA507": (
        "Replaces `xm.xrt_world_size()`, `xm.get_ordinal()` and `xm.get_local_ordinal()` "
        "with `xr.world_size()`, `xr.global_ordinal()` and `xr.local_ordinal()` of "
        "`torch_xla.runtime` (imported as `xr`), also in `from ... import` form, and "
        "`torch_xla.amp.GradScaler(...)` with `torch.amp.GradScaler('xla', ...)`. Safe: "
        "the code crashed with the removed names. Calls passing `defval` are not fixed "
        "(the runtime functions take none), nor `from torch_xla.amp import GradScaler`."),
    "XLA508": (
        "Replaces `xm.mark_step` with `torch_xla.sync` and `xm.xla_device` with "
        "`torch_xla.device` (`n=` becomes `index=`), adding `import torch_xla` where "
        "it is missing; `from torch_xla.core.xla_model import mark_step` becomes "
        "`from torch_xla import sync as mark_step`. Safe: the deprecated functions "
        "forward to the new ones (same barrier, same device). `xla_device(devkind=...)` "
        "is not fixed."),
}


@dataclass(frozen=True)
class Target:
    """A finding to fix: 1-based ``line``, 0-based ``col`` in UTF-8 bytes (as ast and
    flake8 report it) and the rule ``code``."""

    line: int
    col: int
    code: str


@dataclass
class FixResult:
    """The outcome of fixing one text.

    Attributes:
        text: the fixed text (the input when nothing was fixed); it always parses when
            the input did.
        fixed: how many findings a fix was applied to, over all rounds.
        remaining: the findings left in ``text`` (from the last lint).
        hidden_unsafe: findings left that ``--unsafe-fixes`` would fix.
        error: why fixing stopped early (LibCST could not parse the file, a round did
            not compile), or None.
    """

    text: str
    fixed: int = 0
    remaining: list[Target] = field(default_factory=list)
    hidden_unsafe: int = 0
    error: str | None = None


def fixable_codes() -> frozenset[str]:
    """The codes that have a fixer (imports LibCST)."""
    from flake8_xla.fixes.rules import FIXERS

    return frozenset(FIXERS)


def _compiles(text: str) -> bool:
    try:
        compile(text, "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def fix_once(source: str, targets: Sequence[Target], *, version: tuple[int, int],
             unsafe: bool = False, remove_unused: bool = True) -> tuple[str, int, int]:
    """One round: ``(new text, findings fixed, findings only an unsafe fix would fix)``.

    Raises ``libcst.ParserSyntaxError`` when LibCST cannot parse ``source``.
    """
    from flake8_xla.fixes.core import FixContext, apply_edits
    from flake8_xla.fixes.rules import FIXERS

    ctx = FixContext(source, version)
    edits = []
    applied = hidden = 0
    seen: set[tuple[int, int]] = set()
    for target in targets:
        fixer = FIXERS.get(target.code)
        if fixer is None:
            continue
        try:
            found = fixer(ctx, target)
        except Exception:  # noqa: BLE001 - a fixer that fails on odd code fixes nothing
            found = []
        allowed = [e for e in found if unsafe or e.applicability == SAFE]
        if found and not allowed:
            hidden += 1
        fresh = []
        for edit in allowed:  # one edit per node and rewrite: findings may share a node
            key = (id(edit.node), id(getattr(edit.rewrite, "__code__", edit.rewrite)))
            if key not in seen:
                seen.add(key)
                fresh.append(edit)
        if allowed:
            applied += 1
            edits.extend(fresh)
    if not edits:
        return source, 0, hidden
    return apply_edits(ctx, edits, remove_unused=remove_unused), applied, hidden


def fix_until_stable(source: str, lint: Callable[[str], list[Target]], *,
                     version: tuple[int, int], unsafe: bool = False,
                     remove_unused: bool = True, max_rounds: int = MAX_ROUNDS) -> FixResult:
    """Fix ``source`` round after round until a lint leaves nothing fixable.

    ``lint(text)`` returns the findings to fix in ``text`` (already filtered by the
    user's selection and ``noqa``). A round whose text does not compile (when
    ``source`` did; else: parse) is dropped, and its findings are tried one at a time.
    """
    from libcst import ParserSyntaxError

    codes = fixable_codes()
    valid = _compiles if _compiles(source) else _parses
    text, fixed, error = source, 0, None
    targets = lint(text)
    for _ in range(max_rounds):
        todo = [t for t in targets if t.code in codes]
        if not todo:
            break
        try:
            new, applied, _ = fix_once(text, todo, version=version, unsafe=unsafe,
                                       remove_unused=remove_unused)
            if new != text and not valid(new):
                new, applied = text, 0
                for target in todo:  # the first fix that keeps the text valid, alone
                    single, one, _ = fix_once(text, [target], version=version, unsafe=unsafe,
                                              remove_unused=remove_unused)
                    if single != text and valid(single):
                        new, applied = single, one
                        break
                if new == text:
                    error = "the fixes would not compile; nothing was changed in that round"
        except ParserSyntaxError as exc:
            error = f"LibCST cannot parse the file: {str(exc).splitlines()[0]}"
            break
        if new == text:
            break
        text, fixed = new, fixed + applied
        targets = lint(text)
    hidden = 0
    if not unsafe:
        todo = [t for t in targets if t.code in codes]
        if todo:
            try:
                _, _, hidden = fix_once(text, todo, version=version, unsafe=False)
            except ParserSyntaxError:
                hidden = 0
    return FixResult(text=text, fixed=fixed, remaining=targets, hidden_unsafe=hidden,
                     error=error)


__all__ = ["FIX_KINDS", "FIX_SAFETY", "MAX_ROUNDS", "NONE", "SAFE", "UNSAFE", "FixResult",
           "Target", "fix_once", "fix_until_stable", "fixable_codes"]
