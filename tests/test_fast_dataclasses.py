"""`fast_dataclasses`: classes made with it behave as the library makes them.

Each shape is defined twice from the same source, once by the library's own helpers and once
with `install()`, and their instances are held side by side: reprs, comparisons, hashes,
the frozen classes' errors, the methods' names and modules, copies and pickles.
"""

from __future__ import annotations

import copy
import dataclasses
import operator
import pickle
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from migrator import fast_dataclasses

pytestmark = pytest.mark.skipif(
    not fast_dataclasses.supported(), reason="dataclasses is left alone on this Python"
)

SHAPES = '''
from dataclasses import InitVar, dataclass, field

@dataclass(frozen=True)
class Frozen:
    a: int
    b: str = "b"
    c: tuple = ()

@dataclass(frozen=True)
class Empty:
    pass

@dataclass(frozen=True)
class One:
    only: object

@dataclass(frozen=True)
class Child(Frozen):
    d: float = 0.5

@dataclass(order=True)
class Ordered:
    x: int
    y: str = ""
    hidden: int = field(default=0, compare=False, repr=False)

@dataclass(unsafe_hash=True)
class Hashed:
    p: int
    q: list = field(default_factory=list, hash=False)

@dataclass
class Loop:
    name: str
    next: object = None

@dataclass(frozen=True, slots=True)
class Slotted:
    u: int
    v: int = 2

@dataclass(frozen=True)
class WithInit:
    w: int
    scale: InitVar[int] = 1

    def __post_init__(self, scale):
        object.__setattr__(self, "w", self.w * scale)

@dataclass(frozen=True, kw_only=True)
class KeywordOnly:
    k: int
    m: int = 3

class Plain(Frozen):
    """Not a dataclass itself: attributes that are not fields may be set."""

class Outer:
    @dataclass(frozen=True)
    class Inner:
        i: int
'''

# A module of its own whose `hash`, `type` and `super` are not the builtins: the library's
# generated methods find the module's.
SHADOWING = """
from dataclasses import dataclass

def hash(value):
    return 12345

@dataclass(frozen=True)
class Shadowed:
    s: int
"""


def _module(name: str, source: str = SHAPES) -> types.ModuleType:
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


def _both(make: Callable[[str], Any]) -> tuple[Any, Any]:
    """`make("library")` by the library's helpers, then `make("fast")` with `install()`."""
    was_installed = bool(fast_dataclasses._ORIGINALS)
    fast_dataclasses.uninstall()
    try:
        library = make("library")
        assert fast_dataclasses.install()
        return library, make("fast")
    finally:
        if not was_installed:
            fast_dataclasses.uninstall()


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[types.ModuleType, types.ModuleType]]:
    """The shapes by the library's helpers, then by `fast_dataclasses`'."""
    yield _both(lambda side: _module(f"shapes_{side}"))
    del sys.modules["shapes_library"], sys.modules["shapes_fast"]


# One NaN for both sides: a NaN's hash is its identity's.
NAN = float("nan")


def _instances(m: types.ModuleType) -> list[tuple[str, Callable[[], Any]]]:
    return [
        ("frozen", lambda: m.Frozen(1, "x", (1, 2))),
        ("frozen default", lambda: m.Frozen(1)),
        ("empty", lambda: m.Empty()),
        ("one", lambda: m.One([1, "a"])),
        ("one nan", lambda: m.One(NAN)),
        ("child", lambda: m.Child(1, "x", (), 2.5)),
        ("ordered", lambda: m.Ordered(1, "z", 7)),
        ("hashed", lambda: m.Hashed(4, [1])),
        ("slotted", lambda: m.Slotted(1)),
        ("with init", lambda: m.WithInit(2, 5)),
        ("keyword only", lambda: m.KeywordOnly(k=1)),
        ("plain", lambda: m.Plain(3)),
        ("nested", lambda: m.Outer.Inner(4)),
    ]


