"""Claims of a ``case.toml``: parsing and safe evaluation of their conditions.

A claim names a metric and gives one condition per script of the pair, e.g.::

    [[claim]]
    metric = "UncachedCompile"
    flagged = ">= steps - 1"
    fixed = "<= 2"
    why = "one graph compilation per distinct padded length"

A condition is a comparison operator (``>=``, ``<=``, ``==``, ``!=``, ``>``, ``<``)
followed by an arithmetic expression over numbers and the name ``steps``
(operators ``+ - * / // %`` and parentheses).  For the ``outcome`` metric the
expression is a quoted string: ``== "error"``.  Expressions are evaluated by
walking their :mod:`ast`; nothing is passed to :func:`eval`.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "OUTCOMES",
    "Claim",
    "ClaimError",
    "Condition",
    "evaluate_expression",
    "parse_condition",
]

#: The values of the ``outcome`` metric.
OUTCOMES: tuple[str, ...] = ("ok", "error", "timeout")

Number = int | float

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}
_CONDITION_RE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(.*?)\s*$", re.DOTALL)
_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


class ClaimError(ValueError):
    """A claim or condition in a ``case.toml`` is malformed or cannot be evaluated."""


def _check_tree(node: ast.AST, text: str) -> None:
    """Raise :class:`ClaimError` unless *node* only uses numbers, ``steps`` and arithmetic."""
    if isinstance(node, ast.Expression):
        _check_tree(node.body, text)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ClaimError(f"{text!r}: only numbers are allowed here, not {node.value!r}")
    elif isinstance(node, ast.Name):
        if node.id != "steps":
            raise ClaimError(f"{text!r}: unknown name {node.id!r} (the only name allowed is 'steps')")
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY:
            raise ClaimError(f"{text!r}: operator {type(node.op).__name__} is not allowed")
        _check_tree(node.left, text)
        _check_tree(node.right, text)
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise ClaimError(f"{text!r}: operator {type(node.op).__name__} is not allowed")
        _check_tree(node.operand, text)
    else:
        raise ClaimError(
            f"{text!r}: {type(node).__name__} is not allowed "
            "(use numbers, 'steps', + - * / // % and parentheses)"
        )


def _uses_steps(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "steps" for n in ast.walk(node))


def evaluate_expression(tree: ast.Expression, steps: int | None) -> Number:
    """Evaluate a checked arithmetic expression tree.

    Args:
        tree: an expression accepted by :func:`parse_condition` (numbers, ``steps``,
            ``+ - * / // %``, unary ``+``/``-``).
        steps: the value of the name ``steps`` (the ``XLA_CHECK_STEPS`` of the run), or
            None when unknown.

    Returns:
        The value, an int or a float.

    Raises:
        ClaimError: the expression uses ``steps`` while *steps* is None, divides by
            zero, or contains anything but the allowed nodes.
    """

    def walk(node: ast.AST) -> Number:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            if isinstance(node.value, bool):
                raise ClaimError("booleans are not numbers here")
            return node.value
        if isinstance(node, ast.Name) and node.id == "steps":
            if steps is None:
                raise ClaimError("the condition uses 'steps' but no step count is known "
                                 "(give --steps or [run] steps in case.toml)")
            return steps
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = walk(node.left), walk(node.right)
            try:
                return _BINARY[type(node.op)](left, right)
            except ZeroDivisionError as exc:
                raise ClaimError("division by zero") from exc
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return _UNARY[type(node.op)](walk(node.operand))
        raise ClaimError(f"{type(node).__name__} is not allowed in a condition")

    return walk(tree)


@dataclass(frozen=True)
class Condition:
    """One side of a claim: ``op`` applied to the measured value and an expected value.

    Attributes:
        text: the condition as written, e.g. ``">= steps - 1"``.
        op: the comparison operator.
        expected: the expected-value expression tree (numeric conditions), or None.
        expected_text: the expected outcome for string conditions (``"ok"``,
            ``"error"``, ``"timeout"``), or None for numeric conditions.
    """

    text: str
    op: str
    expected: ast.Expression | None = None
    expected_text: str | None = None

    @property
    def is_outcome(self) -> bool:
        """True for a string condition on the ``outcome`` metric."""
        return self.expected_text is not None

    @property
    def uses_steps(self) -> bool:
        """True when the expected value depends on the name ``steps``."""
        return self.expected is not None and _uses_steps(self.expected)

    def expected_value(self, steps: int | None) -> Number | str:
        """Return the expected value for a run with *steps* steps.

        Raises:
            ClaimError: see :func:`evaluate_expression`.
        """
        if self.expected_text is not None:
            return self.expected_text
        assert self.expected is not None
        return evaluate_expression(self.expected, steps)

    def holds(self, value: Number | str, steps: int | None) -> bool:
        """Compare a measured *value* with the expected value.

        Raises:
            ClaimError: the expected value cannot be computed, or a string is compared
                with a number.
        """
        expected = self.expected_value(steps)
        if isinstance(expected, str) != isinstance(value, str):
            raise ClaimError(f"cannot compare {value!r} with {expected!r}")
        return bool(_COMPARE[self.op](value, expected))


def parse_condition(raw: object, *, outcome: bool = False) -> Condition:
    """Parse a condition such as ``">= steps - 1"`` or ``'== "error"'``.

    Args:
        raw: the TOML value.  A bare number ``n`` means ``== n``; for the
            ``outcome`` metric a bare ``ok``/``error``/``timeout`` means ``== that``.
        outcome: True when the claim's metric is ``outcome`` (string conditions,
            only ``==`` and ``!=``).

    Returns:
        The parsed :class:`Condition`.

    Raises:
        ClaimError: the condition is malformed, uses a name other than ``steps``,
            anything other than arithmetic, or an unknown outcome.
    """
    if isinstance(raw, bool):
        raise ClaimError(f"{raw!r}: expected a condition such as '<= steps + 1'")
    if isinstance(raw, (int, float)):
        if outcome:
            raise ClaimError(f"{raw!r}: an outcome condition compares with a quoted string")
        raw = f"== {raw!r}"
    if not isinstance(raw, str):
        raise ClaimError(f"{raw!r}: expected a string condition such as '<= steps + 1'")
    text = raw.strip()
    match = _CONDITION_RE.match(text)
    if outcome:
        op, rest = (match.group(1), match.group(2)) if match else ("==", text)
        value = rest
        if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "\"'":
            value = rest[1:-1]
        if op not in ("==", "!="):
            raise ClaimError(f"{text!r}: outcome conditions use == or !=")
        if value not in OUTCOMES:
            raise ClaimError(f"{text!r}: outcome must be one of {', '.join(OUTCOMES)}")
        return Condition(text=text, op=op, expected_text=value)
    if match is None:
        raise ClaimError(
            f"{text!r}: a condition starts with one of >= <= == != > < "
            "followed by an expression, e.g. '>= steps - 1'"
        )
    op, rest = match.group(1), match.group(2)
    if not rest:
        raise ClaimError(f"{text!r}: missing the expression after {op!r}")
    try:
        tree = ast.parse(rest, mode="eval")
    except SyntaxError as exc:
        raise ClaimError(f"{text!r}: not an arithmetic expression ({exc.msg})") from None
    _check_tree(tree, text)
    return Condition(text=text, op=op, expected=tree)


@dataclass(frozen=True)
class Claim:
    """A ``[[claim]]`` table: conditions a metric must meet in each script of a pair.

    Attributes:
        metric: a torch_xla counter name (``UncachedCompile``, ``CachedCompile``,
            ``ExecuteComputation``, ``aten::_local_scalar_dense``...), a metric name
            (``CompileTime``, ``ExecuteTime``, ``TransferFromDeviceTime``: their sample
            counts), ``NAME.count`` / ``NAME.total`` / ``NAME.max`` of a metric
            (``TensorsGraphSize.max``; times are in nanoseconds), or ``outcome``.
        flagged: the condition on the flagged script, or None.
        fixed: the condition on the fixed script, or None.
        why: the explanation shown in the report.
    """

    metric: str
    flagged: Condition | None
    fixed: Condition | None
    why: str = ""

    @property
    def uses_steps(self) -> bool:
        """True when a condition refers to ``steps``."""
        return any(c is not None and c.uses_steps for c in (self.flagged, self.fixed))

    def condition(self, side: str) -> Condition | None:
        """Return the condition for *side* (``"flagged"`` or ``"fixed"``)."""
        if side not in ("flagged", "fixed"):
            raise ValueError(f"unknown side {side!r}")
        return self.flagged if side == "flagged" else self.fixed

    @classmethod
    def from_table(cls, table: Mapping[str, object]) -> Claim:
        """Build a claim from a parsed ``[[claim]]`` TOML table.

        Raises:
            ClaimError: a key is missing or a condition is malformed.
        """
        metric = table.get("metric")
        if not isinstance(metric, str) or not metric.strip():
            raise ClaimError("'metric' must be a non-empty string")
        metric = metric.strip()
        is_outcome = metric == "outcome"
        conditions: dict[str, Condition | None] = {}
        for side in ("flagged", "fixed"):
            raw = table.get(side)
            if raw is None:
                conditions[side] = None
                continue
            try:
                conditions[side] = parse_condition(raw, outcome=is_outcome)
            except ClaimError as exc:
                raise ClaimError(f"{metric}: {side}: {exc}") from None
        if conditions["flagged"] is None and conditions["fixed"] is None:
            raise ClaimError(f"{metric}: give a 'flagged' or a 'fixed' condition (or both)")
        why = table.get("why", "")
        if not isinstance(why, str):
            raise ClaimError(f"{metric}: 'why' must be a string")
        unknown = set(table) - {"metric", "flagged", "fixed", "why"}
        if unknown:
            raise ClaimError(f"{metric}: unknown key(s) {', '.join(sorted(unknown))}")
        return cls(metric=metric, flagged=conditions["flagged"], fixed=conditions["fixed"],
                   why=why.strip())
