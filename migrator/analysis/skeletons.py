"""A region's text with its cold statements stood in for, so that LibCST parses less.

Where every rule that may act in a region is `local` (`Trigger.local`: it acts only at
nodes of a statement holding one of its tokens, deciding from that statement, the headers
around it and name resolution), a statement none of whose lines holds a token of any of
them is never walked. Parsing it is the cost that is left (on torch's own source the
stand-ins spare LibCST 1.2 MB of the 4.6 MB of region code). `cold_skeleton` replaces
each such statement, outermost first, by one line, or by one bytes string over its lines
(opened on its first line, closed on its last), so every line keeps its number and every
kept statement its text, leading comments and position. A comment on each line kept the
numbers too, but LibCST builds nodes for every comment line, and those lines were a
fifth of the code the regions parsed on torch's source: the string is one token. For the
same reason a run of such statements in one block, with only comments and blank lines
between them, is one stand-in (`_collect`), which also takes the comments right above it
that are indented as its first statement (`_leading_comments`): a comment of a kept
statement, and one LibCST would keep in the block before, stay.

The stand-in binds what the statement binds in its scope, as name resolution reads a
scope's bindings (`migrator.analysis.scopes`): `a = b = None` (or `a = b = ` the string)
for a statement that assigns `a` and defines `b`, else `pass` (or the string alone: a
bytes string is no docstring). A statement whose bindings that cannot say stays: one
that imports (an import binds a dotted name), declares a name `global` or `nonlocal`,
or holds a `match` (in its own scope; a nested function's are its own); so does one of
the kinds below. A compound statement that stays is read like one with a
token: the statements in its blocks may still be stood in (all but the import in a
function that imports one name).

Never stood in either: a statement sharing a line with code outside it (`if x: y = 1`,
`a; b`), one inside an `if` that holds a token unless the caller says the chain's bodies
may be stood in (device rules read an `if` chain's bodies, but decide most chains from
their tests alone: `device_regions.plain_chain`), and a compound statement followed by a
comment indented deeper than it (LibCST may keep that comment in the statement's last
block, which the stand-in would hand to the next statement).
"""

from __future__ import annotations

import ast
import bisect
import copy
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple

from migrator.analysis.ast_lines import (
    blocks,
    child_nodes,
    first_line,
    indentation,
    logical_groups,
)

# The start of every stand-in's comment: a region whose text holds it is not stood in.
MARK = "__migrate_cold_"
# What may follow a statement on its last line, and a comment line.
_LINE_END = re.compile(r"[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n)?")
_COMMENT = re.compile(r"([ \t]*)#")
_BLANK = re.compile(r"[ \t]*(?:\r\n|\r|\n)?")

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# What a stand-in's names cannot say (see `scope_bindings`); `type X = ...` from 3.12.
_UNSURE: tuple[type[ast.AST], ...] = (
    ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Match,
    *((ast.TypeAlias,) if hasattr(ast, "TypeAlias") else ()),
)  # fmt: skip


class Skeleton(NamedTuple):
    """`body` (the region's text, the same lines) with `stand_ins`: (stand-in, the lines it
    replaced) for each statement stood in, and `statements`: the region's stdlib
    statements as a parse of `body` gives them (each stand-in's statement where the
    statements it stands in for were), made without parsing it."""

    body: str
    stand_ins: tuple[tuple[str, str], ...]
    statements: tuple[ast.stmt, ...]


