"""Choosing rules: a profile's rules and steps, narrowed by `--select` / `--ignore` prefixes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, TypeVar


class SelectionError(ValueError):
    pass


class _Coded(Protocol):
    @property
    def code(self) -> str: ...


CodedT = TypeVar("CodedT", bound=_Coded)


def split_codes(values: Iterable[str]) -> list[str]:
    """`("NPU0,NPU1", "DIT")` -> ["NPU0", "NPU1", "DIT"] (upper-cased)."""
    return [part.strip().upper() for value in values for part in value.split(",") if part.strip()]


def renamed(codes: Sequence[str], aliases: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """Retired codes replaced by their successors, and one warning for each one replaced.

    Only a whole retired code is mapped: a prefix stays a prefix of the live codes.
    """
    mapped: list[str] = []
    notes: list[str] = []
    for code in codes:
        new = aliases.get(code)
        if new is None:
            mapped.append(code)
        else:
            mapped.append(new)
            notes.append(f"{code} is now {new}; the old code still works but will not forever")
    return mapped, notes


# Letters typed for the digits they look like, in the number part of a code.
_LOOKALIKE = str.maketrans({"L": "1", "I": "1", "O": "0"})


def closest(code: str, known: Iterable[str]) -> str:
    """` (did you mean 'NPU012'?)` for a mistyped code, else ''. A look-alike letter in the
    number (`NPU0l2`) is read as its digit first; then difflib's closest code."""
    import difflib

    wanted = code.upper()
    wanted = wanted[:3] + wanted[3:].translate(_LOOKALIKE)
    known = list(known)
    prefixed = [k for k in known if k.startswith(wanted)]
    if prefixed:
        return f" (did you mean {prefixed[0] if len(prefixed) == 1 else wanted!r}?)"
    # 0.8: one letter wrong or two swapped in a six-character code, not any NPU0 code.
    found = difflib.get_close_matches(wanted, known, n=1, cutoff=0.8)
    return f" (did you mean {found[0]!r}?)" if found else ""


def unknown(codes: Iterable[str], known: Iterable[str]) -> list[str]:
    """The codes or prefixes that name no registered code."""
    known = tuple(known)
    return [code for code in codes if not any(k.startswith(code.upper()) for k in known)]


def select(
    items: Sequence[CodedT],
    selected: Sequence[str],
    ignored: Sequence[str],
    known: Iterable[str],
) -> list[CodedT]:
    """Items whose code starts with a selected prefix (all if none) and no ignored one.

    `known` is every registered code: a prefix that matches none of them is an error.
    """
    known = tuple(known)
    for prefix in [*selected, *ignored]:
        if not any(code.startswith(prefix) for code in known):
            raise SelectionError(
                f"unknown rule code or prefix {prefix!r}{closest(prefix, known)} (see --list-rules)"
            )
    return [
        item
        for item in items
        if (not selected or any(item.code.startswith(p) for p in selected))
        and not any(item.code.startswith(p) for p in ignored)
    ]
