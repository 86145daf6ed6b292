"""Read-only walks of a LibCST tree that rebuild no nodes.

`CSTNode.children` and `CSTNode.visit` go through each node's
`_visit_and_replace_children`, which builds (and validates) a copy of the node even when
nothing changes: on torch's `_inductor` modules the device-region tests and the scope
collectors spent most of their time there. `children` here reads the same fields in the
same order (the order `_visit_and_replace_children` visits them, which LibCST documents as
the order they appear in the code), learnt once per node type from that method's source;
`visit` calls a visitor's `visit_*` and `leave_*` hooks as `CSTNode.visit` does, for
visitors that only read. Where the source cannot be read, both fall back to LibCST's own.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Sequence

import libcst as cst

# The node type -> the names of the fields its children come from, in visiting order;
# None: the order could not be learnt, use `CSTNode.children`.
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...] | None] = {}

# `visit_Call_func` and the like: attribute hooks, which `visit` does not call.
_ATTRIBUTE_HOOK = re.compile(r"^(?:visit|leave)_[A-Z][A-Za-z]*_\w+$")


def _learn(kind: type[cst.CSTNode]) -> tuple[str, ...] | None:
    """The fields `kind._visit_and_replace_children` visits, in the order it visits them:
    the field name each `visit_*(self, "name", ...)` call passes, in source order."""
    try:
        source = textwrap.dedent(inspect.getsource(kind._visit_and_replace_children))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.startswith("visit_")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            found.append((node.lineno, node.col_offset, node.args[1].value))
    names: list[str] = []
    for _, _, name in sorted(found):
        if name not in names:
            names.append(name)
    fields = getattr(kind, "__dataclass_fields__", {})
    if any(name not in fields for name in names):
        return None
    return tuple(names)


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """`node.children`, without building a copy of `node`."""
    kind = type(node)
    try:
        fields = _FIELDS[kind]
    except KeyError:
        fields = _FIELDS[kind] = _learn(kind)
    if fields is None:
        return node.children
    found: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found.extend(item for item in value if isinstance(item, cst.CSTNode))
    return found


# The visitor type -> whether `visit` can imitate LibCST's walk for it.
_READS_ONLY: dict[type[cst.CSTVisitor], bool] = {}


def _reads_only(visitor: cst.CSTVisitor) -> bool:
    """Whether `visitor` uses only `visit_<Node>`/`leave_<Node>` hooks, as `visit` calls
    them (no attribute hooks, no own `on_visit`/`on_leave`)."""
    kind = type(visitor)
    found = _READS_ONLY.get(kind)
    if found is None:
        found = _READS_ONLY[kind] = (
            kind.on_visit is cst.CSTVisitor.on_visit
            and kind.on_leave is cst.CSTVisitor.on_leave
            and not any(_ATTRIBUTE_HOOK.match(name) for name in dir(kind))
        )
    return found


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for a visitor that only reads, without copying nodes."""
    if not _reads_only(visitor):
        node.visit(visitor)
        return
    hooks: dict[type[cst.CSTNode], tuple[object, object]] = {}
    # Pre-order with each node's leave hook after its children: (node, entered).
    stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
    while stack:
        current, entered = stack.pop()
        kind = type(current)
        found = hooks.get(kind)
        if found is None:
            name = kind.__name__
            found = hooks[kind] = (
                getattr(visitor, f"visit_{name}", None),
                getattr(visitor, f"leave_{name}", None),
            )
        enter, leave = found
        if entered:
            if callable(leave):
                leave(current)
            continue
        if callable(enter) and enter(current) is False:
            if callable(leave):
                leave(current)
            continue
        stack.append((current, True))
        stack.extend((child, False) for child in reversed(children(current)))