def cold_skeleton(
    statements: Sequence[ast.stmt],
    lines: Sequence[str],
    span: tuple[int, int],
    text: str,
    hot: Sequence[int],
    least: int,
    opens: Callable[[ast.If], bool] | None = None,
) -> Skeleton | None:
    """The skeleton of the region made of `statements` (the file's stdlib statements) on
    lines `span` (first, last) of `lines` (the file's lines), whose text is `text`,
    standing in for the statements inside them that span no line of `hot` (sorted); None
    where the stand-ins would replace fewer than `least` characters, or the text holds
    `MARK`. `opens`: whether the statements in an `if`'s blocks may be stood in (never
    where not given)."""
    if MARK in text:
        return None
    first, last = span
    cold: list[_Cold] = []
    # Without a `:=` in the text, only targets bind names (`scope_bindings`).
    walrus = ":=" in text
    for _, _, members in logical_groups(statements, lines):
        if len(members) == 1:
            _collect(members[0], lines, hot, cold, opens, walrus)
    if not cold:
        return None
    saved = sum(sum(map(len, lines[start - 1 : end])) for start, end, _, _ in cold)
    if saved < least:
        return None
    body: list[str] = []
    stand_ins: list[tuple[str, str]] = []
    # The first statement each stand-in replaces -> its statement; the others -> None.
    replacing: dict[int, ast.stmt | None] = {}
    at = first
    for number, (start, end, names, stood) in enumerate(cold):
        body.extend(lines[at - 1 : start - 1])
        replaced = lines[start - 1 : end]
        # The statement's indentation (its stand-in may start on a comment above it).
        indent = indentation(lines[first_line(stood[0]) - 1])
        binds = "".join(f"{name} = " for name in names)
        endings = [_ending(part) for part in replaced]
        if end == start:
            statement = f"{binds}None" if binds else "pass"
            stand_in = [f"{indent}{statement}  # {MARK}{number}{endings[0]}"]
        else:
            # One string over the statement's lines (see the module docstring).
            stand_in = [
                f'{indent}{binds}b"""{endings[0]}',
                *endings[1:-1],
                f'"""  # {MARK}{number}{endings[-1]}',
            ]
        stand_ins.append(("".join(stand_in), "".join(replaced)))
        body.extend(stand_in)
        replacing[id(stood[0])] = _stand_in_statement(start, end, indent, names)
        replacing.update((id(member), None) for member in stood[1:])
        at = end + 1
    body.extend(lines[at - 1 : last])
    starts = sorted(start for start, _, _, _ in cold)
    rebuilt = tuple(_rebuilt(statement, replacing, starts) for statement in statements)
    return Skeleton("".join(body), tuple(stand_ins), rebuilt)


# A statement stood in for: its lines (first, last), the names its stand-in binds and the
# statements it is made of (those of one logical line, or of a run of them: `_collect`).
_Cold = tuple[int, int, list[str], Sequence[ast.stmt]]


def _stand_in_statement(line: int, end: int, indent: str, names: Sequence[str]) -> ast.stmt:
    """The statement a parse gives of a stand-in on lines `line`..`end` (`a = b = None`, or
    `pass`, on one line; the bytes string over them, assigned to `a` and `b` or alone),
    positions included (columns in UTF-8 bytes, as the stdlib counts them)."""
    at = len(indent.encode())
    if not names and end == line:
        return ast.Pass(lineno=line, col_offset=at, end_lineno=line, end_col_offset=at + 4)
    start = at
    targets: list[ast.expr] = []
    for name in names:
        size = len(name.encode())
        targets.append(
            ast.Name(
                id=name,
                ctx=ast.Store(),
                lineno=line,
                col_offset=at,
                end_lineno=line,
                end_col_offset=at + size,
            )
        )
        at += size + 3
    # `None`, or the string that ends with its 3 quotes at the start of line `end`.
    closes = at + 4 if end == line else 3
    value = ast.Constant(
        value=None if end == line else b"\n" * (end - line),
        kind=None,
        lineno=line,
        col_offset=at,
        end_lineno=end,
        end_col_offset=closes,
    )
    if not targets:
        return ast.Expr(
            value=value, lineno=line, col_offset=start, end_lineno=end, end_col_offset=3
        )
    return ast.Assign(
        targets=targets,
        value=value,
        type_comment=None,
        lineno=line,
        col_offset=start,
        end_lineno=end,
        end_col_offset=closes,
    )


