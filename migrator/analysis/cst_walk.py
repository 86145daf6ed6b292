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
import dataclasses
import functools
import inspect
import json
import operator
import re
import sys
import textwrap
import typing
from collections.abc import Callable, Container, Sequence
from pathlib import Path
from typing import Any

import libcst as cst

# The node type -> the names of the fields its children come from, in visiting order;
# None: the order could not be learnt, use `CSTNode.children`.
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...] | None] = {}

# The node type -> its fields LibCST does not visit at all (no per-field calls) when None.
_SKIPPED_WHEN_NONE: dict[type[cst.CSTNode], frozenset[str]] = {}

# The node type -> for each field it visits, the `libcst._nodes.internal` helper its
# `_visit_and_replace_children` visits it with (`visit_required`, `visit_sequence`, ...),
# which says what a removal or a flattening there becomes (`transform`): (the helper for
# a sequence, the helper for one node), either "" where none is used. A field visited
# either way (`names=visit_sequence(...) if isinstance(self.names, Sequence) else
# visit_required(...)`) has both; a type with a field visited by two helpers of a kind,
# or by one `transform` does not know, is absent.
_HELPERS: dict[type[cst.CSTNode], dict[str, tuple[str, str]]] = {}

# The types met in a node's fields, by whether they are LibCST nodes. `isinstance` on the
# abstract `CSTNode` goes through `ABCMeta.__instancecheck__`, 2.3% of a torch run; a set
# lookup on the value's type is not (`_is_node_type` learns a type the first time).
_NODE_TYPES: set[type] = set()
_OTHER_TYPES: set[type] = set()


def _is_node_type(kind: type) -> bool:
    """Whether `kind` is a LibCST node type, remembered in `_NODE_TYPES`/`_OTHER_TYPES`."""
    if issubclass(kind, cst.CSTNode):
        _NODE_TYPES.add(kind)
        return True
    _OTHER_TYPES.add(kind)
    return False


def is_node(value: object) -> bool:
    """`isinstance(value, cst.CSTNode)`, by a set lookup on the value's type."""
    kind = type(value)
    return kind in _NODE_TYPES or (kind not in _OTHER_TYPES and _is_node_type(kind))


# Each LibCST node type -> the node types a tree under a node of it can hold, itself
# included, read off the dataclass fields' annotations (see `_closures`).
_UNDER: dict[type, frozenset[type]] | None = None


def _concrete(kind: type, known: dict[type, frozenset[type]]) -> frozenset[type]:
    """`kind` and its subclasses that can be built (an annotation names a base class).
    A class LibCST's `add_slots` replaced lingers among `__subclasses__()`: only the one
    its module holds counts."""
    found = known.get(kind)
    if found is None:
        mine = (
            not inspect.isabstract(kind)
            and vars(sys.modules[kind.__module__]).get(kind.__name__) is kind
        )
        subclasses: list[type] = kind.__subclasses__()
        found = frozenset({kind} if mine else set()).union(
            *(_concrete(sub, known) for sub in subclasses)
        )
        known[kind] = found
    return found


def _annotated(annotation: object, known: dict[type, frozenset[type]]) -> frozenset[type]:
    """The node types an annotation admits (`Sequence[Comma]`, `Union[...]`)."""
    if inspect.isclass(annotation):
        if issubclass(annotation, cst.CSTNode):
            return _concrete(annotation, known)
        return frozenset()
    return frozenset().union(*(_annotated(arg, known) for arg in typing.get_args(annotation)))


def _closures() -> dict[type, frozenset[type]]:
    """For each LibCST node type, the node types a tree under a node of it can hold."""
    global _UNDER
    if _UNDER is None:
        _load_shapes()
    if _UNDER is None:
        _UNDER = _learn_closures()
    return _UNDER


