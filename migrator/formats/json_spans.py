"""Where each value of a JSON document sits in its text, so a rule can edit one value in place.

DeepSpeed reads its configs with `json.load`, so a DeepSpeed config is JSON whatever its file
name says. Re-serialising a config would reflow the whole file; editing the characters of
one value keeps every other byte (indentation, key order, number spellings such as `5e8`).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Any

_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"
_NEWLINE = re.compile("\n")


@dataclass(frozen=True)
class Span:
    """One value: its parsed form and its characters `text[start:end]`."""

    value: Any
    start: int
    end: int


class JSONSpanError(ValueError):
    """The text is not one JSON document."""


def spans(text: str) -> dict[tuple[str | int, ...], Span]:
    """Every value of the document by its path (`("bf16", "enabled")`; `()` is the root).

    A key repeated in one object keeps its last occurrence, as `json.loads` does.
    """
    found: dict[tuple[str | int, ...], Span] = {}
    end = _value(text, _skip(text, 0), (), found)
    if _skip(text, end) != len(text):
        raise JSONSpanError("extra data after the JSON document")
    return found


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class LineIndex:
    """`line_col` for many offsets of one text: each costs a search of where the text's
    lines start (made once) instead of a count of the lines before it, which over a large
    file's values is quadratic."""

    def __init__(self, text: str) -> None:
        self._starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]

    def line_col(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self._starts, offset) - 1
        return index + 1, offset - self._starts[index] + 1


def _skip(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _expect(text: str, index: int, char: str) -> int:
    if text[index : index + 1] != char:
        raise JSONSpanError(f"expected {char!r} at offset {index}")
    return index + 1


def _value(
    text: str, start: int, path: tuple[str | int, ...], found: dict[tuple[str | int, ...], Span]
) -> int:
    char = text[start : start + 1]
    if char == "{":
        end = _object(text, start, path, found)
    elif char == "[":
        end = _array(text, start, path, found)
    else:
        try:
            _, end = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as error:
            raise JSONSpanError(str(error)) from None
    found[path] = Span(json.loads(text[start:end]), start, end)
    return end


def _object(
    text: str, start: int, path: tuple[str | int, ...], found: dict[tuple[str | int, ...], Span]
) -> int:
    index = _skip(text, start + 1)
    if text[index : index + 1] == "}":
        return index + 1
    while True:
        if text[index : index + 1] != '"':
            raise JSONSpanError(f"expected a key at offset {index}")
        key, index = _DECODER.raw_decode(text, index)
        index = _skip(text, _expect(text, _skip(text, index), ":"))
        index = _skip(text, _value(text, index, (*path, key), found))
        if text[index : index + 1] == "}":
            return index + 1
        index = _skip(text, _expect(text, index, ","))


def _array(
    text: str, start: int, path: tuple[str | int, ...], found: dict[tuple[str | int, ...], Span]
) -> int:
    index = _skip(text, start + 1)
    if text[index : index + 1] == "]":
        return index + 1
    position = 0
    while True:
        index = _skip(text, _value(text, index, (*path, position), found))
        position += 1
        if text[index : index + 1] == "]":
            return index + 1
        index = _skip(text, _expect(text, index, ","))