def _rebuilt(
    statement: ast.stmt, replacing: Mapping[int, ast.stmt | None], starts: Sequence[int]
) -> ast.stmt:
    """`statement` with the statements `replacing` names replaced in its blocks (copies of
    it and of the statements around them; `starts`: their first lines, sorted, so that a
    statement spanning none is returned as it is)."""
    index = bisect.bisect_left(starts, statement.lineno)
    if index == len(starts) or starts[index] > (statement.end_lineno or statement.lineno):
        return statement
    found = statement
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if isinstance(block, list):
            new = _rebuilt_block(block, replacing, starts)
            if new is not None:
                found = copy.copy(found) if found is statement else found
                setattr(found, name, new)
    handlers: list[ast.ExceptHandler] | None = getattr(statement, "handlers", None)
    if handlers:
        kept = list(handlers)
        for number, handler in enumerate(handlers):
            new = _rebuilt_block(handler.body, replacing, starts)
            if new is not None:
                kept[number] = copy.copy(handler)
                kept[number].body = new
                _end_with(kept[number], new[-1])
        if kept != handlers:
            found = copy.copy(found) if found is statement else found
            found.handlers = kept  # type: ignore[attr-defined]
    if found is not statement:
        # It ends where its last block ends (a stand-in may now end it).
        last = [*(getattr(found, "handlers", None) or ())][-1:]
        for name in ("body", "orelse", "finalbody"):
            block = getattr(found, name, None)
            if block and (name != "body" or not last):
                last = block[-1:]
        if last:
            _end_with(found, last[0])
    return found


def _end_with(node: ast.AST, last: ast.AST) -> None:
    node.end_lineno = last.end_lineno  # type: ignore[attr-defined]
    node.end_col_offset = last.end_col_offset  # type: ignore[attr-defined]


def _rebuilt_block(
    block: list[ast.stmt], replacing: Mapping[int, ast.stmt | None], starts: Sequence[int]
) -> list[ast.stmt] | None:
    """A block's statements with `_rebuilt`'s replacements, or None where none is in it."""
    found: list[ast.stmt] = []
    changed = False
    for statement in block:
        key = id(statement)
        if key in replacing:
            changed = True
            stand_in = replacing[key]
            if stand_in is not None:
                found.append(stand_in)
            continue
        new = _rebuilt(statement, replacing, starts)
        changed = changed or new is not statement
        found.append(new)
    return found if changed else None


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def _collect(
    statement: ast.stmt,
    lines: Sequence[str],
    hot: Sequence[int],
    cold: list[_Cold],
    opens: Callable[[ast.If], bool] | None,
    walrus: bool,
) -> None:
    """Into `cold`, in order, the outermost statements in `statement`'s blocks that span no
    hot line and may be stood in (`statement` spans one), each with the names it binds
    (`walrus`: whether the region's text holds a `:=`).

    Statements that follow one another in a block are one stand-in binding all their
    names where the first starts: only blank lines and comments lie between them (none
    hot, or the run ends), no code between them reads a name, and the scopes read a
    block's bindings in no order (`migrator.analysis.scopes`). LibCST builds nodes for
    each stand-in and each comment line it keeps; ten cold assignments in a row were ten
    statements to parse, and are one. A run also takes the comments right above it
    (`_leading_comments`)."""
    for block in _blocks(statement, opens, lines):
        after = 0
        # Whether the statement before, in this block, was stood in (`cold[-1]`).
        joined = False
        for start, end, members in logical_groups(block, lines):
            before, after = after, end
            index = bisect.bisect_left(hot, start)
            if not (index < len(hot) and hot[index] <= end) and may_stand_in(
                start, end, members, lines
            ):
                names = scope_bindings(members, walrus)
                if names is not None and (not names or _spelt_as_read(lines[start - 1 : end])):
                    if joined and (index == 0 or hot[index - 1] <= before):
                        first, _, held, stood = cold[-1]
                        bound = list(dict.fromkeys([*held, *names]))
                        cold[-1] = (first, end, bound, [*stood, *members])
                    else:
                        lead = _leading_comments(lines, before, start, hot) if before else start
                        cold.append((lead, end, names, members))
                    joined = True
                    continue
            joined = False
            # Hot, or cold but not to be stood in whole (it imports, or shares a line):
            # its blocks' statements may be.
            if len(members) == 1:
                _collect(members[0], lines, hot, cold, opens, walrus)


