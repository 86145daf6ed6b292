"""Where a command starts and ends in shell scripts and requirements files.

Both formats continue a command over several lines (a trailing backslash; in shell also a
quote left open or a here-document), and neither allows a comment inside such a command.
Suppression comments and inserted TODO comments therefore work on whole commands: a
`# migrate: ignore` on the command's last line covers every line of it, and a TODO goes
above its first line. Shell command lines come from the one shell lexer
(`migrator.formats.shell`); requirements lines are joined here.
"""

from __future__ import annotations

import re
from typing import Literal

from migrator.formats.sources import split_lines

Style = Literal["python", "shell", "requirements"]

SHELL_SUFFIXES = (".sh", ".bash", ".zsh", ".ksh")
_SHEBANG = re.compile(r"^#!\S*(?:/|\s)(?:env\s+)?(?:ba|z|k|da)?sh\b")
_REQUIREMENTS = re.compile(r"(?:requirements|constraints)[^/]*\.(?:txt|in)$")
_LONE_CR = re.compile(r"\r(?!\n)")


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


def shell_spans(text: str) -> list[tuple[int, int]]:
    """For each line (0-based), the (first, last) 1-based lines of its command line, as the
    shell lexer (`migrator.formats.shell`) reads them."""
    from migrator.formats import shell  # only where there is a shell script: start-up

    lines = split_lines(text)
    # The lexer reads a lone carriage return as a blank; here it ends a line (as
    # `split_lines` does). The replacement keeps every offset.
    starts = shell.parse(_LONE_CR.sub("\n", text)).command_line_starts
    firsts: list[int] = []
    offset = following = first = 0
    for index, line in enumerate(lines):
        while following < len(starts) and starts[following] <= offset:
            following += 1
            first = index
        firsts.append(first)
        offset += len(line)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(lines):
        end = index + 1
        while end < len(lines) and firsts[end] == firsts[index]:
            end += 1
        spans += [(index + 1, end)] * (end - index)
        index = end
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
        return shell_spans(text)
    if style == "requirements":
        return requirement_spans(lines)
    return [(number, number) for number in range(1, len(lines) + 1)]