def _learn_closures() -> dict[type, frozenset[type]]:
    """`_closures`, read off the installed LibCST's dataclass annotations."""
    known: dict[type, frozenset[type]] = {}
    direct: dict[type, frozenset[type]] = {}
    for kind in _concrete(cst.CSTNode, known):
        hints = typing.get_type_hints(kind)
        direct[kind] = frozenset().union(
            *(_annotated(hints[field.name], known) for field in dataclasses.fields(kind))
        )
    under: dict[type, frozenset[type]] = {}
    for kind in direct:
        seen = {kind}
        stack = [kind]
        while stack:
            for child in direct[stack.pop()]:
                if child not in seen:
                    seen.add(child)
                    stack.append(child)
        under[kind] = frozenset(seen)
    return under


def skippable(hooked: frozenset[type]) -> frozenset[type]:
    """The node types a walk for hooks on `hooked` node types only may pass over: no node
    of a hooked type can be under one of them (whitespace, commas, operators, a string
    for a walk that hooks no string). Most of a tree's nodes are of such types: on
    Inductor's `codegen/triton.py`, 63% are whitespace and punctuation."""
    return frozenset(kind for kind, under in _closures().items() if under.isdisjoint(hooked))


def hooked_types(cls: type, base: type) -> frozenset[type] | None:
    """The node types whose nodes `cls` (a visitor or transformer class) does anything
    for: a `visit_<Node>` / `leave_<Node>` hook or a per-field hook of that type that is
    not one of LibCST's do-nothing stubs; None when it overrides `on_visit`, `on_leave`
    or a per-field call of `base` (it may act on every node)."""
    for name in ("on_visit", "on_leave", "on_visit_attribute", "on_leave_attribute"):
        # `operator.is_`: PythonRule's stand-in for a field call that does nothing.
        if getattr(cls, name) not in (getattr(base, name), operator.is_):
            return None
    # Only the names the classes between `cls` and `base` define are read here
    # (`names_below`); `_base_hooks` has the base's.
    below = names_below(cls, base)
    found = {kind for name in below if (kind := _hook_type(cls, name)) is not None}
    found.update(kind for name, kind in _base_hooks(base) if name not in below)
    return frozenset(found)


def names_below(cls: type, base: type) -> set[str]:
    """The names the classes of `cls` that are not `base`'s define: any other name `cls`
    finds where `base` does (the linearisation keeps `base`'s order). Reading all of
    `dir(cls)` instead, some 1,000 names a rule (LibCST's stubs for every node and field),
    took 2 ms a rule class."""
    return {name for kind in cls.__mro__ if kind not in base.__mro__ for name in vars(kind)}


@functools.cache
def _base_hooks(base: type) -> tuple[tuple[str, type], ...]:
    """(name, node type) of each hook `base` has (`hooked_types`)."""
    return tuple((name, kind) for name in dir(base) if (kind := _hook_type(base, name)) is not None)


def _hook_type(cls: type, name: str) -> type | None:
    """The node type `name` is a hook of, where it is one on `cls` and does something.
    Only a hook's name is read off the class: another attribute may run code when read (a
    class property)."""
    match = _ANY_HOOK.match(name)
    kind = None if match is None else _node_types_by_name().get(match.group(1))
    return kind if kind is not None and does_something(cls, name) else None


def does_something(cls: type, name: str) -> bool:
    """Whether `cls` has a method `name` that is not one of the stubs LibCST's typed base
    classes define for every node and field, marked as doing nothing."""
    found = getattr(cls, name, None)
    return callable(found) and not getattr(found, "_is_no_op", False)


@functools.cache
def _node_types_by_name() -> dict[str, type]:
    return {kind.__name__: kind for kind in _closures()}


# `visit_Call`, `leave_If_orelse`: the node type a hook is for.
_ANY_HOOK = re.compile(r"^(?:visit|leave)_([A-Z][A-Za-z]*)(?:_\w+)?$")


# `visit_Call_func` and the like: attribute hooks, which `visit` does not call.
_ATTRIBUTE_HOOK = re.compile(r"^(?:visit|leave)_[A-Z][A-Za-z]*_\w+$")


