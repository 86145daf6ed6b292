"""Unified diffs of what a run would write (difflib: the standard, reviewable format)."""

from __future__ import annotations

import difflib

import click

from migrator.core.model import FileResult, Status


def _decode(data: bytes | None) -> list[str]:
    if not data:
        return []
    return data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def unified(result: FileResult, display: str) -> str:
    """`--- a/path` / `+++ b/path` diff; new files diff against /dev/null."""
    old = _decode(result.old_data)
    new = _decode(result.new_data)
    before = "/dev/null" if result.status is Status.CREATED else f"a/{display}"
    lines = difflib.unified_diff(old, new, before, f"b/{display}")
    out: list[str] = []
    for line in lines:
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
