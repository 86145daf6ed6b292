"""Constructors for LibCST's node classes that build the same nodes for less, in large runs.

Every LibCST node is a frozen dataclass with slots. Its generated `__init__` stores each
field with `object.__setattr__(self, name, value)`, which looks the slot up by name, and
then calls `__post_init__`. Storing through the slot's own descriptor
(`member_descriptor.__set__`), or into the instance's `__dict__` for a class without
slots, builds the same node: on torch's source that is a sixteenth
fewer instructions in LibCST's parse, most of which is building nodes.

`install` gives each node class whose generated `__init__` it reproduces exactly (the same
parameters in the same order, the same defaults and default factories, every field a
slot) an `__init__` that does that, `__post_init__` included, so nodes are built and
validated as LibCST builds them (the engine turns validation off while the parser builds
a tree: `migrator.engine.python._parse_unvalidated`). A class it cannot reproduce keeps
LibCST's. The functions are compiled from source, as `dataclasses` makes the ones they
replace. Installing costs about 20 ms, so a run installs them only once LibCST has parsed
`_AFTER` characters (`parsing`): a small run never pays for it.

`tests/test_cst_inits.py` checks the signatures against LibCST's, the trees of real files
against LibCST's own constructors', and that validation still runs.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from collections.abc import Callable, Iterator

import libcst as cst

# The characters LibCST parses in a run before `parsing` installs the constructors.
_AFTER = 1 << 19

# What a parameter with a default factory defaults to (the factory is then called).
_NO_VALUE = object()
# A field stored in the instance's `__dict__` (`_setter`).
_IN_DICT = object()

# Each node class given a constructor -> LibCST's own (for `restore`).
_REPLACED: dict[type, Callable[..., None]] = {}


class _Parsed:
    """The characters parsed so far, and whether the constructors are installed."""

    size = 0
    done = False


def parsing(size: int) -> None:
    """Count `size` characters LibCST is about to parse; install the constructors once the
    run has parsed `_AFTER`."""
    _Parsed.size += size
    if not _Parsed.done and _Parsed.size >= _AFTER:
        install()


def install() -> int:
    """Give each node class it can the faster constructor; how many it gave one to."""
    _Parsed.done = True
    for node_class in _node_classes():
        if node_class in _REPLACED:
            continue
        original = vars(node_class).get("__init__")
        made = _made_for(node_class, original)
        if made is not None and original is not None:
            _REPLACED[node_class] = original
            node_class.__init__ = made  # type: ignore[misc]
    return len(_REPLACED)


def restore() -> None:
    """Put LibCST's own constructors back (the next `parsing` past `_AFTER` reinstalls)."""
    for node_class, original in _REPLACED.items():
        node_class.__init__ = original  # type: ignore[misc]
    _REPLACED.clear()
    _Parsed.size = 0
    _Parsed.done = False


def replaced() -> dict[type, Callable[..., None]]:
    """The node classes that have the faster constructor now, with LibCST's own."""
    return dict(_REPLACED)


def _node_classes() -> Iterator[type]:
    pending: list[type] = [cst.CSTNode]
    while pending:
        node_class = pending.pop()
        pending.extend(node_class.__subclasses__())
        if "__init__" in vars(node_class) and dataclasses.is_dataclass(node_class):
            yield node_class


def _made_for(node_class: type, original: object) -> Callable[..., None] | None:
    """The constructor for `node_class`, or None where its own (`original`) is not the
    plain generated one this reproduces."""
    if not callable(original):
        return None
    fields = dataclasses.fields(node_class)
    try:
        parameters = list(inspect.signature(original).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    # An `InitVar` is a parameter and no field.
    if [parameter.name for parameter in parameters] != [field.name for field in fields]:
        return None
    namespace: dict[str, object] = {"_NO_VALUE": _NO_VALUE}
    arguments: list[str] = []
    body: list[str] = []
    in_dict = False
    for field, parameter in zip(fields, parameters, strict=True):
        setter = _setter(node_class, field.name)
        if (
            setter is None
            or not field.init
            or field.kw_only is True
            or parameter.kind is not inspect.Parameter.POSITIONAL_OR_KEYWORD
        ):
            return None
        name = field.name
        value = name
        if field.default is not dataclasses.MISSING:
            if parameter.default is not field.default:
                return None
            namespace[f"_default_{name}"] = field.default
            arguments.append(f"{name}=_default_{name}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{name}"] = field.default_factory
            arguments.append(f"{name}=_NO_VALUE")
            value = f"_factory_{name}() if {name} is _NO_VALUE else {name}"
        else:
            if parameter.default is not inspect.Parameter.empty:
                return None
            arguments.append(name)
        if setter is _IN_DICT:
            in_dict = True
            body.append(f"    _state[{name!r}] = {value}")
        else:
            namespace[f"_set_{name}"] = setter
            body.append(f"    _set_{name}(self, {value})")
    if in_dict:
        body.insert(0, "    _state = self.__dict__")
    if hasattr(node_class, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__(self, {', '.join(arguments)}):\n" + "\n".join(body or ["    pass"])
    # Compiled as `dataclasses` compiles the constructor it replaces.
    exec(source + "\n", namespace)
    made = namespace["__init__"]
    assert isinstance(made, types.FunctionType)
    made.__qualname__ = f"{node_class.__qualname__}.__init__"
    return made


def _setter(node_class: type, name: str) -> Callable[[object, object], None] | object | None:
    """How `node_class` stores the field `name`: its slot's `__set__`, or `_IN_DICT` where
    the field lives in the instance's `__dict__` (a class without slots keeps only the
    default there); None where a descriptor of another kind holds the name."""
    for klass in node_class.__mro__:
        found = vars(klass).get(name)
        if found is None:
            continue
        if isinstance(found, types.MemberDescriptorType):
            return found.__set__
        if hasattr(type(found), "__set__") or hasattr(type(found), "__delete__"):
            return None
        break
    if "__dict__" not in dir(node_class):
        return None
    return _IN_DICT


__all__ = ["install", "parsing", "replaced", "restore"]