def _learn(kind: type[cst.CSTNode]) -> tuple[str, ...] | None:
    """The fields `kind._visit_and_replace_children` visits, in the order it visits them
    (None where that cannot be learnt), with what `_SKIPPED_WHEN_NONE` and `_HELPERS`
    hold for it recorded there."""
    fields, skipped, helpers = _learn_shape(kind)
    if skipped is not None:
        _SKIPPED_WHEN_NONE[kind] = skipped
    if helpers is not None:
        _HELPERS[kind] = helpers
    return fields


_Shape = tuple[tuple[str, ...] | None, frozenset[str] | None, dict[str, tuple[str, str]] | None]


def _learn_shape(kind: type[cst.CSTNode]) -> _Shape:
    """What `_FIELDS`, `_SKIPPED_WHEN_NONE` and `_HELPERS` hold for `kind` (None where
    they hold nothing), read off its `_visit_and_replace_children`'s source: the field
    name each `visit_*(self, "name", ...)` call passes, in source order, the fields
    visited under a condition, and the helper each field is visited with."""
    try:
        source = textwrap.dedent(inspect.getsource(kind._visit_and_replace_children))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return None, None, None
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
    skipped = frozenset(conditional)
    helpers: dict[str, set[str]] = {}
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
            helpers.setdefault(node.args[1].value, set()).add(node.func.id)
    names: list[str] = []
    for _, _, name in sorted(found):
        if name not in names:
            names.append(name)
    by_field: dict[str, tuple[str, str]] | None = {}
    for name, used in helpers.items():
        sequence, single = used & _SEQUENCES, used - _SEQUENCES
        if len(sequence) > 1 or len(single) > 1 or not single <= _SINGLES:
            by_field = None
            break
        by_field[name] = (min(sequence, default=""), min(single, default=""))  # type: ignore[index]
    fields = getattr(kind, "__dataclass_fields__", {})
    if any(name not in fields for name in names):
        return None, skipped, None
    return tuple(names), skipped, by_field


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """`node.children`, without building a copy of `node`."""
    kind = type(node)
    try:
        fields = _FIELDS[kind]
    except KeyError:
        fields = _unknown_fields(kind)
    if fields is None:
        return node.children
    found: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        kind = type(value)
        if kind in _NODE_TYPES or (kind not in _OTHER_TYPES and _is_node_type(kind)):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found.extend(item for item in value if is_node(item))
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
        return _unknown_fields(kind)


def _unknown_fields(kind: type[cst.CSTNode]) -> tuple[str, ...] | None:
    """`_FIELDS[kind]` for a type not in it yet: from the shipped shapes where they are the
    installed LibCST's (every type's at once), else learnt."""
    if not _SHAPES_TRIED:
        _load_shapes()
        if kind in _FIELDS:
            return _FIELDS[kind]
    found = _FIELDS[kind] = _learn(kind)
    return found


# What `_closures` and `_learn` read off LibCST, for every node type of one LibCST release,
# written by `python -m migrator.engine.write_index` (`render_shapes`) and read back when
# that release is installed: learning it (annotations resolved, methods' sources parsed)
# took 0.025 of a one-file run's 0.35 CPU s.
SHAPES_FILE = Path(__file__).with_name("libcst_shapes.json")
# Bumped whenever what `_learn_shape` or `_learn_closures` record changes, so that a file
# written by an older learner is not read (`tests/test_cst_walk.py` checks the file).
_SHAPES_FORMAT = 1
_SHAPES_TRIED = False


def libcst_version() -> str | None:
    try:
        from libcst._version import __version__
    except ImportError:
        return None
    return str(__version__)


def _node_types() -> list[type[cst.CSTNode]]:
    """LibCST's node types that can be built, in a stable order."""
    return sorted(_concrete(cst.CSTNode, {}), key=lambda kind: (kind.__module__, kind.__qualname__))