def _outcome(action: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    """What `action(*args)` gives, or the error it raises (type and message)."""
    try:
        return "value", action(*args)
    except Exception as error:
        return type(error).__name__, str(error)


def test_install_replaces_only_on_the_versions_it_knows(monkeypatch: pytest.MonkeyPatch) -> None:
    was_installed = bool(fast_dataclasses._ORIGINALS)
    fast_dataclasses.uninstall()
    original = dataclasses._repr_fn  # type: ignore[attr-defined]
    monkeypatch.setattr(fast_dataclasses, "_VERSIONS", ((2, 7),))
    assert not fast_dataclasses.install()
    assert dataclasses._repr_fn is original  # type: ignore[attr-defined]
    monkeypatch.undo()
    assert fast_dataclasses.install()
    assert dataclasses._repr_fn is not original  # type: ignore[attr-defined]
    fast_dataclasses.uninstall()
    assert dataclasses._repr_fn is original  # type: ignore[attr-defined]
    if was_installed:
        fast_dataclasses.install()


def test_reprs_comparisons_and_hashes_are_the_librarys(
    pair: tuple[types.ModuleType, types.ModuleType],
) -> None:
    library, fast = pair
    for (label, make_library), (_, make_fast) in zip(
        _instances(library), _instances(fast), strict=True
    ):
        a, b = make_library(), make_fast()
        shown = repr(b).replace("shapes_fast", "shapes_library")
        assert repr(a) == shown, label
        assert _outcome(hash, a) == _outcome(hash, b), label
        twin_a, twin_b = copy.copy(a), copy.copy(b)
        assert (a == twin_a) == (b == twin_b), label
        assert (a != twin_a) == (b != twin_b), label
        # Another class's instance: NotImplemented, then object identity.
        assert (a == make_library) is (b == make_fast) is False, label
        for compare in (operator.lt, operator.le, operator.gt, operator.ge):
            assert _outcome(compare, a, twin_a) == _outcome(compare, b, twin_b), (label, compare)


def test_instances_that_differ_in_any_compared_field_differ_alike(
    pair: tuple[types.ModuleType, types.ModuleType],
) -> None:
    library, fast = pair
    for m in (library, fast):
        assert m.Frozen(1, "x", (1,)) != m.Frozen(1, "x", (2,)), "the last field counts"
        assert m.Ordered(1, "a") < m.Ordered(1, "b") and m.Ordered(1, "b") > m.Ordered(1, "a")
        assert hash(m.Frozen(1, "x", (1,))) != hash(m.Frozen(1, "x", (2,)))
        # A subclass's instance is another class: NotImplemented both ways, then identity.
        assert m.Frozen(1) != m.Child(1) and m.Child(1) != m.Frozen(1)
        assert m.Frozen.__eq__(m.Frozen(1), m.Child(1)) is NotImplemented
        assert repr(m.Outer.Inner(4)) == "Outer.Inner(i=4)"
    for make in (
        lambda m: (m.Frozen(1, "x", (1,)), m.Frozen(1, "x", (2,))),
        lambda m: (m.Ordered(1, "a"), m.Ordered(1, "b")),
        lambda m: (m.Frozen(1), m.Child(1)),
    ):
        a, b = make(library)
        c, d = make(fast)
        for compare in (operator.eq, operator.ne, operator.lt, operator.le):
            assert _outcome(compare, a, b) == _outcome(compare, c, d), compare


def test_the_class_modules_own_hash_type_and_super_are_used() -> None:
    library, fast = _both(lambda side: _module(f"shadowing_{side}", SHADOWING).Shadowed)
    assert hash(library(1)) == hash(fast(1)) == 12345
    del sys.modules["shadowing_library"], sys.modules["shadowing_fast"]


def test_field_names_the_generated_code_reads_otherwise_take_the_librarys_helpers() -> None:
    """A name that NFKC normalisation changes: the generated `self.\ufb01` reads `self.fi`."""
    library, fast = _both(
        lambda _side: dataclasses.make_dataclass(
            "Ligature", [("\ufb01", int)], init=False, unsafe_hash=True
        )
    )
    a, b = library(), fast()
    for value in (a, b):
        setattr(value, "\ufb01", 1)  # noqa: B010 (`value.\ufb01 = 1` would set `fi`)
        value.fi = 2
    assert repr(a) == repr(b) == "Ligature(\ufb01=2)"
    assert hash(a) == hash(b) == hash((2,))


def test_order_follows_the_compared_fields_only(
    pair: tuple[types.ModuleType, types.ModuleType],
) -> None:
    for m in pair:
        small, large, same = m.Ordered(1, "b", 9), m.Ordered(2, "a", 0), m.Ordered(1, "b", 0)
        assert small < large and small <= same and large > small and large >= small
        assert small == same, "hidden is not compared"
        assert hash(m.Hashed(1, [1])) == hash(m.Hashed(1, [2])) == hash((1,))
        assert hash(m.Frozen(1, "x", ())) == hash((1, "x", ()))
        assert hash(m.Empty()) == hash(())
        assert m.Ordered(1).__lt__(object()) is NotImplemented


def test_frozen_classes_refuse_the_same_writes(
    pair: tuple[types.ModuleType, types.ModuleType],
) -> None:
    library, fast = pair
    cases: list[tuple[str, Callable[[Any], Any]]] = [
        ("assign a field", lambda x: setattr(x, "a", 5)),
        ("assign another name", lambda x: setattr(x, "z", 5)),
        ("delete a field", lambda x: delattr(x, "a")),
        ("delete another name", lambda x: delattr(x, "z")),
    ]
    for label, action in cases:
        for shape in ("Frozen", "Child", "Plain"):
            a = getattr(library, shape)(1)
            b = getattr(fast, shape)(1)
            assert _outcome(action, a) == _outcome(action, b), (label, shape)
            assert vars(a) == vars(b), (label, shape)
    assert _outcome(setattr, fast.Frozen(1), "a", 2) == (
        "FrozenInstanceError",
        "cannot assign to field 'a'",
    )


def test_methods_are_named_and_placed_as_the_librarys(
    pair: tuple[types.ModuleType, types.ModuleType],
) -> None:
    library, fast = pair
    for shape in ("Frozen", "Ordered", "Hashed", "Slotted", "Child"):
        for name in ("__repr__", "__eq__", "__lt__", "__hash__", "__setattr__", "__delattr__"):
            a = getattr(library, shape).__dict__.get(name)
            b = getattr(fast, shape).__dict__.get(name)
            assert (a is None) == (b is None), (shape, name)
            if a is None or b is None:
                continue
            assert a.__name__ == b.__name__ == name, (shape, name)
            assert a.__annotations__ == b.__annotations__ == {}, (shape, name)
            assert a.__qualname__ == b.__qualname__ == f"{shape}.{name}", (shape, name)
            assert a.__module__ == "shapes_library" and b.__module__ == "shapes_fast"


def test_copies_and_pickles_are_equal(pair: tuple[types.ModuleType, types.ModuleType]) -> None:
    _, fast = pair
    for label, make in _instances(fast):
        value = make()
        if label == "one nan":
            continue
        assert copy.deepcopy(value) == value, label
        assert pickle.loads(pickle.dumps(value)) == value, label
        if dataclasses.is_dataclass(value) and label not in ("with init", "plain"):
            assert dataclasses.replace(value) == value, label


def test_a_repr_that_reaches_its_object_again_shows_dots(
    pair: tuple[types.ModuleType, types.ModuleType],
) -> None:
    for m in pair:
        loop = m.Loop("a")
        loop.next = m.Loop("b", loop)
        assert repr(loop) == "Loop(name='a', next=Loop(name='b', next=...))"


def test_the_command_migrates_as_the_library_does(tmp_path: Path) -> None:
    """The `migrate` command (which installs it) and an in-process run (which does not)
    give the same diff for a file many rules edit."""
    from tests.helpers import invoke

    source = tmp_path / "train.py"
    source.write_text(
        "import torch\n"
        "from torch.cuda.amp import autocast\n\n"
        "def step(model, x):\n"
        "    model.cuda()\n"
        '    with torch.autocast("cuda", dtype=torch.bfloat16):\n'
        "        y = model(x.cuda())\n"
        "    torch.cuda.synchronize()\n"
        '    dist.init_process_group(backend="nccl")\n'
        "    return y.numpy()\n"
    )
    command = subprocess.run(
        [sys.executable, "-m", "migrator", str(source), "--dry-run", "--no-cache"],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )  # fmt: skip
    in_process = invoke(str(source), "--dry-run", "--no-cache")
    assert command.returncode == in_process.exit_code
    assert "+++" in command.stdout
    assert command.stdout == in_process.stdout
