"""Which lines each LibCST statement of a region spans, and which hold none of a rule's
tokens, read off the stdlib-`ast` statements the engine already has.

LibCST nodes carry no line numbers; its positions need a code generation of the whole
tree, which costs as much as a rule's pass. The region's `ast` statements have them, and
both trees hold the same statements in the same order: a block's `ast` statements,
grouped by logical line (`logical_groups`), pair one to one with its LibCST statements
(a `SimpleStatementLine` holds a logical line's small statements). Where the two do not
pair (a count or a kind differs), the block's statements get no span, so nothing in it
is skipped.

A rule whose trigger is `local` (see `migrator.contract.trigger`) is not walked into a
statement that spans no line holding one of its tokens (`cold`).
"""

from __future__ import annotations

import ast
import bisect
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from migrator.analysis.ast_lines import first_line, last_line, logical_groups, walk


@dataclass(frozen=True, slots=True)
class Spanned:
    """A LibCST statement (or the `elif` of an `if`), the file lines it spans, and the
    statements of its blocks. It holds the node, so the node's id is not reused while
    the engine keeps it."""

    node: cst.CSTNode
    first: int
    last: int
    inner: tuple[Spanned, ...] = ()


# The LibCST compound statement each `ast` one is parsed as.
_KINDS: dict[type[ast.stmt], type[cst.CSTNode]] = {
    ast.FunctionDef: cst.FunctionDef,
    ast.AsyncFunctionDef: cst.FunctionDef,
    ast.ClassDef: cst.ClassDef,
    ast.If: cst.If,
    ast.For: cst.For,
    ast.AsyncFor: cst.For,
    ast.While: cst.While,
    ast.With: cst.With,
    ast.AsyncWith: cst.With,
    ast.Try: cst.Try,
    ast.Match: cst.Match,
}


def region_spans(
    module: cst.Module, statements: Sequence[ast.stmt], depth: int, lines: Sequence[str]
) -> tuple[Spanned, ...]:
    """The spans of a region's statements: `module` is the region's LibCST parse, whose
    statements sit inside `depth` stand-in classes; `lines`: the file's lines."""
    body: Sequence[cst.BaseStatement] = module.body
    for _ in range(depth):
        if len(body) != 1 or not isinstance(body[0], cst.ClassDef):
            return ()
        block = body[0].body
        if not isinstance(block, cst.IndentedBlock):
            return ()
        body = block.body
    return _pair(body, statements, lines)


def _pair(
    body: Sequence[cst.BaseStatement], statements: Sequence[ast.stmt], lines: Sequence[str]
) -> tuple[Spanned, ...]:
    groups = logical_groups(statements, lines)
    if len(groups) != len(body):
        return ()
    spans: list[Spanned] = []
    for node, (first, last, members) in zip(body, groups, strict=True):
        if isinstance(node, cst.SimpleStatementLine):
            if any(type(member) in _KINDS for member in members):
                return ()
            spans.append(Spanned(node, first, last))
            continue
        if len(members) != 1 or _KINDS.get(type(members[0])) is not type(node):
            return ()
        spans.append(Spanned(node, first, last, tuple(_inner(node, members[0], lines))))
    return tuple(spans)


def _inner(node: cst.CSTNode, statement: ast.stmt, lines: Sequence[str]) -> Iterator[Spanned]:
    """The spans of the statements in a compound statement's blocks."""
    for suite, statements in _blocks(node, statement):
        if isinstance(suite, cst.IndentedBlock):
            yield from _pair(suite.body, statements, lines)
    if (
        isinstance(node, cst.If)
        and isinstance(node.orelse, cst.If)
        and isinstance(statement, ast.If)
        and len(statement.orelse) == 1
    ):
        # An `elif` is an `if` in the `else` of the one before (in both trees).
        elif_ = statement.orelse[0]
        if isinstance(elif_, ast.If):
            first, last = first_line(elif_), last_line(elif_)
            yield Spanned(node.orelse, first, last, tuple(_inner(node.orelse, elif_, lines)))


