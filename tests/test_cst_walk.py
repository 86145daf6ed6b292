"""The copy-free walks give exactly LibCST's own: the same children in the same order for
every node of real code, and the same visitor hook calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import accelerate
import libcst as cst
import pytest

from migrator.analysis import cst_walk
from migrator.analysis.scopes import function_bindings
from migrator.engine import write_index

# Real code with most node kinds: accelerate's largest modules and LibCST's own nodes.
_ACCELERATE = sorted(
    Path(accelerate.__file__).parent.rglob("*.py"), key=lambda p: -p.stat().st_size
)
FILES = [*_ACCELERATE[:4], Path(cst.__file__).parent / "_nodes" / "expression.py"]

SHAPES = """\
from . import (a as b, c)
from ..x import *
import os.path as p, sys
@decorator(1)
async def f(x: int = 1, /, *args: str, y, **kw) -> "T":
    global g
    if (n := len(x)) > 1 and not y:
        return [i async for i in x if (j := i)]
    elif x: pass
    else: del x[1:2, ::3]
    async with a as (b, c), d: yield from e
    try: raise E from None
    except* (A, B) as e: pass
    finally: ...
    match p:
        case [1, *rest] | {"k": v, **kw} if v: print(f"{x!r:>{w}} {y=}")
        case Point(x=0) as q: t = lambda a, *, b=2: a @ b
    while x: x -= 1; break
    else: continue
class C(B, metaclass=M):
    z: int = 3
    def g(self): return {**a, 'k': {1, 2}} ^ (~x if y else -z)
"""


def _modules() -> list[cst.Module]:
    found = [cst.parse_module(SHAPES)]
    found += [cst.parse_module(path.read_text(encoding="utf-8")) for path in FILES]
    return found


def test_children_are_libcsts_in_its_order() -> None:
    count = 0
    for module in _modules():
        stack: list[cst.CSTNode] = [module]
        while stack:
            node = stack.pop()
            expected = list(node.children)
            got = list(cst_walk.children(node))
            assert [id(child) for child in got] == [id(child) for child in expected], node
            count += 1
            stack.extend(expected)
    assert count > 50_000


class _Recorder(cst.CSTVisitor):
    """Every hook call, in order; it does not enter functions' bodies."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.calls.append(("visit_FunctionDef", id(node)))
        return False

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.calls.append(("leave_FunctionDef", id(original_node)))

    def visit_Name(self, node: cst.Name) -> None:
        self.calls.append(("visit_Name", id(node)))

    def leave_Call(self, original_node: cst.Call) -> None:
        self.calls.append(("leave_Call", id(original_node)))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.calls.append(("visit_NamedExpr", id(node)))


@pytest.mark.parametrize("source", [SHAPES, FILES[0].read_text(encoding="utf-8")])
def test_visit_calls_the_hooks_visit_calls(source: str) -> None:
    module = cst.parse_module(source)
    ours, libcsts = _Recorder(), _Recorder()
    cst_walk.visit(module, ours)
    module.visit(libcsts)
    assert ours.calls == libcsts.calls
    assert len(ours.calls) > 10


class _Everything(cst.CSTVisitor):
    """Every call LibCST's walk makes on a visitor: node and per-field hooks, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, int, str]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.calls.append(("visit", id(node), ""))
        # Not into lambdas: a visitor's False must stop the walk there.
        return not isinstance(node, cst.Lambda)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.calls.append(("leave", id(original_node), ""))

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.calls.append(("visit_attribute", id(node), attribute))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        self.calls.append(("leave_attribute", id(original_node), attribute))


@pytest.mark.parametrize("path", [None, *FILES])
def test_visit_makes_every_call_libcst_makes_for_any_visitor(path: Path | None) -> None:
    source = SHAPES if path is None else path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    ours, libcsts = _Everything(), _Everything()
    cst_walk.visit(module, ours)
    module.visit(libcsts)
    assert ours.calls == libcsts.calls
    assert {call[0] for call in ours.calls} == {
        "visit", "leave", "visit_attribute", "leave_attribute"
    }  # fmt: skip


class _EverythingTransformer(cst.CSTTransformer):
    """A pass that changes nothing and records each call, the node `on_leave` is given as
    its update by position in the walk (LibCST's is a copy, the walk's the original)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.calls.append(("visit", type(node).__name__))
        return not isinstance(node, cst.Lambda)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:
        assert updated_node.deep_equals(original_node)
        self.calls.append(("leave", type(original_node).__name__))
        return updated_node

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.calls.append(("visit_attribute", attribute))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        self.calls.append(("leave_attribute", attribute))


