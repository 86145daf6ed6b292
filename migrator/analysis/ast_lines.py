"""Which lines stdlib-`ast` statements span, and which of them a pattern occurs on.

The fast path (`migrator.engine.python`) and rules' cheap pre-checks both ask "which statements
hold a line where this text occurs?" before paying for LibCST; they share these answers.
"""

from __future__ import annotations

import ast
import bisect
import re
from collections.abc import Iterable, Sequence


def first_line(node: ast.stmt) -> int:
    """The statement's first line, its decorators included."""
    decorators: list[ast.expr] = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])


def last_line(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno


def hot_lines(text: str, lines: Sequence[str], pattern: re.Pattern[str]) -> list[int]:
    """Line numbers (sorted) whose text matches, leaving out full-line comments."""
    starts: list[int] = []
    offset = 0
    for line in lines:
        starts.append(offset)
        offset += len(line)
    hot: set[int] = set()
    for match in pattern.finditer(text):
        number = bisect.bisect_right(starts, match.start())
        if number not in hot and not lines[number - 1].lstrip().startswith("#"):
            hot.add(number)
    return sorted(hot)


def statements_on(statements: Iterable[ast.stmt], hot: Sequence[int]) -> list[ast.stmt]:
    """The statements that span at least one of the (sorted) `hot` lines."""
    found: list[ast.stmt] = []
    for statement in statements:
        index = bisect.bisect_left(hot, first_line(statement))
        if index < len(hot) and hot[index] <= last_line(statement):
            found.append(statement)
    return found