def _blocks(
    node: cst.CSTNode, statement: ast.stmt
) -> Iterator[tuple[cst.BaseSuite, Sequence[ast.stmt]]]:
    """Each block of a compound statement with the `ast` statements it holds (a `match`
    statement's cases and `try`/`except*` are left out: nothing in them is skipped)."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.With)):
        yield node.body, getattr(statement, "body", ())
    elif isinstance(node, (cst.If, cst.For, cst.While)):
        yield node.body, getattr(statement, "body", ())
        if isinstance(node.orelse, cst.Else):
            yield node.orelse.body, getattr(statement, "orelse", ())
    elif isinstance(node, cst.Try) and isinstance(statement, ast.Try):
        yield node.body, statement.body
        if len(node.handlers) == len(statement.handlers):
            for handler, ast_handler in zip(node.handlers, statement.handlers, strict=True):
                yield handler.body, ast_handler.body
        if node.orelse is not None:
            yield node.orelse.body, statement.orelse
        if node.finalbody is not None:
            yield node.finalbody.body, statement.finalbody


def cold(spans: Sequence[Spanned], hot: Sequence[int]) -> set[int]:
    """The ids of the outermost statements that span no line of `hot` (sorted)."""
    found: set[int] = set()
    pending = list(spans)
    while pending:
        span = pending.pop()
        index = bisect.bisect_left(hot, span.first)
        if index < len(hot) and hot[index] <= span.last:
            pending.extend(span.inner)
        else:
            found.add(id(span.node))
    return found


# What a statement of plain data is made of: literals and the names, attributes and
# subscripts it is assigned to (no call, lambda, comprehension, `:=`, f-string, await or
# yield: nothing in it runs code or binds a scope).
_DATA = (
    ast.Assign, ast.AnnAssign, ast.Expr, ast.Constant, ast.Tuple, ast.List, ast.Set,
    ast.Dict, ast.UnaryOp, ast.BinOp, ast.Name, ast.Attribute, ast.Subscript, ast.Slice,
    ast.Starred, ast.expr_context, ast.operator, ast.unaryop,
)  # fmt: skip


# The last text `_stdlib_module` parsed, and its tree (None where it did not parse).
_LAST_PARSE: tuple[str, ast.Module | None] | None = None


def _stdlib_module(code: str) -> ast.Module | None:
    """`ast.parse(code)`, or None where it does not parse. The last text's tree is kept:
    a whole-module pass asks for the same text's statements up to three times (NPU090's
    and NPU030's `data_statements`, then the statements' starts for a finding's
    position), and on torch's source those parses were 1% of a run. Its callers only
    read the tree."""
    global _LAST_PARSE
    last = _LAST_PARSE
    if last is not None and (last[0] is code or last[0] == code):
        return last[1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree: ast.Module | None = ast.parse(code)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            tree = None
    _LAST_PARSE = (code, tree)
    return tree


def data_statements(
    module: cst.Module, code: str, lines: Sequence[str], words: Sequence[str]
) -> set[int]:
    """The ids of `module`'s top-level statements that are plain data (`_DATA`: a large
    table of numbers and strings) and hold no string or bytes literal containing one of
    `words` (`code`: the module's text, `lines`: its lines). A whole-module rule that acts
    only on calls, imports, `if` statements and strings spelling `words` has nothing to see
    in them.

    The module's statements are read off a stdlib parse of `code`, paired with LibCST's as
    `region_spans` pairs them; where the code does not parse or the two do not pair,
    none is returned."""
    tree = _stdlib_module(code)
    if tree is None:
        return set()
    groups = logical_groups(tree.body, lines)
    if len(groups) != len(module.body):
        return set()
    found: set[int] = set()
    for node, (_, _, members) in zip(module.body, groups, strict=True):
        if isinstance(node, cst.SimpleStatementLine) and all(
            _is_data(member, words) for member in members
        ):
            found.add(id(node))
    return found


def _is_data(statement: ast.stmt, words: Sequence[str]) -> bool:
    if not isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr)):
        return False
    for node in walk(statement):
        if not isinstance(node, _DATA):
            return False
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            value = node.value
            text = value if isinstance(value, str) else value.decode("latin-1")
            if any(word in text for word in words):
                return False
    return True


def inner_statements(code: str, depth: int, offset: int = 0) -> tuple[ast.stmt, ...] | None:
    """The stdlib statements of `code` inside `depth` stand-in classes (a region's parse:
    the `class <name>:` lines around a method, then its text), numbered as the file's lines
    (`offset`: the file line before `code`'s first); None where it does not parse so."""
    tree = _stdlib_module("\n" * offset + code)
    if tree is None:
        return None
    statements: list[ast.stmt] = tree.body
    for _ in range(depth):
        if len(statements) != 1 or not isinstance(statements[0], ast.ClassDef):
            return None
        statements = statements[0].body
    return tuple(statements)


def statement_starts(
    spans: Sequence[Spanned], offset: int
) -> dict[int, tuple[cst.CSTNode, int, int, int]]:
    """For each statement of `spans` (not an `elif`, which is part of its `if`): its id ->
    (the statement, the line of the region's parse its code starts on, its leading blank
    and comment lines included, the line of its first token and the line of its last);
    `offset`: the file line before the parse's first line. What
    `positions.StatementPositions` reads."""
    found: dict[int, tuple[cst.CSTNode, int, int, int]] = {}
    pending: list[tuple[Spanned, cst.CSTNode | None]] = [(span, None) for span in spans]
    while pending:
        span, parent = pending.pop()
        node = span.node
        if not (isinstance(parent, cst.If) and parent.orelse is node):
            first = span.first - offset
            lead = len(getattr(node, "leading_lines", ()))
            decorators = getattr(node, "decorators", ())
            if decorators:
                lead += len(decorators[0].leading_lines)
            found[id(node)] = (node, first - lead, first, span.last - offset)
        pending.extend((inner, node) for inner in span.inner)
    return found


def data_assignments(
    tree: ast.Module, lines: Sequence[str], words: Sequence[str], least: int
) -> list[tuple[int, int]]:
    """The lines (first, last) of each top-level assignment of plain data (`_DATA`, no
    string holding one of `words`) alone on its lines and at least `least` characters
    long: the large tables a whole-module rule that skips data need not see."""
    found: list[tuple[int, int]] = []
    for first, last, members in logical_groups(tree.body, lines):
        if len(members) != 1 or not isinstance(members[0], (ast.Assign, ast.AnnAssign)):
            continue
        if sum(len(line) for line in lines[first - 1 : last]) < least:
            continue
        if _is_data(members[0], words):
            found.append((first, last))
    return found
