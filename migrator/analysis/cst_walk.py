"""Walks of a LibCST tree that rebuild no nodes.

`CSTNode.children` and `CSTNode.visit` go through each node's
`_visit_and_replace_children`, which builds (and validates) a copy of the node even when
nothing changes, and even for a visitor, which can change nothing. `children` here reads
the same fields in the same order (the order `_visit_and_replace_children` visits them,
which LibCST documents as the order they appear in the code), learnt once per node type
from that method's source. `visit` makes every call `CSTNode.visit` makes on a visitor
(its hooks, the per-field hooks, `on_visit`/`on_leave`), in the same order. `walk_pass`
makes them for a rule's pass (a transformer) that changes nothing; the engine walks each
pass so first and starts it again on LibCST's walk at its first edit. Where a node type's
source cannot be read, LibCST's own walk serves that node.
"""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from collections.abc import Sequence
from typing import Any

import libcst as cst

# The node type -> the names of the fields its children come from, in visiting order;
# None: the order could not be learnt, use `CSTNode.children`.
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...] | None] = {}

# The node type -> its fields LibCST does not visit at all (no per-field calls) when None.
_SKIPPED_WHEN_NONE: dict[type[cst.CSTNode], frozenset[str]] = {}

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
    # A field visited under a condition (`visit_sequence(...) if format_spec is not None
    # else None`): LibCST makes no call for it when it is None.
    conditional: set[str] = set()
    for test in ast.walk(tree):
        if isinstance(test, ast.IfExp):
            conditional.update(
                node.args[1].value
                for node in ast.walk(test)
                if isinstance(node, ast.Call)
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            )
    _SKIPPED_WHEN_NONE[kind] = frozenset(conditional)
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


# The visitor type -> whether it uses only `visit_<Node>`/`leave_<Node>` hooks.
_READS_ONLY: dict[type[cst.CSTVisitor], bool] = {}


def _reads_only(visitor: cst.CSTVisitor) -> bool:
    """Whether `visitor` uses only `visit_<Node>`/`leave_<Node>` hooks (no attribute hooks,
    no own `on_visit`/`on_leave`), which `visit` then calls directly."""
    kind = type(visitor)
    found = _READS_ONLY.get(kind)
    if found is None:
        found = _READS_ONLY[kind] = (
            kind.on_visit is cst.CSTVisitor.on_visit
            and kind.on_leave is cst.CSTVisitor.on_leave
            and not any(_ATTRIBUTE_HOOK.match(name) for name in dir(kind))
        )
    return found


def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...] | None:
    try:
        return _FIELDS[kind]
    except KeyError:
        found = _FIELDS[kind] = _learn(kind)
        return found


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for a visitor (which reads only), without copying nodes."""
    if not _reads_only(visitor):
        _visit_all(node, visitor)
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


def _visit_all(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Every call `node.visit(visitor)` makes, in its order: `on_visit`, for each field
    `on_visit_attribute`, the field's nodes and `on_leave_attribute`, then `on_leave`."""
    _walk(node, visitor, attributes=True, transformer=False)


def walk_pass(node: cst.CSTNode, transformer: cst.CSTTransformer, attributes: bool) -> None:
    """The calls `node.visit(transformer)` makes, for a pass that changes nothing: its
    `on_visit`, then for each field (in LibCST's order) `on_visit_attribute`, the field's
    nodes, `on_leave_attribute` (only with `attributes`: a transformer with no field hook
    does nothing in them), and `on_leave(node, node)`, whose result is dropped. Unlike
    LibCST's walk it builds no copy of any node, so `updated_node` is the original node:
    a pass may only be walked so when it reports every change it makes (`PythonRule.edit`)
    and the caller starts it again on LibCST's walk when it does."""
    _walk(node, transformer, attributes, transformer=True)


def _walk(node: cst.CSTNode, visitor: Any, attributes: bool, transformer: bool) -> None:
    """`_visit_all` and `walk_pass`; a node type whose fields are not known is walked by
    LibCST (for a transformer, its copies are dropped)."""
    fields = _fields(type(node))
    if fields is None:
        node.visit(visitor)
        return
    if visitor.on_visit(node):
        skipped = _SKIPPED_WHEN_NONE.get(type(node), frozenset())
        for name in fields:
            value = getattr(node, name)
            if value is None and name in skipped:
                continue
            if attributes:
                visitor.on_visit_attribute(node, name)
            if isinstance(value, cst.CSTNode):
                _walk(value, visitor, attributes, transformer)
            elif isinstance(value, (tuple, list)):
                for item in value:
                    if isinstance(item, cst.CSTNode):
                        _walk(item, visitor, attributes, transformer)
            if attributes:
                visitor.on_leave_attribute(node, name)
    if transformer:
        visitor.on_leave(node, node)
    else:
        visitor.on_leave(node)