def learnt_shapes() -> dict[str, Any]:
    """What `_closures` and `_learn` give for every node type of the installed LibCST,
    learnt afresh, as JSON data (types by their index in `types`)."""
    kinds = _node_types()
    index = {kind: number for number, kind in enumerate(kinds)}
    under = _learn_closures()
    shapes: dict[str, Any] = {}
    for kind in kinds:
        fields, skipped, helpers = _learn_shape(kind)
        shapes[f"{kind.__module__}:{kind.__qualname__}"] = {
            "under": sorted(index[other] for other in under[kind]),
            "fields": None if fields is None else list(fields),
            "skipped_when_none": None if skipped is None else sorted(skipped),
            "helpers": None if helpers is None else {k: list(v) for k, v in helpers.items()},
        }
    return {
        "format": _SHAPES_FORMAT,
        "libcst": libcst_version(),
        "types": [f"{kind.__module__}:{kind.__qualname__}" for kind in kinds],
        "shapes": shapes,
    }


def render_shapes() -> str:
    """`SHAPES_FILE`'s text for the installed LibCST."""
    data = learnt_shapes()
    shapes = data.pop("shapes")
    lines = [
        f"  {json.dumps(name)}: {json.dumps(shape, sort_keys=True)}"
        for name, shape in shapes.items()
    ]
    head = json.dumps(data, indent=1)[:-2]
    return head + ',\n "shapes": {\n' + ",\n".join(lines) + "\n }\n}\n"


def _load_shapes() -> None:
    """Fill `_UNDER`, `_FIELDS`, `_SKIPPED_WHEN_NONE` and `_HELPERS` from `SHAPES_FILE`
    when it was written for the installed LibCST by this learner; else leave them to be
    learnt. Tried once a process."""
    global _SHAPES_TRIED, _UNDER
    if _SHAPES_TRIED:
        return
    _SHAPES_TRIED = True
    try:
        data = json.loads(SHAPES_FILE.read_text(encoding="utf-8"))
        if data["format"] != _SHAPES_FORMAT or data["libcst"] != libcst_version():
            return
        kinds = [_named_type(name) for name in data["types"]]
        shapes = data["shapes"]
        if len(shapes) != len(kinds) or None in kinds:
            return
        # Read whole before any table is filled: a file cut short fills none.
        under, fields, skipped, helpers = {}, {}, {}, {}
        for kind, name in zip(kinds, data["types"], strict=True):
            shape = shapes[name]
            under[kind] = frozenset(kinds[number] for number in shape["under"])
            fields[kind] = None if shape["fields"] is None else tuple(shape["fields"])
            if shape["skipped_when_none"] is not None:
                skipped[kind] = frozenset(shape["skipped_when_none"])
            if shape["helpers"] is not None:
                helpers[kind] = {k: (v[0], v[1]) for k, v in shape["helpers"].items()}
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return
    for kind, found in fields.items():
        _FIELDS.setdefault(kind, found)
    for kind, names in skipped.items():
        _SKIPPED_WHEN_NONE.setdefault(kind, names)
    for kind, by_field in helpers.items():
        _HELPERS.setdefault(kind, by_field)
    if _UNDER is None:
        _UNDER = under


def _named_type(name: str) -> Any:
    """The LibCST node type `module:qualname` names, if its module is loaded and it is
    one."""
    module_name, _, qualname = name.partition(":")
    found: Any = sys.modules.get(module_name)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    if isinstance(found, type) and issubclass(found, cst.CSTNode):
        return found
    return None


