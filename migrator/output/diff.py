"""Unified diffs of what a run would write (difflib: the standard, reviewable format).

difflib's matcher alone is slow on the files a run changes most, a large module with edits
all through it (torch's common_methods_invocations.py, 27,820 lines, took 0.7 s), and
treats a line that is on more than 1% of a long file's lines (a blank line, a lone `)`)
as junk it never matches: a one-line edit next to a blank line showed as three lines
removed and three added. `_Anchored` first pairs the lines that occur once in each text,
in order (the idea of git's patience diff; the `patiencediff` package is GPL, this project
Apache-2.0), and difflib matches the lines between those anchors only.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections import Counter
from collections.abc import Iterator, Sequence

import click

from migrator.core.model import FileResult, Status


def _decode(data: bytes | None) -> list[str]:
    if not data:
        return []
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


# The `@@` line names the enclosing function, as `git diff` does: its Python driver for
# Python files, else git's default (a line that starts with a letter, `_` or `$`).
_PYTHON_FUNCNAME = re.compile(r"^[ \t]*((class|(async[ \t]+)?def)[ \t].*)$")
_DEFAULT_FUNCNAME = re.compile(r"^([A-Za-z_$].*)$")
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@$")
# git cuts the context at 80 bytes; characters here.
_FUNCNAME_WIDTH = 80


class _Funcnames:
    """For each hunk, the last line above its first old line that opens a function or
    class. The hunks come in order, so the lines are read once, from the top, however
    many hunks there are (a hunk that starts higher up reads them again)."""

    def __init__(self, old: list[str], python: bool) -> None:
        self._old = old
        self._pattern = _PYTHON_FUNCNAME if python else _DEFAULT_FUNCNAME
        self._read = 0
        self._last = ""

    def above(self, start: int) -> str:
        """The name for old line `start` (1-based)."""
        end = max(start - 1, 0)
        if end < self._read:
            self._read, self._last = 0, ""
        python = self._pattern is _PYTHON_FUNCNAME
        for line in self._old[self._read : end]:
            # Most lines hold neither word: `in` is far cheaper than the regex.
            if python and "def" not in line and "class" not in line:
                continue
            found = self._pattern.match(line.rstrip("\r\n"))
            if found is not None:
                self._last = found.group(1).rstrip()[:_FUNCNAME_WIDTH]
        self._read = end
        return self._last


class _Anchored(difflib.SequenceMatcher[str]):
    """difflib's matcher, its matching blocks found between anchors: the common head and
    tail, then the lines that occur once in each text, paired in order (the longest run
    of them whose order the two texts share); difflib matches what lies between two
    anchors, each anchor grown over the equal lines around it. Every block is a run of
    equal lines and the blocks are in order, so the diff is one that turns `a` into `b`."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        # Given no texts, difflib indexes nothing; the blocks are found here.
        super().__init__(None, (), ())
        self._blocks = _blocks(a, b)

    def get_matching_blocks(self) -> list[difflib.Match]:
        return self._blocks


def _blocks(a: Sequence[str], b: Sequence[str]) -> list[difflib.Match]:
    n, m = len(a), len(b)
    head = 0
    while head < n and head < m and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    found: list[tuple[int, int, int]] = [(0, 0, head)] if head else []
    i0 = j0 = head
    for i, j in [*_unique_pairs(a, b, head, n - tail, m - tail), (n - tail, m - tail)]:
        if i < i0 or j < j0:
            # Inside the run the anchor before grew over.
            continue
        start_i, start_j = i, j
        while start_i > i0 and start_j > j0 and a[start_i - 1] == b[start_j - 1]:
            start_i, start_j = start_i - 1, start_j - 1
        if start_i > i0 and start_j > j0:
            between = difflib.SequenceMatcher(None, a[i0:start_i], b[j0:start_j])
            found += [
                (i0 + x, j0 + y, size) for x, y, size in between.get_matching_blocks() if size
            ]
        if i == n - tail:
            break
        end_i, end_j = i, j
        while end_i < n - tail and end_j < m - tail and a[end_i] == b[end_j]:
            end_i, end_j = end_i + 1, end_j + 1
        found.append((start_i, start_j, end_i - start_i))
        i0, j0 = end_i, end_j
    if tail:
        found.append((n - tail, m - tail, tail))
    merged: list[difflib.Match] = []
    for i, j, size in found:
        if merged and merged[-1].a + merged[-1].size == i and merged[-1].b + merged[-1].size == j:
            merged[-1] = difflib.Match(merged[-1].a, merged[-1].b, merged[-1].size + size)
        else:
            merged.append(difflib.Match(i, j, size))
    merged.append(difflib.Match(n, m, 0))
    return merged


