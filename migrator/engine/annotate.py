"""Inline TODO comments: `# NPU-TODO(CODE): action` above each construct a rule warned about.

A TODO goes above the first line of the statement that holds the warned construct, with
that line's indentation: in Python the enclosing statement (never inside a backslash
continuation or a multi-line string: the first line of its logical line), in shell scripts
and requirements files the first line of the (continued) command. Other formats get none:
YAML block scalars and JSON have no safe place for a comment.

The result depends only on the text: every TODO comment already there is taken out, the
rules are run on what is left (the final, migrated text, so lines that earlier edits
inserted are counted), and one TODO per warning and statement is put back. Re-running
therefore never duplicates a TODO, and a TODO whose construct is gone disappears.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from migrator.analysis.ast_lines import indentation
from migrator.core.model import Finding
from migrator.formats.sources import newline_of, split_lines
from migrator.formats.textlines import Style, command_spans

TODO_MARK = "NPU-TODO("
_TODO = re.compile(r"^[ \t]*# NPU-TODO\([A-Z]{3}\d{3}\): .*$")


@dataclass(frozen=True)
class Annotated:
    text: str
    added: int = 0
    removed: int = 0


def action(warning: Finding) -> str:
    """The one-line text of a TODO: what to do, else what is wrong."""
    return " ".join((warning.suggestion or warning.message).split())


def _python_todo_lines(text: str) -> set[int]:
    found: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            own_line = token.type == tokenize.COMMENT and token.line.strip() == token.string
            if own_line and _TODO.match(token.line.rstrip("\r\n")):
                found.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        return set()
    return found


def todo_lines(text: str, style: Style) -> set[int]:
    """1-based lines that are TODO comments this module wrote (real comment lines only)."""
    if TODO_MARK not in text:
        return set()
    if style == "python":
        return _python_todo_lines(text)
    spans = command_spans(text, style)
    return {
        number
        for number, line in enumerate(split_lines(text), start=1)
        if spans[number - 1] == (number, number) and _TODO.match(line.rstrip("\r\n"))
    }


def _logical_starts(text: str) -> dict[int, int]:
    """Physical line -> first line of its logical line (for code lines)."""
    starts: dict[int, int] = {}
    start: int | None = None
    skipped = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in skipped or token.type == tokenize.ENDMARKER:
            continue
        if start is None:
            start = token.start[0]
        if token.type == tokenize.NEWLINE:
            for line in range(start, token.end[0] + 1):
                starts.setdefault(line, start)
            start = None
    return starts


def _statement_spans(tree: ast.Module) -> list[tuple[int, int, int]]:
    """(depth, first line, last line) of every statement, except clause and case."""
    spans: list[tuple[int, int, int]] = []

    def visit(node: ast.AST, depth: int) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                first = getattr(child, "lineno", None)
                if isinstance(child, ast.match_case):
                    first = child.pattern.lineno
                decorators = getattr(child, "decorator_list", None) or []
                first = min([first or 0, *(d.lineno for d in decorators)])
                last = getattr(child, "end_lineno", None)
                if isinstance(child, ast.match_case):
                    last = child.body[-1].end_lineno
                spans.append((depth, first, last or first))
                visit(child, depth + 1)
            else:
                visit(child, depth)

    visit(tree, 0)
    return spans


def _python_anchors(text: str) -> Callable[[int], int] | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(text)
            starts = _logical_starts(text)
        except (SyntaxError, ValueError, tokenize.TokenError):
            return None
    spans = _statement_spans(tree)

    def anchor(line: int) -> int:
        holding = [(depth, first) for depth, first, last in spans if first <= line <= last]
        if holding:
            depth = max(d for d, _ in holding)
            line = min(first for d, first in holding if d == depth)
        return starts.get(line, line)

    return anchor


def _text_anchors(text: str, style: Style) -> Callable[[int], int]:
    spans = command_spans(text, style)

    def anchor(line: int) -> int:
        return spans[line - 1][0] if 1 <= line <= len(spans) else line

    return anchor


def annotate(
    text: str, style: Style, warnings_for: Callable[[str], Sequence[Finding]]
) -> Annotated:
    """`text` with exactly one TODO per warning and statement, and no stale ones.

    `warnings_for(text)` runs the rules on a text and returns their warnings.
    """
    lines = split_lines(text)
    old = todo_lines(text, style)
    stripped_lines = [line for number, line in enumerate(lines, start=1) if number not in old]
    stripped = "".join(stripped_lines)
    found = warnings_for(stripped)
    if not found and not old:
        return Annotated(text)
    anchor = _python_anchors(stripped) if style == "python" else _text_anchors(stripped, style)
    if anchor is None:
        return Annotated(text)
    newline = newline_of(text)
    wanted: dict[int, list[str]] = {}
    for warning in sorted(found, key=lambda w: (w.line, w.code, w.col)):
        at = anchor(warning.line)
        if not 1 <= at <= len(stripped_lines):
            continue
        first_line = stripped_lines[at - 1]
        indent = indentation(first_line)
        comment = f"{indent}# NPU-TODO({warning.code}): {action(warning)}{newline}"
        if comment not in wanted.setdefault(at, []):
            wanted[at].append(comment)
    out: list[str] = []
    for number, line in enumerate(stripped_lines, start=1):
        out += wanted.get(number, [])
        out.append(line)
    new_text = "".join(out)
    before = Counter(lines[number - 1].strip() for number in old)
    after = Counter(comment.strip() for comments in wanted.values() for comment in comments)
    return Annotated(new_text, sum((after - before).values()), sum((before - after).values()))
