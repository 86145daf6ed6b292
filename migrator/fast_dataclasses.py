"""Faster `@dataclass` class creation for the `migrate` command's process (Python 3.10-3.12).

`dataclasses` writes each method it adds as source text and compiles it (`exec`): six
compilations for a frozen class (`__init__`, `__repr__`, `__eq__`, `__setattr__`,
`__delattr__`, `__hash__`), at 0.7 ms a class here. LibCST's node classes and the tool's
own records are frozen dataclasses, so a run over one small file spent a third of its CPU
time creating classes: 0.05 s of LibCST's import, 0.03 s of the tool's. Python 3.13 makes
them all in one compilation (`_FuncBuilder`); `install` does the same work on 3.10-3.12 by
making all but `__init__` from closures, from no compilation. They are the library's
methods in all a caller sees: names, qualified names, modules and (empty) annotations;
results, errors, hashes and reprs; `hash`, `type` and `super` looked up in the class's
module first, as the generated code does; a field whose name the generated code would read
otherwise (a keyword, a name that NFKC normalisation changes) takes the library's helper.
Only a method's code differs, for introspection (`__globals__`, `inspect.getsource`).
`tests/test_fast_dataclasses.py` holds each shape made both ways side by side.

It replaces four private helpers of `dataclasses` (`_repr_fn`, `_cmp_fn`, `_hash_fn`,
`_frozen_get_del_attr`), whose signatures are the same from 3.10 to 3.12, and only there:
on any other version it leaves `dataclasses` alone. Only the command's entry point
(`migrator.launch`) installs it; importing the tool as a library changes nothing.
"""

from __future__ import annotations

import builtins
import dataclasses
import keyword
import operator
import sys
from collections.abc import Callable, Container, Sequence
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


def _plain(names: Sequence[str]) -> bool:
    """Whether the library's generated code reads each of `names` as `getattr` does: an
    identifier, no keyword (the library fails on one), unchanged by the parser's NFKC
    normalisation (`self.\ufb01` reads `self.fi`). Any other name takes the library's own
    helper."""
    for name in names:
        if not name.isidentifier() or keyword.iskeyword(name):
            return False
        if not name.isascii():
            import unicodedata  # a C module no ASCII name needs

            if unicodedata.normalize("NFKC", name) != name:
                return False
    return True


def _values(names: Sequence[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of `names`' values that the library's generated methods build."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        one = operator.attrgetter(names[0])
        return lambda self: (one(self),)
    many: Callable[[Any], tuple[Any, ...]] = operator.attrgetter(*names)
    return many


def _builtin(globals: dict[str, Any], name: str) -> Callable[[], Any]:
    """`name` as the library's generated code finds it when called: in the class's module,
    else among the builtins (a module may define its own `hash`)."""
    fallback = getattr(builtins, name)
    return lambda: globals.get(name, fallback)


def _placed(function: Any, globals: dict[str, Any]) -> Any:
    """A method made here, named and annotated as the library's (in the class's module,
    as `exec` in its globals puts it: None where the module is not imported)."""
    function.__module__ = globals.get("__name__")
    function.__annotations__ = {}
    return function


def _repr_fn(fields: Sequence[dataclasses.Field[Any]], globals: dict[str, Any]) -> Any:
    names = tuple(field.name for field in fields)
    if not _plain(names):
        return _ORIGINALS["_repr_fn"](fields, globals)

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
    names = _tuple_names(self_tuple)
    if not _plain(names):
        return _ORIGINALS["_cmp_fn"](name, op, self_tuple, other_tuple, globals)
    values = _values(names)
    compare = _OPERATORS[op]

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(values(self), values(other))
        return NotImplemented

    method.__name__ = method.__qualname__ = name
    return _placed(method, globals)


def _hash_fn(fields: Sequence[dataclasses.Field[Any]], globals: dict[str, Any]) -> Any:
    names = [field.name for field in fields]
    if not _plain(names):
        return _ORIGINALS["_hash_fn"](fields, globals)
    values = _values(names)
    hash_of = _builtin(globals, "hash")

    def __hash__(self: Any) -> Any:
        return hash_of()(values(self))

    return _placed(__hash__, globals)


def _frozen_get_del_attr(
    cls: type[Any], fields: Sequence[dataclasses.Field[Any]], globals: dict[str, Any]
) -> tuple[Any, Any]:
    # 3.12 tests a name against a set of the fields' names, 3.10 and 3.11 against a tuple.
    names: Container[str] = (
        frozenset(field.name for field in fields)
        if sys.version_info >= (3, 12)
        else tuple(field.name for field in fields)
    )
    frozen_error = dataclasses.FrozenInstanceError
    type_of, super_of = _builtin(globals, "type"), _builtin(globals, "super")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type_of()(self) is cls or name in names:
            raise frozen_error(f"cannot assign to field {name!r}")
        super_of()(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type_of()(self) is cls or name in names:
            raise frozen_error(f"cannot delete field {name!r}")
        super_of()(cls, self).__delattr__(name)

    return _placed(__setattr__, globals), _placed(__delattr__, globals)


_REPLACEMENTS = (_repr_fn, _cmp_fn, _hash_fn, _frozen_get_del_attr)