# The visitor type -> the node types `visit` passes over (`skippable`).
_VISITOR_SKIPS: dict[type, frozenset[type]] = {}


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`node.visit(visitor)` for a visitor (which reads only), without copying nodes. A
    subtree that can hold no node of a type the visitor hooks is not walked."""
    visitor_type = type(visitor)
    skip = _VISITOR_SKIPS.get(visitor_type)
    if skip is None:
        hooked = hooked_types(visitor_type, cst.CSTVisitor)
        skip = skippable(hooked) if hooked is not None else frozenset()
        _VISITOR_SKIPS[visitor_type] = skip
    if not _reads_only(visitor):
        _walk(node, visitor, attributes=True, transformer=False, skip=skip)
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
        stack.extend(
            (child, False) for child in reversed(children(current)) if type(child) not in skip
        )


def walk_pass(
    node: cst.CSTNode,
    transformer: cst.CSTTransformer,
    attributes: bool,
    skip: frozenset[type] = frozenset(),
) -> None:
    """The calls `node.visit(transformer)` makes, for a pass that changes nothing: its
    `on_visit`, then for each field (in LibCST's order) `on_visit_attribute`, the field's
    nodes, `on_leave_attribute` (only with `attributes`: a transformer with no field hook
    does nothing in them), and `on_leave(node, node)`, whose result is dropped. Unlike
    LibCST's walk it builds no copy of any node, so `updated_node` is the original node:
    a pass may only be walked so when it reports every change it makes (`PythonRule.edit`)
    and the caller starts it again on LibCST's walk when it does. Nodes of the types in
    `skip` are not walked, nor the nodes under them: no call is made for them (the caller
    says the transformer does nothing there, `skippable`)."""
    _walk(node, transformer, attributes, transformer=True, skip=skip)


def _walk(
    node: cst.CSTNode, visitor: Any, attributes: bool, transformer: bool, skip: frozenset[type]
) -> None:
    """`visit` (for a visitor with per-field hooks) and `walk_pass`: every call
    `node.visit(visitor)` makes, in its order (`on_visit`, for each field
    `on_visit_attribute`, the field's nodes and `on_leave_attribute`, then `on_leave`),
    but none for nodes of the types in `skip` and under them; a node type whose fields
    are not known is walked by LibCST (for a transformer, its copies are dropped)."""
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
            kind = type(value)
            if kind in skip:
                pass
            elif kind in _NODE_TYPES or (kind not in _OTHER_TYPES and _is_node_type(kind)):
                _walk(value, visitor, attributes, transformer, skip)
            elif isinstance(value, (tuple, list)):
                for item in value:
                    kind = type(item)
                    if kind in skip:
                        continue
                    if kind in _NODE_TYPES or (kind not in _OTHER_TYPES and _is_node_type(kind)):
                        _walk(item, visitor, attributes, transformer, skip)
            if attributes:
                visitor.on_leave_attribute(node, name)
    if transformer:
        visitor.on_leave(node, node)
    else:
        visitor.on_leave(node)


# What a child's removal becomes, by helper: dropped from a sequence, None, or the default
# sentinel; a required child may not be removed.
_SEQUENCES = frozenset(
    ("visit_sequence", "visit_iterable", "visit_body_sequence", "visit_body_iterable")
)
_BODIES = frozenset(("visit_body_sequence", "visit_body_iterable"))
_SINGLES = frozenset(("visit_required", "visit_optional", "visit_sentinel"))


def transform(
    node: cst.CSTNode,
    transformer: cst.CSTTransformer,
    attributes: bool,
    skip: frozenset[type] = frozenset(),
) -> Any:
    """`node.visit(transformer)`: the same calls in the same order (as `walk_pass`), and
    the same tree, equal node for node, but a node is rebuilt (`with_changes`, which
    validates it as LibCST's constructor call does) only where a child changed; the rest
    of the tree is the original's nodes. `updated_node` is then the original node where
    nothing under it changed. What LibCST's helpers make of a child's removal or
    flattening is done by the helper that field is visited with; a node type whose
    fields or helpers are not known is walked by LibCST. Nodes of the types in `skip`
    stay as they are, unwalked (as in `walk_pass`)."""
    kind = type(node)
    fields = _fields(kind)
    helpers = _HELPERS.get(kind)
    if fields is None or helpers is None or any(name not in helpers for name in fields):
        return node.visit(transformer)
    changes: dict[str, Any] = {}
    if transformer.on_visit(node):
        skipped = _SKIPPED_WHEN_NONE.get(kind, frozenset())
        for name in fields:
            value = getattr(node, name)
            if value is None and name in skipped:
                continue
            sequence, single = helpers[name]
            if attributes:
                transformer.on_visit_attribute(node, name)
            if isinstance(value, (tuple, list)):
                items, changed = _transform_items(
                    value, transformer, attributes, sequence or "visit_sequence", skip
                )
                if changed:
                    changes[name] = items
            elif type(value) not in skip and is_node(value):
                result = _checked(transform(value, transformer, attributes, skip), single, value)
                if result is not value:
                    changes[name] = result
            if attributes:
                transformer.on_leave_attribute(node, name)
    updated = node.with_changes(**changes) if changes else node
    result = transformer.on_leave(node, updated)
    if not isinstance(result, (cst.CSTNode, cst.RemovalSentinel, cst.FlattenSentinel)):
        raise cst.CSTValidationError(
            "Expected a node of type CSTNode or a RemovalSentinel, "
            + f"but got a return value of {type(result).__name__}"
        )
    return result


def _checked(result: Any, helper: str, child: cst.CSTNode) -> Any:
    """A single child's result as `visit_required`, `visit_optional` or `visit_sentinel`
    returns it."""
    if isinstance(result, cst.FlattenSentinel) or (
        helper == "visit_required" and isinstance(result, cst.RemovalSentinel)
    ):
        raise TypeError(
            f"We got a {type(result).__name__} while visiting a {type(child).__name__}. "
            "This node's parent does not allow it."
        )
    if isinstance(result, cst.RemovalSentinel):
        return None if helper == "visit_optional" else cst.MaybeSentinel.DEFAULT
    return result


def _transform_items(
    value: Sequence[cst.CSTNode],
    transformer: cst.CSTTransformer,
    attributes: bool,
    helper: str,
    skip: frozenset[type],
) -> tuple[tuple[cst.CSTNode, ...], bool]:
    """A sequence field's new items, as `visit_sequence` / `visit_body_sequence` make them
    (a body also drops a statement that an edit left removable, such as an empty line of
    statements, where the original was not), and whether any changed."""
    body = helper in _BODIES
    items: list[cst.CSTNode] = []
    changed = False
    for child in value:
        if type(child) in skip:
            items.append(child)
            continue
        result = transform(child, transformer, attributes, skip)
        if result is child:
            items.append(child)
            continue
        changed = True
        if isinstance(result, cst.RemovalSentinel):
            continue
        for new in result if isinstance(result, cst.FlattenSentinel) else (result,):
            if body and not child._is_removable() and new._is_removable():
                continue
            items.append(new)
    return tuple(items), changed


def find_calls(
    node: cst.CSTNode, qualname: Callable[[cst.BaseExpression], str | None], names: Container[str]
) -> list[cst.Call]:
    """The calls under `node` (in `visit`'s order) whose function's qualified name
    (`qualname`) is one of `names`."""
    finder = _FindCalls(qualname, names)
    visit(node, finder)
    return finder.found


class _FindCalls(cst.CSTVisitor):
    # A class of the module, not of each call: `visit` learns once per class which
    # subtrees it may skip (a class made per call cost a torch run 1.5%).
    def __init__(
        self, qualname: Callable[[cst.BaseExpression], str | None], names: Container[str]
    ) -> None:
        self.qualname = qualname
        self.names = names
        self.found: list[cst.Call] = []

    def visit_Call(self, call: cst.Call) -> None:
        if self.qualname(call.func) in self.names:
            self.found.append(call)


NodeT = typing.TypeVar("NodeT", bound=cst.CSTNode)


def find_all(node: cst.CSTNode, kind: type[NodeT]) -> list[NodeT]:
    """The nodes of type `kind` under `node`, itself included, in `visit`'s order
    (libcst.matchers' findall costs a third of a second of start-up to import)."""
    finder = _finder(kind)()
    visit(node, finder)
    found: list[NodeT] = getattr(finder, "found")  # noqa: B009 (a generated class's field)
    return found


@functools.cache
def _finder(kind: type[cst.CSTNode]) -> type[cst.CSTVisitor]:
    """A visitor class that collects the nodes of `kind`: one class per type, made once,
    so that `visit` learns its skips once (a class made per call cost a torch run 1.5%)."""

    def __init__(self: Any) -> None:
        self.found = []

    def collect(self: Any, found: cst.CSTNode) -> None:
        self.found.append(found)

    name = f"_Find{kind.__name__}"
    return type(name, (cst.CSTVisitor,), {"__init__": __init__, f"visit_{kind.__name__}": collect})
