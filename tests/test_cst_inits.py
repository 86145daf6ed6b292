"""The faster constructors of LibCST's node classes build the nodes LibCST's own build."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Iterator
from pathlib import Path

import accelerate
import libcst as cst
import pytest

from migrator.analysis import cst_inits
from migrator.engine.python import parse_cst

# The largest modules of the installed accelerate: real code, every kind of node.
_REAL = sorted(Path(accelerate.__file__).parent.rglob("*.py"), key=lambda p: -p.stat().st_size)[:6]


@pytest.fixture
def libcsts_own() -> Iterator[None]:
    """LibCST's own constructors for the test; the faster ones again after it if they
    were in place before."""
    was = bool(cst_inits.replaced())
    cst_inits.restore()
    yield
    if was:
        cst_inits.install()


def _fields(node: object) -> object:
    """Every field of a tree, recursively, with each node's class (a plain structure that
    compares by value)."""
    if isinstance(node, cst.CSTNode):
        return (
            type(node),
            tuple(
                (field.name, _fields(getattr(node, field.name)))
                for field in dataclasses.fields(node)
            ),
        )
    if isinstance(node, (list, tuple)):
        return (type(node), tuple(_fields(item) for item in node))
    return node


@pytest.mark.usefixtures("libcsts_own")
def test_each_constructor_has_libcsts_signature() -> None:
    assert cst_inits.replaced() == {}
    own = {cls: inspect.signature(cls.__init__) for cls in cst_inits._node_classes()}
    count = cst_inits.install()
    assert count == len(own) > 300
    for cls, signature in own.items():
        made = inspect.signature(cls.__init__)
        assert list(made.parameters) == list(signature.parameters), cls
        for name, parameter in signature.parameters.items():
            if parameter.default is not inspect.Parameter.empty and name != "self":
                field = cls.__dataclass_fields__[name]
                if field.default_factory is dataclasses.MISSING:
                    assert made.parameters[name].default is parameter.default, (cls, name)


@pytest.mark.usefixtures("libcsts_own")
@pytest.mark.parametrize("path", _REAL, ids=lambda path: path.name)
def test_parsed_trees_are_libcsts(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    own = parse_cst(text)
    cst_inits.install()
    made = parse_cst(text)
    assert _fields(made) == _fields(own)
    assert made.code == text


@pytest.mark.usefixtures("libcsts_own")
def test_nodes_built_outside_the_parser_are_still_validated_and_defaulted() -> None:
    cst_inits.install()
    assert cst.Name in cst_inits.replaced()
    with pytest.raises(cst.CSTValidationError, match="empty name"):
        cst.Name("")
    with pytest.raises(TypeError):
        cst.Name()  # type: ignore[call-arg]
    call = cst.Call(func=cst.Name("f"))
    own_defaults = {
        field.name: field.default
        for field in dataclasses.fields(cst.Call)
        if field.default is not dataclasses.MISSING
    }
    for name, default in own_defaults.items():
        assert getattr(call, name) == default
    # A default factory makes a value each time it is not given one.
    first, second = cst.Call(func=cst.Name("f")), cst.Call(func=cst.Name("g"))
    assert first.whitespace_after_func is not second.whitespace_after_func
    given = cst.SimpleWhitespace(" ")
    assert cst.Call(func=cst.Name("f"), whitespace_after_func=given).whitespace_after_func is given


def test_a_class_without_slots_stores_its_fields_in_its_dict() -> None:
    @dataclasses.dataclass(frozen=True)
    class Plain:
        a: int
        b: list[int] = dataclasses.field(default_factory=list)
        c: str = "c"

        def __post_init__(self) -> None:
            if self.a < 0:
                raise ValueError("negative")

    made = cst_inits._made_for(Plain, vars(Plain)["__init__"])
    assert made is not None
    node = Plain.__new__(Plain)
    made(node, 1)
    assert node == Plain(1) and node.b is not Plain(1).b
    with pytest.raises(ValueError, match="negative"):
        made(Plain.__new__(Plain), -1)


def test_a_small_run_keeps_libcsts_constructors(libcsts_own: None) -> None:
    cst_inits.parsing(1000)
    assert cst_inits.replaced() == {}
    cst_inits.parsing(cst_inits._AFTER)
    assert cst.Name in cst_inits.replaced()
