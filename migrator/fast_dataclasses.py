"""Faster `@dataclass` class creation for the `migrate` command's process (Python 3.10-3.12).

`dataclasses` writes each method it adds as source text and compiles it (`exec`): six
compilations for a frozen class (`__init__`, `__repr__`, `__eq__`, `__setattr__`,
`__delattr__`, `__hash__`), at 0.7 ms a class here. LibCST's node classes and the tool's
own records are frozen dataclasses, so a run over one small file spent a third of its CPU
time creating classes: 0.05 s of LibCST's import, 0.03 s of the tool's. Python 3.13 makes
them all in one compilation (`_FuncBuilder`); `install` does the same work on 3.10-3.12 by
making all but `__init__` from closures: the same methods, which do the same thing, raise
the same errors and give the same hashes and reprs (tests/test_fast_dataclasses.py holds
each shape against the library's own), from no compilation.

It replaces four private helpers of `dataclasses` (`_repr_fn`, `_cmp_fn`, `_hash_fn`,
`_frozen_get_del_attr`), whose signatures are the same from 3.10 to 3.12, and only there:
on any other version it leaves `dataclasses` alone. Only the command's entry point
(`migrator.launch`) installs it; importing the tool as a library changes nothing.
"""

from __future__ import annotations

import dataclasses
import operator
import sys
from collections.abc import Callable, Sequence
from typing import Any

# The versions whose private helpers have the signatures replaced here.
_VERSIONS = ((3, 10), (3, 11), (3, 12))
_HELPERS = ("_repr_fn", "_cmp_fn", "_hash_fn", "_frozen_get_del_attr")
_ORIGINALS: dict[str, Any] = {}

_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def supported() -> bool:
    """Whether this Python's `dataclasses` has the helpers `install` replaces."""
    return sys.version_info[:2] in _VERSIONS and all(
        callable(getattr(dataclasses, name, None)) for name in (*_HELPERS, "_recursive_repr")
    )


def install() -> bool:
    """Replace the helpers (once); False where this Python is not one of `_VERSIONS`."""
    if _ORIGINALS:
        return True
    if not supported():
        return False
    for name, helper in zip(_HELPERS, _REPLACEMENTS, strict=True):
        _ORIGINALS[name] = getattr(dataclasses, name)
        setattr(dataclasses, name, helper)
    return True


def uninstall() -> None:
    """Put the library's own helpers back (for tests)."""
    for name, helper in _ORIGINALS.items():
        setattr(dataclasses, name, helper)
    _ORIGINALS.clear()


def _values(names: Sequence[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of `names`' values that the library's generated methods build."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda self: (one(self),)
    many: Callable[[Any], tuple[Any, ...]] = operator.attrgetter(*names)
    return many


def _placed(function: Any, globals: dict[str, Any]) -> Any:
    """A method made here, in the class's module as `exec` in its globals puts it."""
    function.__module__ = globals.get("__name__", function.__module__)
    return function


def _repr_fn(fields: Sequence[dataclasses.Field[Any]], globals: dict[str, Any]) -> Any:
    names = tuple(field.name for field in fields)

    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    # The library's own guard: a repr that reaches its object again shows "...".
    return vars(dataclasses)["_recursive_repr"](_placed(__repr__, globals))


def _tuple_names(written: str) -> tuple[str, ...]:
    """The field names in a tuple `dataclasses._tuple_str` wrote: `(self.a,self.b,)`."""
    inside = written[1:-1].rstrip(",")
    return tuple(part.split(".", 1)[1] for part in inside.split(",")) if inside else ()


def _cmp_fn(name: str, op: str, self_tuple: str, other_tuple: str, globals: dict[str, Any]) -> Any:
    values = _values(_tuple_names(self_tuple))
    compare = _OPERATORS[op]

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(values(self), values(other))
        return NotImplemented

    method.__name__ = method.__qualname__ = name
    return _placed(method, globals)


def _hash_fn(fields: Sequence[dataclasses.Field[Any]], globals: dict[str, Any]) -> Any:
    values = _values([field.name for field in fields])

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return _placed(__hash__, globals)


def _frozen_get_del_attr(
    cls: type[Any], fields: Sequence[dataclasses.Field[Any]], globals: dict[str, Any]
) -> tuple[Any, Any]:
    names = frozenset(field.name for field in fields)
    frozen_error = dataclasses.FrozenInstanceError

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise frozen_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise frozen_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return _placed(__setattr__, globals), _placed(__delattr__, globals)


_REPLACEMENTS = (_repr_fn, _cmp_fn, _hash_fn, _frozen_get_del_attr)
