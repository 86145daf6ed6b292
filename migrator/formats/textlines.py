"""Where a command starts and ends in shell scripts and requirements files.

Both formats continue a command over several lines (a trailing backslash; in shell also a
quote left open or a here-document), and neither allows a comment inside such a command.
Suppression comments and inserted TODO comments therefore work on whole commands: a
`# migrate: ignore` on the command's last line covers every line of it, and a TODO goes
above its first line. This is a scanner for those few constructs, not a shell parser.
"""

from __future__ import annotations

import re
from typing import Literal

from migrator.formats.sources import split_lines

Style = Literal["python", "shell", "requirements"]

SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh")
_SHEBANG = re.compile(r"^#!\S*(?:/|\s)(?:env\s+)?(?:ba|z|k|da)?sh\b")
_REQUIREMENTS = re.compile(r"(?:requirements|constraints)[^/]*\.(?:txt|in)$")
_HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def style_for(rel: str, text: str = "") -> Style | None:
    """How comments work in this file, or None when the tool should not insert any."""
    name = rel.rsplit("/", 1)[-1]
    if name.endswith((".py", ".pyi", ".ipynb")):
        return "python"
    if name.endswith(SHELL_SUFFIXES) or _SHEBANG.match(text):
        return "shell"
    if _REQUIREMENTS.search(name):
        return "requirements"
    return None


def _continued(line: str) -> bool:
    body = line.rstrip("\r\n")
    return (len(body) - len(body.rstrip("\\"))) % 2 == 1


def _scan_shell_line(line: str, quote: str | None) -> tuple[str | None, list[tuple[bool, str]]]:
    """The quote still open at the end of `line`, and its here-documents (strip, word)."""
    heredocs: list[tuple[bool, str]] = []
    index = 0
    body = line.rstrip("\r\n")
    while index < len(body):
        char = body[index]
        if quote == "'":
            if char == "'":
                quote = None
        elif quote == '"':
            if char == "\\":
                index += 1
            elif char == '"':
                quote = None
        elif char == "\\":
            index += 1
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or body[index - 1].isspace()):
            break
        elif char == "<" and body.startswith("<<", index) and not body.startswith("<<<", index):
            match = _HEREDOC.match(body, index)
            if match is not None:
                heredocs.append((match.group(1) == "-", match.group(3)))
                index = match.end()
                continue
        index += 1
    return quote, heredocs


def shell_spans(lines: list[str]) -> list[tuple[int, int]]:
    """For each line (0-based), the (first, last) 1-based lines of its command."""
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        first = index
        quote: str | None = None
        pending: list[tuple[bool, str]] = []
        while index < len(lines):
            quote, heredocs = _scan_shell_line(lines[index], quote)
            pending += heredocs
            index += 1
            if quote is None and not _continued(lines[index - 1]):
                break
        for strip, word in pending:
            while index < len(lines):
                body = lines[index].rstrip("\r\n")
                index += 1
                if (body.lstrip("\t") if strip else body) == word:
                    break
        spans += [(first + 1, index)] * (index - first)
    return spans


def requirement_spans(lines: list[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        first = index
        while index < len(lines):
            index += 1
            if not _continued(lines[index - 1]) or lines[index - 1].lstrip().startswith("#"):
                break
        spans += [(first + 1, index)] * (index - first)
    return spans


def command_spans(text: str, style: Style | None) -> list[tuple[int, int]]:
    """(first, last) line of the command holding each line; one line each when unknown."""
    lines = split_lines(text)
    if style == "shell":
        return shell_spans(lines)
    if style == "requirements":
        return requirement_spans(lines)
    return [(number, number) for number in range(1, len(lines) + 1)]