@pytest.mark.parametrize("path", [None, FILES[0]])
def test_walk_pass_makes_the_calls_of_libcsts_walk(path: Path | None) -> None:
    module = cst.parse_module(SHAPES if path is None else path.read_text(encoding="utf-8"))
    ours, libcsts = _EverythingTransformer(), _EverythingTransformer()
    cst_walk.walk_pass(module, ours, attributes=True)
    assert module.visit(libcsts).deep_equals(module)
    assert ours.calls == libcsts.calls
    quiet = _EverythingTransformer()
    cst_walk.walk_pass(module, quiet, attributes=False)
    assert quiet.calls == [call for call in ours.calls if not call[0].endswith("attribute")]


def test_walrus_bindings_are_read_as_before() -> None:
    function = cst.ensure_type(
        cst.parse_module(
            "def f(a):\n"
            "    if (n := a):\n"
            "        from torch import cuda as c\n"
            "    [y for x in a if (z := x)]\n"
            "    def inner():\n        hidden = 1\n"
        ).body[0],
        cst.FunctionDef,
    )
    names = function_bindings(function, walrus=True)
    assert names["c"] == "torch.cuda"
    assert {"a", "n", "z", "inner"} <= set(names)
    assert "hidden" not in names and "x" not in names


class _Editing(_EverythingTransformer):
    """Edits of every kind LibCST's helpers treat apart: a changed leaf, a removal from a
    sequence, from an optional field, from a sentinel field (a comma), a flattening, and
    a statement line left empty, which a block then drops."""

    def __init__(self) -> None:
        super().__init__()
        self.parents: list[type[cst.CSTNode]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.parents.append(type(node))
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        # The update as the walk gives it: whether an edit under the node changed it.
        changed = not updated_node.deep_equals(original_node)
        self.calls.append(("leave", f"{type(original_node).__name__} {changed}"))
        self.parents.pop()
        parent = self.parents[-1] if self.parents else None
        # A comma where it is a sentinel field (an element's, an import name's).
        if isinstance(updated_node, cst.Comma) and parent in (cst.Element, cst.ImportAlias):
            return cst.RemoveFromParent()
        if isinstance(updated_node, cst.Name) and updated_node.value in ("x", "self"):
            return updated_node.with_changes(value=updated_node.value + "_")
        if isinstance(updated_node, (cst.Pass, cst.Decorator, cst.AsName)):
            return cst.RemoveFromParent()
        if isinstance(updated_node, cst.Arg) and updated_node.keyword is not None:
            return cst.RemoveFromParent()
        if isinstance(updated_node, cst.Expr) and isinstance(updated_node.value, cst.Call):
            return cst.FlattenSentinel([updated_node, cst.Expr(cst.Name("flattened"))])
        return updated_node


@pytest.mark.parametrize("path", [None, *FILES])
def test_transform_makes_libcsts_calls_and_tree_where_a_pass_edits(path: Path | None) -> None:
    module = cst.parse_module(SHAPES if path is None else path.read_text(encoding="utf-8"))
    ours, libcsts = _Editing(), _Editing()
    got = cst_walk.transform(module, ours, attributes=True)
    expected = module.visit(libcsts)
    assert ours.calls == libcsts.calls
    assert got.code == expected.code
    assert got.deep_equals(expected)
    assert got.code != module.code
    if path is not None:
        # Statements under no edit are the original's own; LibCST's walk copies them all.
        kept = [new for new, old in zip(got.body, module.body, strict=False) if new is old]
        copied = zip(expected.body, module.body, strict=False)
        assert kept and not any(new is old for new, old in copied)
    quiet = _Editing()
    assert cst_walk.transform(module, quiet, attributes=False).code == expected.code
    assert quiet.calls == [call for call in ours.calls if not call[0].endswith("attribute")]


def test_transform_refuses_a_removal_libcst_refuses() -> None:
    class Remove(cst.CSTTransformer):
        def leave_Annotation(self, original_node: cst.Annotation, updated_node: Any) -> Any:
            return cst.RemoveFromParent()

    module = cst.parse_module("x: int = 1\n")
    with pytest.raises(TypeError):
        module.visit(Remove())
    with pytest.raises(TypeError):
        cst_walk.transform(module, Remove(), attributes=False)


def test_is_node_answers_as_isinstance_for_every_type_twice() -> None:
    class LaterNode(cst.Name):
        """A node type made after the walk module learnt its types."""

    values: list[object] = []
    pending: list[cst.CSTNode] = [cst.parse_module(SHAPES)]
    while pending:  # LibCST's own children, so the test does not lean on the walk's
        node = pending.pop()
        values.append(node)
        values.extend(getattr(node, name, None) for name in ("whitespace", "comma", "value"))
        pending.extend(node.children)
    assert len({type(value) for value in values}) > 40
    values += [LaterNode("x"), None, "x", (), [cst.Name("y")], cst.MaybeSentinel.DEFAULT]
    values += [cst.RemovalSentinel.REMOVE, cst.FlattenSentinel([cst.Name("z")])]
    for _ in range(2):  # the first answer is learnt, the second read from the sets
        for value in values:
            assert cst_walk.is_node(value) is isinstance(value, cst.CSTNode), value


def test_each_node_type_holds_only_the_types_its_annotations_admit() -> None:
    """`skippable` trusts LibCST's field annotations: every node under a node of real code
    is of a type `_closures` says a node of that type can hold."""
    closures = cst_walk._closures()
    checked = 0
    for module in _modules():
        stack: list[tuple[cst.CSTNode, frozenset[type]]] = [(module, closures[cst.Module])]
        while stack:
            node, allowed = stack.pop()
            assert type(node) in allowed, (type(node).__name__, "not admitted")
            under = closures[type(node)]
            assert under <= allowed
            stack.extend((child, under) for child in cst_walk.children(node))
            checked += 1
    assert checked > 100_000


def test_a_walk_skips_only_what_no_hook_can_see() -> None:
    skip = cst_walk.skippable(frozenset({cst.Name, cst.Call}))
    assert {cst.SimpleWhitespace, cst.Comma, cst.Dot, cst.Add, cst.Integer} <= skip
    # A call can hold a name, a lambda a call; a string in an f-string holds code.
    assert not {cst.Name, cst.Call, cst.Attribute, cst.Lambda, cst.FormattedString} & skip
    assert cst.SimpleString in skip and cst.SimpleString not in cst_walk.skippable(
        frozenset({cst.SimpleString})
    )


class _Hooks(cst.CSTTransformer):
    """Hooks on a few node types and one field, recording each call in order; one
    edits (a string)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(("visit", cst.Module([]).code_for_node(node.func)))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        self.calls.append(("leave", original_node.value))
        return updated_node

    def visit_If_orelse(self, node: cst.If) -> None:
        self.calls.append(("orelse", type(node.orelse).__name__))

    def leave_SimpleString(
        self, original_node: cst.SimpleString, updated_node: cst.SimpleString
    ) -> cst.SimpleString:
        self.calls.append(("string", original_node.value))
        return updated_node.with_changes(value=updated_node.value.upper())


@pytest.mark.parametrize("path", [None, *FILES])
def test_skipping_walks_make_every_hook_call_libcsts_walk_makes(path: Path | None) -> None:
    module = cst.parse_module(SHAPES if path is None else path.read_text(encoding="utf-8"))
    hooked = cst_walk.hooked_types(_Hooks, cst.CSTTransformer)
    assert hooked == {cst.Call, cst.Name, cst.If, cst.SimpleString}
    skip = cst_walk.skippable(hooked)
    libcsts, read, edit = _Hooks(), _Hooks(), _Hooks()
    expected = module.visit(libcsts)
    cst_walk.walk_pass(module, read, attributes=True, skip=skip)
    got = cst_walk.transform(module, edit, attributes=True, skip=skip)
    assert libcsts.calls and read.calls == libcsts.calls == edit.calls
    assert got.code == expected.code != module.code
    assert got.deep_equals(expected)


def test_hooks_are_read_below_the_base_and_from_the_base() -> None:
    class Base(cst.CSTTransformer):
        def visit_Call(self, node: cst.Call) -> None:
            pass

        def visit_Name(self, node: cst.Name) -> None:
            pass

    class Mixin:
        def visit_Integer(self, node: cst.Integer) -> None:
            pass

    class Rule(Base, Mixin):
        # Back to LibCST's do-nothing stub: no longer a hook.
        visit_Name = cst.CSTTransformer.visit_Name

        def leave_Attribute(
            self, original_node: cst.Attribute, updated_node: cst.Attribute
        ) -> cst.Attribute:
            return updated_node

    class Reads(cst.CSTVisitor):
        # Read, this class attribute raises: only hooks' names are read off a class.
        @classmethod  # type: ignore[misc]
        @property
        def table(cls) -> object:
            raise KeyError("table")

        def visit_Call(self, node: cst.Call) -> None:
            pass

    assert cst_walk.hooked_types(Reads, cst.CSTVisitor) == {cst.Call}
    assert cst_walk.hooked_types(Base, cst.CSTTransformer) == {cst.Call, cst.Name}
    assert cst_walk.hooked_types(Rule, Base) == {cst.Call, cst.Attribute}
    assert cst_walk.hooked_types(Rule, cst.CSTTransformer) == {cst.Call, cst.Attribute}


def test_a_walker_that_sees_every_node_skips_none() -> None:
    class Counter(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.seen = 0

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.seen += 1
            return True

    assert cst_walk.hooked_types(Counter, cst.CSTVisitor) is None
    module = cst.parse_module(SHAPES)
    ours, libcsts = Counter(), Counter()
    cst_walk.visit(module, ours)
    module.visit(libcsts)
    assert ours.seen == libcsts.seen


def test_find_all_collects_as_libcst_s_visit_and_makes_one_class_a_type() -> None:
    module = cst.parse_module("x = f(a.b, 'c')\nif y:\n    z = [a, 'd', f'e{a}']\n")

    class Reference(cst.CSTVisitor):
        def __init__(self) -> None:
            self.names: list[cst.Name] = []
            self.strings: list[cst.SimpleString] = []

        def visit_Name(self, node: cst.Name) -> None:
            self.names.append(node)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            self.strings.append(node)

    reference = Reference()
    module.visit(reference)
    assert cst_walk.find_all(module, cst.Name) == reference.names
    assert cst_walk.find_all(module, cst.SimpleString) == reference.strings
    known = len(cst_walk._VISITOR_SKIPS)
    for _ in range(3):
        cst_walk.find_all(module, cst.Name)
    # The class is made once, so `visit` learns its skips once.
    assert len(cst_walk._VISITOR_SKIPS) == known


def _learnt_tables() -> tuple[dict[type, Any], ...]:
    """What `_closures` and `_learn` give every node type, learnt afresh."""
    under = cst_walk._learn_closures()
    fields: dict[type, Any] = {}
    skipped: dict[type, Any] = {}
    helpers: dict[type, Any] = {}
    for kind in under:
        fields[kind], found_skipped, found_helpers = cst_walk._learn_shape(kind)
        if found_skipped is not None:
            skipped[kind] = found_skipped
        if found_helpers is not None:
            helpers[kind] = found_helpers
    return under, fields, skipped, helpers


def _fresh_tables(monkeypatch: pytest.MonkeyPatch, shapes: Path) -> None:
    """A process that has learnt nothing yet and reads its shapes from `shapes`."""
    monkeypatch.setattr(cst_walk, "SHAPES_FILE", shapes)
    monkeypatch.setattr(cst_walk, "_SHAPES_TRIED", False)
    monkeypatch.setattr(cst_walk, "_UNDER", None)
    for name in ("_FIELDS", "_SKIPPED_WHEN_NONE", "_HELPERS"):
        monkeypatch.setattr(cst_walk, name, {})


def _tables_in_use() -> tuple[dict[type, Any], ...]:
    under = cst_walk._closures()
    for kind in under:
        cst_walk._fields(kind)
    return under, cst_walk._FIELDS, cst_walk._SKIPPED_WHEN_NONE, cst_walk._HELPERS


def test_the_shapes_read_from_the_file_are_the_ones_learnt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shapes = tmp_path / "shapes.json"
    shapes.write_text(cst_walk.render_shapes(), encoding="utf-8")
    learnt = _learnt_tables()
    _fresh_tables(monkeypatch, shapes)
    cst_walk._load_shapes()
    # Every type's shape came from the file, none learnt.
    assert cst_walk._UNDER is not None and len(cst_walk._FIELDS) == len(learnt[0]) > 150
    assert _tables_in_use() == learnt
    # A walk on them gives LibCST's own children.
    stack: list[cst.CSTNode] = [cst.parse_module(SHAPES)]
    while stack:
        node = stack.pop()
        expected = list(node.children)
        assert [id(child) for child in cst_walk.children(node)] == [id(c) for c in expected]
        stack.extend(expected)


@pytest.mark.parametrize(
    "change",
    [
        lambda data: data.update(libcst="0.0.1"),  # written for another LibCST
        lambda data: data.update(format=data["format"] + 1),  # by another learner
        lambda data: data["types"].__setitem__(0, "libcst:NoSuchNode"),
    ],
    ids=["other-libcst", "other-format", "unknown-type"],
)
def test_shapes_for_another_libcst_or_learner_are_learnt_instead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: Any
) -> None:
    data = json.loads(cst_walk.render_shapes())
    # What the file says is wrong for every type, so reading it would show.
    for shape in data["shapes"].values():
        shape["fields"] = None
    change(data)
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps(data), encoding="utf-8")
    learnt = _learnt_tables()
    _fresh_tables(monkeypatch, shapes)
    cst_walk._load_shapes()
    assert cst_walk._UNDER is None and not cst_walk._FIELDS
    assert _tables_in_use() == learnt


@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": 1}'])
def test_an_unreadable_shapes_file_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    shapes = tmp_path / "shapes.json"
    shapes.write_text(text, encoding="utf-8")
    learnt = _learnt_tables()
    _fresh_tables(monkeypatch, shapes)
    assert _tables_in_use() == learnt


@pytest.mark.parametrize(
    "damage",
    [
        lambda shape: shape.pop("helpers"),
        lambda shape: shape.update(under=[10_000]),
        lambda shape: shape.update(fields=7),
    ],
    ids=["missing-key", "unknown-index", "wrong-kind"],
)
def test_a_shapes_file_with_one_bad_entry_fills_no_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: Any
) -> None:
    data = json.loads(cst_walk.render_shapes())
    damage(list(data["shapes"].values())[-1])
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps(data), encoding="utf-8")
    learnt = _learnt_tables()
    _fresh_tables(monkeypatch, shapes)
    cst_walk._load_shapes()
    assert cst_walk._UNDER is None and not cst_walk._FIELDS and not cst_walk._HELPERS
    assert _tables_in_use() == learnt


def test_the_shipped_shapes_are_current_for_the_libcst_they_name() -> None:
    shipped = json.loads(cst_walk.SHAPES_FILE.read_text(encoding="utf-8"))
    if shipped["libcst"] != cst_walk.libcst_version():
        pytest.skip(f"shipped for LibCST {shipped['libcst']}, {cst_walk.libcst_version()} here")
    assert cst_walk.SHAPES_FILE.read_text(encoding="utf-8") == cst_walk.render_shapes(), (
        "stale: run `python -m migrator.engine.write_index` and commit the result"
    )
    assert cst_walk.SHAPES_FILE not in write_index.stale()


def test_write_index_rewrites_shapes_for_another_libcst_that_stale_leaves_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shapes file for another LibCST release is not stale (a run ignores it), but
    `write_index` writes it for the installed release; a current one is left as it is."""
    data = json.loads(cst_walk.render_shapes())
    data["libcst"] = "0.0.1"
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(cst_walk, "SHAPES_FILE", shapes)
    monkeypatch.setattr(write_index, "_stale_indexes", dict)
    assert write_index.shapes_stale() is None and shapes not in write_index.stale()
    assert write_index.main([]) == 0
    assert shapes.read_text(encoding="utf-8") == cst_walk.render_shapes()
    assert f"wrote {shapes}" in capsys.readouterr().out
    assert write_index.main([]) == 0
    assert capsys.readouterr().out == ""