def _once(lines: Sequence[str], first: int, end: int) -> dict[str, int]:
    """Each line that occurs once in `lines[first:end]`, with its index (`Counter` and
    `dict(zip(...))` loop in C: a large file's diff read each line in Python, twice)."""
    part = lines[first:end]
    # The last index of each line: the index of each line that occurs once.
    where = dict(zip(part, range(first, first + len(part)), strict=True))
    return {line: where[line] for line, count in Counter(part).items() if count == 1}


def _unique_pairs(
    a: Sequence[str], b: Sequence[str], first: int, end_a: int, end_b: int
) -> list[tuple[int, int]]:
    """The lines that occur once in `a[first:end_a]` and once in `b[first:end_b]`, as
    (index in a, index in b), the longest sequence of them in order in both."""
    once_a = _once(a, first, end_a)
    once_b = _once(b, first, end_b)
    pairs = sorted((i, once_b[line]) for line, i in once_a.items() if line in once_b)
    # Longest increasing run of the b indices (patience sorting).
    tops: list[int] = []
    top_pair: list[int] = []
    before = [-1] * len(pairs)
    for index, (_, j) in enumerate(pairs):
        pile = bisect.bisect_left(tops, j)
        if pile == len(tops):
            tops.append(j)
            top_pair.append(index)
        else:
            tops[pile] = j
            top_pair[pile] = index
        before[index] = top_pair[pile - 1] if pile else -1
    chain: list[tuple[int, int]] = []
    index = top_pair[-1] if top_pair else -1
    while index >= 0:
        chain.append(pairs[index])
        index = before[index]
    return chain[::-1]


def _unified_lines(
    a: Sequence[str], b: Sequence[str], before: str, after: str, context: int = 3
) -> Iterator[str]:
    """`difflib.unified_diff(a, b, before, after)`, its hunks from `_Anchored`."""
    groups = _Anchored(a, b).get_grouped_opcodes(context)
    for number, group in enumerate(groups):
        if number == 0:
            yield f"--- {before}\n"
            yield f"+++ {after}\n"
        old = _range(group[0][1], group[-1][2])
        new = _range(group[0][3], group[-1][4])
        yield f"@@ -{old} +{new} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                yield from ("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                yield from ("+" + line for line in b[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's range as `unified_diff` writes it (`difflib._format_range_unified`)."""
    beginning = start + 1
    length = stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def unified(result: FileResult, display: str) -> str:
    """`--- a/path` / `+++ b/path` diff; new files diff against /dev/null. Each hunk's `@@`
    line names the function or class it is in, like `git diff`."""
    old = _decode(result.old_data)
    new = _decode(result.new_data)
    before = "/dev/null" if result.status is Status.CREATED else f"a/{display}"
    lines = _unified_lines(old, new, before, f"b/{display}")
    names = _Funcnames(old, display.endswith((".py", ".pyi")))
    out: list[str] = []
    for line in lines:
        hunk = _HUNK.match(line.rstrip("\n"))
        if hunk is not None:
            context = names.above(int(hunk.group(1)))
            line = f"{line.rstrip(chr(10))} {context}\n" if context else line
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def colour(diff: str) -> str:
    """ANSI colours (click drops them when the output is not a terminal)."""
    out: list[str] = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---")):
            out.append(click.style(line, bold=True))
        elif line.startswith("@@"):
            out.append(click.style(line, fg="cyan"))
        elif line.startswith("+"):
            out.append(click.style(line, fg="green"))
        elif line.startswith("-"):
            out.append(click.style(line, fg="red"))
        else:
            out.append(line)
    return "".join(out)
