"""A faster :func:`ast.walk`: the same nodes in the same (breadth-first) order.

:func:`ast.walk` reaches the children through two nested generators
(``iter_child_nodes`` over ``iter_fields``); reading ``_fields`` directly walks a
module about twice as fast, which matters for the project index, where every module of a
repository is summarised on a first run.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator


def walk(tree: ast.AST, prune: tuple[type, ...] = ()) -> Iterator[ast.AST]:
    """Every node of ``tree`` (itself included), breadth first as :func:`ast.walk` yields
    them; a node of a ``prune`` type is yielded but its children are not."""
    node_t = ast.AST
    queue: deque[ast.AST] = deque([tree])
    pop, push = queue.popleft, queue.append
    while queue:
        node = pop()
        yield node
        if prune and isinstance(node, prune):
            continue
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_t):
                        push(item)
            elif isinstance(value, node_t):
                push(value)
