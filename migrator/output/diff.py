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


def _funcname(old: list[str], start: int, python: bool) -> str:
    """The last line above old line `start` (1-based) that opens a function or class."""
    pattern = _PYTHON_FUNCNAME if python else _DEFAULT_FUNCNAME
    for line in reversed(old[: max(start - 1, 0)]):
        found = pattern.match(line.rstrip("\r\n"))
        if found is not None:
            return found.group(1).rstrip()[:_FUNCNAME_WIDTH]
    return ""


def unified(result: FileResult, display: str) -> str:
    """`--- a/path` / `+++ b/path` diff; new files diff against /dev/null. Each hunk's `@@`
    line names the function or class it is in, like `git diff`."""
    old = _decode(result.old_data)
    new = _decode(result.new_data)
    before = "/dev/null" if result.status is Status.CREATED else f"a/{display}"
    lines = difflib.unified_diff(old, new, before, f"b/{display}")
    python = display.endswith((".py", ".pyi"))
    out: list[str] = []
    for line in lines:
        hunk = _HUNK.match(line.rstrip("\n"))
        if hunk is not None:
            context = _funcname(old, int(hunk.group(1)), python)
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