def _leading_comments(lines: Sequence[str], after: int, start: int, hot: Sequence[int]) -> int:
    """The first line of the comments right above the statement on line `start` that its
    stand-in may take too (`after`: the last line of the statement before it in its
    block): comment lines indented as it is, and blank lines among them no deeper, on no
    hot line. LibCST gives those to the statement; a line indented deeper (a comment, or
    only spaces) and what lies above it stay with the block before it. `start` where
    there are none."""
    indent = indentation(lines[start - 1])
    # Not above the statement before, nor above a hot line (`start` is not hot).
    index = bisect.bisect_left(hot, start)
    floor = max(after, hot[index - 1] if index else 0)
    lead = line = start
    while line - 1 > floor:
        text = lines[line - 2]
        comment = _COMMENT.match(text)
        if comment is not None:
            # Nor under a line a backslash ends (`logical_groups` would join the two).
            above = lines[line - 3] if line > 2 else ""
            if comment.group(1) != indent or above.rstrip("\r\n").endswith("\\"):
                break
            lead = line - 1
        elif not _BLANK.fullmatch(text) or _deeper(indentation(text), indent):
            break
        line -= 1
    return lead


def _deeper(lead: str, indent: str) -> bool:
    """Whether a line starting with `lead` may be indented deeper than `indent` (longer, or
    with a tab where `indent` differs: columns then differ from characters)."""
    return len(lead) > len(indent) or ("\t" in lead and lead != indent)


def _spelt_as_read(lines: Sequence[str]) -> bool:
    """Whether the names bound on these lines are spelt as the stdlib tree reads them: the
    parser folds a name written in fullwidth letters (`torch` with U+FF54 for its `t`) to
    its ASCII form (NFKC), LibCST's scopes keep it as written, and a stand-in that bound
    the folded name shadowed an import of it that the statement never bound there."""
    return all(line.isascii() for line in lines)


def _blocks(
    statement: ast.stmt, opens: Callable[[ast.If], bool] | None, lines: Sequence[str]
) -> Iterator[list[ast.stmt]]:
    """The statement lists of a compound statement's blocks (`ast_lines.blocks`); none of
    an `if` unless `opens` says so (a chain's bodies may tell whether it is code the
    device rules leave alone, `migrator.analysis.device_regions`: a `raise`, CUDA-only
    work), nor of a `match`."""
    if isinstance(statement, ast.Match):
        return iter(())
    if isinstance(statement, ast.If):
        if opens is None or not opens(statement):
            return iter(())
        return _chain_blocks(statement, lines)
    return blocks(statement)


def _chain_blocks(node: ast.If, lines: Sequence[str]) -> Iterator[list[ast.stmt]]:
    """The blocks of an `if` chain, each `elif`'s own in turn: an `elif` is a link of the
    chain, never a statement of a block to stand in (its stand-in would end the chain)."""
    yield node.body
    orelse = node.orelse
    if len(orelse) == 1 and isinstance(orelse[0], ast.If) and _is_elif(orelse[0], lines):
        yield from _chain_blocks(orelse[0], lines)
    elif orelse:
        yield orelse


def _is_elif(node: ast.If, lines: Sequence[str]) -> bool:
    line = lines[node.lineno - 1]
    return line[_column(line, node.col_offset) :].startswith("elif")


