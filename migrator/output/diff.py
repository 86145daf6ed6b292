"""Unified diffs of what a run would write (difflib: the standard, reviewable format)."""

from __future__ import annotations

import difflib
import re

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
        for line in self._old[self._read : end]:
            found = self._pattern.match(line.rstrip("\r\n"))
            if found is not None:
                self._last = found.group(1).rstrip()[:_FUNCNAME_WIDTH]
        self._read = end
        return self._last


def unified(result: FileResult, display: str) -> str:
    """`--- a/path` / `+++ b/path` diff; new files diff against /dev/null. Each hunk's `@@`
    line names the function or class it is in, like `git diff`."""
    old = _decode(result.old_data)
    new = _decode(result.new_data)
    before = "/dev/null" if result.status is Status.CREATED else f"a/{display}"
    lines = difflib.unified_diff(old, new, before, f"b/{display}")
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
