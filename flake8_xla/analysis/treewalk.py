"""A faster :meth:`astroid.nodes.NodeNG.nodes_of_class`: the same nodes in the same order.

astroid's method is a recursive generator: each node it yields is handed up through one
``yield from`` per level of the tree, and every node visited opens a generator of its
own. One explicit stack walks the same pre-order in about a third of the time, which
matters because the value analysis asks for a function's or a statement's nodes of some
class thousands of times per file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from astroid import nodes


def nodes_of(node: nodes.NodeNG, klass: type | tuple[type, ...],
             skip_klass: type | tuple[type, ...] | None = None) -> Iterator[Any]:
    """``node.nodes_of_class(klass, skip)``: ``node`` itself and its descendants that are
    instances of ``klass``, in pre-order; a descendant of a ``skip_klass`` type is left out with
    its whole subtree (``node`` itself is never skipped). Lazy, as astroid's is."""
    if isinstance(node, klass):
        yield node
    stack = list(node.get_children())
    stack.reverse()
    pop, push = stack.pop, stack.extend
    while stack:
        cur = pop()
        if skip_klass is not None and isinstance(cur, skip_klass):
            continue
        if isinstance(cur, klass):
            yield cur
        children = list(cur.get_children())
        if children:
            children.reverse()
            push(children)