def may_stand_in(start: int, end: int, members: Sequence[ast.stmt], lines: Sequence[str]) -> bool:
    """Whether lines `start`..`end` hold these statements and nothing else, and standing
    them in moves no comment to another statement (see the module docstring)."""
    head, tail = lines[start - 1], lines[end - 1]
    indent = len(indentation(head))
    opening = members[0]
    if getattr(opening, "decorator_list", None):
        if head[indent : indent + 1] != "@":
            return False
    elif _column(head, opening.col_offset) != indent:
        return False
    closing = members[-1]
    if closing.end_col_offset is None or not _LINE_END.fullmatch(
        tail, _column(tail, closing.end_col_offset)
    ):
        return False
    if not hasattr(closing, "body"):
        # A simple statement has no block to keep a comment after it in.
        return True
    for line in lines[end:]:
        comment = _COMMENT.match(line)
        if comment is not None:
            lead = comment.group(1)
        elif _BLANK.fullmatch(line):
            lead = indentation(line)
        else:
            break
        # Deeper (a line of spaces alone too): LibCST may keep it, and the comments above
        # it, in the block.
        if _deeper(lead, head[:indent]):
            return False
    return True


def _column(line: str, offset: int) -> int:
    """The character column of a stdlib node's `col_offset` (UTF-8 bytes) on `line`."""
    return offset if line.isascii() else len(line.encode()[:offset].decode(errors="replace"))


def scope_bindings(statements: Sequence[ast.stmt], walrus: bool = True) -> list[str] | None:
    """The names `statements` bind in their own scope, in order, as
    `migrator.analysis.scopes` collects a scope's bindings (assignment, `for`, `with` and
    `:=` targets, handler names, definitions; not a comprehension's targets, nor what a
    nested function, class or lambda binds inside); None where one imports, declares a
    name `global` or `nonlocal`, or matches (what those bind is more than a name).
    `walrus=False`: their text holds no `:=`, so an expression binds a name only as a
    target, and the other expressions are not walked (`_binding_children`)."""
    found: dict[str, None] = {}
    pending: list[ast.AST] = list(reversed(statements))
    while pending:
        node = pending.pop()
        if isinstance(node, _UNSURE):
            return None
        if isinstance(node, _DEFINITIONS):
            found[node.name] = None
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store):
                found[node.id] = None
            continue
        if isinstance(node, ast.ExceptHandler) and node.name:
            found[node.name] = None
        if isinstance(node, ast.comprehension):
            children: list[ast.AST] = [node.iter, *node.ifs]
        elif not walrus and isinstance(node, (ast.stmt, ast.ExceptHandler)):
            children = _binding_children(node)
        else:
            children = child_nodes(node)
        pending.extend(reversed(children))
    return list(found)


def _binding_children(node: ast.stmt | ast.ExceptHandler) -> list[ast.AST]:
    """`child_nodes` of a statement or an `except` handler, in the same order, less the
    expressions that bind nothing where no `:=` is written: all but the targets of an
    assignment, a `for` and a `with ... as` (the blocks stay). A skeleton's cold
    statements were each walked whole for their names (1% of torch's run)."""
    kind = type(node)
    if kind is ast.Assign:
        assert isinstance(node, ast.Assign)
        return list(node.targets)
    if kind is ast.AugAssign or kind is ast.AnnAssign:
        assert isinstance(node, (ast.AugAssign, ast.AnnAssign))
        return [node.target]
    if kind is ast.For or kind is ast.AsyncFor:
        assert isinstance(node, (ast.For, ast.AsyncFor))
        return [node.target, *node.body, *node.orelse]
    if kind is ast.With or kind is ast.AsyncWith:
        assert isinstance(node, (ast.With, ast.AsyncWith))
        variables = [item.optional_vars for item in node.items if item.optional_vars]
        return [*variables, *node.body]
    return [child for child in child_nodes(node) if isinstance(child, _BLOCK_NODES)]


# What a block holds: statements, and a `try`'s handlers.
_BLOCK_NODES = (ast.stmt, ast.ExceptHandler)


def restored(code: str, stand_ins: Sequence[tuple[str, str]]) -> str | None:
    """`code` with each stand-in's lines put back; None if one is not there once."""
    for stand_in, replaced in stand_ins:
        if code.count(stand_in) != 1:
            return None
        code = code.replace(stand_in, replaced)
    return code


__all__ = ["MARK", "Skeleton", "cold_skeleton", "may_stand_in", "restored", "scope_bindings"]
