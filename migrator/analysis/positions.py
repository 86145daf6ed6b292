"""Node positions of a LibCST tree: the one module that uses LibCST's private API.

`MetadataWrapper(module).resolve(PositionProvider)` walks the whole tree once more for
batchable providers, even when none is asked for, copies the result, and its code
generation state splits every token with a regex and builds two frozen dataclasses per
node. `code_positions` runs the module's code generation (`Module._codegen`, a name
LibCST does not export) with a state of its own that gives the same positions as plain
tuples, for about a third of the time: `tests/test_positions.py` checks it against the
public wrapper and pins the libcst versions `pyproject.toml` allows. `module_code` is
`Module.code` with a state that records no position, a quarter faster.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from types import TracebackType

import libcst as cst
from libcst._nodes.expression import _BaseParenthesizedNode
from libcst._nodes.internal import CodegenState

from migrator.analysis.ast_lines import indentation

# (first line, 0-based first column, last line, 0-based column after the end): what
# PositionProvider's CodeRange holds, as (start.line, start.column, end.line, end.column).
Span = tuple[int, int, int, int]

# id(statement) -> (the statement, the line its code starts on, the line of its first
# token, the line of its last): see `StatementPositions`.
StartLines = Mapping[int, tuple[cst.CSTNode, int, int, int]]

# id(simple statement line) -> (it, the indentation of its first token's line, its code):
# see `statement_texts`.
StatementTexts = Mapping[int, tuple[cst.CSTNode, str, str]]

_NEWLINE = re.compile(r"\r\n?|\n")


class _Syntactic:
    """`record_syntactic_position` as a plain context manager (LibCST's is a generator
    wrapped by `contextlib.contextmanager`, several times the cost)."""

    __slots__ = ("_end_node", "_node", "_start", "_start_node", "_state")

    def __init__(
        self,
        state: _PositionState,
        node: cst.CSTNode,
        start_node: cst.CSTNode | None,
        end_node: cst.CSTNode | None,
    ) -> None:
        self._state = state
        self._node = node
        self._start_node = start_node
        self._end_node = end_node

    def __enter__(self) -> None:
        self._start = (self._state.line, self._state.column)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        state = self._state
        if kind is not None:
            # The generation stopped inside the node (`_HeaderState`): only where it
            # starts is known.
            state.opened[self._node] = self._start
            return
        found = state.found
        line, column = self._start
        if self._start_node is not None:
            line, column = found[self._start_node][:2]
        if self._end_node is not None:
            end_line, end_column = found[self._end_node][2:]
        else:
            end_line, end_column = state.line, state.column
        found[self._node] = (line, column, end_line, end_column)


class _PositionState(CodegenState):
    """What `PositionProvidingCodegenState` records, as tuples: a node's syntactic position
    where its code generation marks one, else the span of everything it generated."""

    def __init__(self, default_indent: str, default_newline: str) -> None:
        super().__init__(default_indent=default_indent, default_newline=default_newline)
        self.line = 1  # 1-based
        self.column = 0  # 0-based
        self.stack: list[tuple[int, int]] = []
        self.found: dict[cst.CSTNode, Span] = {}
        # Where each node whose generation was stopped inside starts (`_HeaderState`).
        self.opened: dict[cst.CSTNode, tuple[int, int]] = {}

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        # The tokens are kept: Module's code generation reads how many there are.
        self.tokens.append(value)
        if "\n" in value or "\r" in value:
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.stack.append((self.line, self.column))

    def after_codegen(self, node: cst.CSTNode) -> None:
        line, column = self.stack.pop()
        # A syntactic position recorded inside the node's code generation stands.
        if node not in self.found:
            self.found[node] = (line, column, self.line, self.column)

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Stop(Exception):
    """The code generation reached the block a `_HeaderState` stops at."""


class _HeaderState(_PositionState):
    """`_PositionState` that stops where the code generation reaches `block` (a compound
    statement's first block): its header's positions, not its body's."""

    def __init__(self, default_indent: str, default_newline: str, block: cst.CSTNode) -> None:
        super().__init__(default_indent, default_newline)
        self._block = block

    def before_codegen(self, node: cst.CSTNode) -> None:
        if node is self._block:
            raise _Stop
        self.stack.append((self.line, self.column))


# The context a node's code generation records its position in, recording nothing.
_NO_POSITION: contextlib.nullcontext[None] = contextlib.nullcontext()


class _CodeState(CodegenState):
    """`CodegenState` without its position context, a generator wrapped by
    `contextlib.contextmanager` that every node's code generation enters (a quarter of
    the time `Module.code` takes); `texts`: the code of statements known without
    generating it (`module_code`)."""

    texts: StatementTexts | None = None

    def record_syntactic_position(  # type: ignore[override]
        self, *args: object, **kwargs: object
    ) -> contextlib.nullcontext[None]:
        return _NO_POSITION


class _Parenthesized:
    """`_BaseParenthesizedNode._parenthesize` (the parentheses around an expression, and
    its syntactic position between them) as a plain context manager: LibCST's is a
    generator wrapped by `contextlib.contextmanager`, entered by every name, attribute,
    call and string the code generation meets (1.5% of a run over torch's source)."""

    __slots__ = ("_inner", "_node", "_state")

    def __init__(self, node: _BaseParenthesizedNode, state: CodegenState) -> None:
        self._node = node
        self._state = state

    def __enter__(self) -> None:
        node, state = self._node, self._state
        for lpar in node.lpar:
            lpar._codegen(state)
        self._inner = state.record_syntactic_position(node)
        self._inner.__enter__()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._inner.__exit__(kind, value, traceback)
        if kind is None:
            for rpar in self._node.rpar:
                rpar._codegen(self._state)


def _parenthesized(node: _BaseParenthesizedNode, state: CodegenState) -> _Parenthesized:
    return _Parenthesized(node, state)


@contextlib.contextmanager
def _plain_parentheses() -> Iterator[None]:
    """Code generation with `_Parenthesized` (where this LibCST defines the hook it
    replaces; `tests/test_positions.py` checks the code and positions against LibCST's)."""
    hook = vars(_BaseParenthesizedNode).get("_parenthesize")
    if hook is None:
        yield
        return
    _BaseParenthesizedNode._parenthesize = _parenthesized  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        _BaseParenthesizedNode._parenthesize = hook  # type: ignore[method-assign]


def module_code(module: cst.Module, texts: StatementTexts | None = None) -> str:
    """`module.code` (what `Module.code_for_node` does, with `_CodeState`). `texts`: the
    code of simple statement lines of the tree `module` was made from (`statement_texts`),
    which serves for each of them `module` still holds where it is indented as it was,
    instead of generating it again (an edit rebuilds only the nodes above it)."""
    state = _CodeState(default_indent=module.default_indent, default_newline=module.default_newline)
    if not texts:
        with _plain_parentheses():
            module._codegen(state)
        return "".join(state.tokens)
    state.texts = texts
    hook = vars(cst.SimpleStatementLine)["_codegen_impl"]
    cst.SimpleStatementLine._codegen_impl = _known_or_generated  # type: ignore[method-assign]
    try:
        with _plain_parentheses():
            module._codegen(state)
    finally:
        cst.SimpleStatementLine._codegen_impl = hook  # type: ignore[method-assign]
    return "".join(state.tokens)


def _known_or_generated(self: cst.SimpleStatementLine, state: CodegenState) -> None:
    """`SimpleStatementLine._codegen_impl`, which adds the statement's known code (`texts`
    of a `_CodeState`) as two tokens, the code and its line ending (as the last token of
    its generation is: `Module` reads it), where it may."""
    texts = state.texts if isinstance(state, _CodeState) else None
    known = None if texts is None else texts.get(id(self))
    if known is not None and known[0] is self and "".join(state.indent_tokens) == known[1]:
        text = known[2]
        body = text.rstrip("\r\n")
        state.tokens.append(body)
        state.tokens.append(text[len(body) :])
        return
    _GENERATED(self, state)


_GENERATED = vars(cst.SimpleStatementLine)["_codegen_impl"]


def generated_as_written(text: str) -> bool:
    """Whether LibCST's code of a parse of `text` is `text` itself, as far as the shortcuts
    that read code off the text (`statement_texts`, `unique_span`) need: not where it
    holds a form feed, which LibCST drops before a line's first token."""
    return "\f" not in text


def statement_texts(
    starts: StartLines, lines: Sequence[str]
) -> dict[int, tuple[cst.CSTNode, str, str]]:
    """The code of each simple statement line `starts` knows the lines of, read off the
    lines of its tree's code (`lines`, split as the tokenizer splits them): its leading
    blank and comment lines and its own lines, with the indentation of the line its first
    token is on. Not where its last line ends in a backslash (the logical line goes on)
    or in no line ending, nor where its lines hold a form feed (LibCST drops one that
    is before a line's first token from the code it generates)."""
    found: dict[int, tuple[cst.CSTNode, str, str]] = {}
    for key, (node, start, first, last) in starts.items():
        if not isinstance(node, cst.SimpleStatementLine) or not 1 <= start <= first <= last:
            continue
        if last > len(lines):
            continue
        text = "".join(lines[start - 1 : last])
        if not generated_as_written(text):
            continue
        end = lines[last - 1]
        stripped = end.rstrip("\r\n")
        if stripped == end or stripped.endswith("\\"):
            continue
        line = lines[first - 1]
        found[key] = (node, indentation(line), text)
    return found


def code_positions(module: cst.Module) -> Mapping[cst.CSTNode, Span]:
    """What `MetadataWrapper(module).resolve(PositionProvider)` gives, as `Span` tuples,
    for about a third of the time."""
    state = _PositionState(module.default_indent, module.default_newline)
    with _plain_parentheses():
        module._codegen(state)
    return state.found


def statement_positions(
    statement: cst.CSTNode, line: int, indent: Sequence[str], module: cst.Module
) -> dict[cst.CSTNode, Span]:
    """The positions `code_positions(module)` gives the nodes of one of its statements,
    from that statement's code generation alone: `line` is the line its code starts on
    (its leading blank and comment lines included), `indent` the indentation of the
    blocks around it. A statement's code depends on nothing else (LibCST's code
    generation state holds only the indentation, the module's defaults and the tokens
    so far, which only `Module` reads)."""
    state = _PositionState(module.default_indent, module.default_newline)
    state.line = line
    state.indent_tokens = list(indent)
    with _plain_parentheses():
        statement._codegen(state)
    return state.found


def header_positions(
    statement: cst.BaseCompoundStatement, line: int, indent: Sequence[str], module: cst.Module
) -> tuple[dict[cst.CSTNode, Span], int | None]:
    """What `statement_positions` gives the nodes of a compound statement's header (its
    leading lines, decorators and the code up to its first block), from the code
    generation of the header alone, and the line of the statement's first token (None
    where the header does not show it): a finding in a function's signature or an `if`'s
    test no longer costs the generation of the body under it."""
    state = _HeaderState(module.default_indent, module.default_newline, statement.body)
    state.line = line
    state.indent_tokens = list(indent)
    with _plain_parentheses(), contextlib.suppress(_Stop):
        statement._codegen(state)
    first = first_token(statement)
    start = state.found.get(first) or state.opened.get(first)
    return state.found, None if start is None else start[0]


# id(a module or block) -> (it, the ids of the statements in its body): see `_Members`.
_Bodies = dict[int, tuple[cst.CSTNode, frozenset[int]]]


class _Members:
    """Whether a statement is in a module's or block's body, each body's ids gathered once:
    searching the body for each finding cost a function of thousands of statements, each
    with a finding, a time in the square of their number."""

    def __init__(self) -> None:
        self._bodies: _Bodies = {}

    def holds(self, body: cst.Module | cst.IndentedBlock, statement: cst.CSTNode) -> bool:
        found = self._bodies.get(id(body))
        if found is None or found[0] is not body:
            found = self._bodies[id(body)] = (body, frozenset(map(id, body.body)))
        return id(statement) in found[1]


def block_indents(
    path: Sequence[cst.CSTNode], module: cst.Module, members: _Members | None = None
) -> list[str] | None:
    """The indentation `path[-1]` is generated with, `path` being the statements from one
    of `module`'s own to it, each inside the one before (an `elif` is in its `if`):
    what each block between them adds (`IndentedBlock.indent`, else the module's
    default). None where a step is not a block's statement (a `match` case's, say).
    `members`: where the bodies are looked up (kept by the caller across calls)."""
    members = members or _Members()
    if not path or not members.holds(module, path[0]):
        return None
    indents: list[str] = []
    for outer, inner in itertools.pairwise(path):
        if isinstance(outer, cst.If) and outer.orelse is inner:
            continue
        block = next((block for block in _blocks(outer) if members.holds(block, inner)), None)
        if block is None:
            return None
        indents.append(module.default_indent if block.indent is None else block.indent)
    return indents


def _blocks(statement: cst.CSTNode) -> list[cst.IndentedBlock]:
    """The indented blocks of a compound statement (not a `match` statement's cases)."""
    found: list[object] = [getattr(statement, "body", None)]
    for name in ("orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, (cst.Else, cst.Finally)):
            found.append(part.body)
    found.extend(handler.body for handler in getattr(statement, "handlers", ()))
    return [block for block in found if isinstance(block, cst.IndentedBlock)]


class StatementPositions:
    """The positions of one tree's nodes, worked out statement by statement: a node's
    comes from the code generation of the innermost statement around it whose first line
    is known (`starts`, read off the stdlib parse the tree was made from), and only where
    no such statement holds it from the whole tree's. A finding in a long function then
    costs the generation of its own statement, not of the function.

    `starts`: id(statement) -> (the statement, the line its code starts on, and the line
    its first token is on, which the statement's own positions must agree with, else the
    whole tree's serve)."""

    def __init__(self, module: cst.Module, starts: StartLines) -> None:
        self._module = module
        self._starts = starts
        self.starts = starts
        self._by_statement: dict[int, dict[cst.CSTNode, Span] | None] = {}
        # The ids of the compound statements `_by_statement` holds only the header of.
        self._headers: set[int] = set()
        self._whole: Mapping[cst.CSTNode, Span] | None = None
        self._members = _Members()

    def span(self, node: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Span:
        """`node`'s position; `path`: the statements the walk is in, outermost first."""
        if self._whole is None:
            for index in range(len(path) - 1, -1, -1):
                found = self._of(path, index, node)
                if found is not None and node in found:
                    return found[node]
            # A module-level statement asked about outside the walk (a whole-module rule
            # reports it from leave_Module, where the walk is in no statement): its own
            # code generation, not the module's.
            if not path and self._members.holds(self._module, node):
                found = self._of((node,), 0, node)
                if found is not None and node in found:
                    return found[node]
            self._whole = code_positions(self._module)
        return self._whole[node]

    def first_line(self, statement: cst.CSTNode, path: Sequence[cst.CSTNode]) -> int:
        """The line of `statement`'s first token, its decorators included, read off the
        stdlib parse where known (no code generation), else its position's."""
        known = self._starts.get(id(statement))
        if known is not None and known[0] is statement:
            return known[2]
        return self.span(first_token(statement), path)[0]

    def _of(
        self, path: Sequence[cst.CSTNode], index: int, node: cst.CSTNode
    ) -> dict[cst.CSTNode, Span] | None:
        """The positions of `path[index]`'s nodes, of its header's first where it is a
        compound statement other than `node`, or None where its code generation cannot
        serve (see the class)."""
        statement = path[index]
        key = id(statement)
        if key in self._by_statement:
            found = self._by_statement[key]
            if found is None or node in found or key not in self._headers:
                return found
        found = None
        known = self._starts.get(key)
        if known is not None and known[0] is statement:
            indent = block_indents(path[: index + 1], self._module, self._members)
            if indent is not None:
                line = known[1]
                if (
                    key not in self._by_statement
                    and node is not statement
                    and isinstance(statement, _HEADED)
                ):
                    found, first = header_positions(statement, line, indent, self._module)
                    self._headers.add(key)
                if found is None or node not in found:
                    self._headers.discard(key)
                    found = statement_positions(statement, line, indent, self._module)
                    first = found.get(first_token(statement), (0,))[0]
                if first != known[2]:
                    found = None
        self._by_statement[key] = found
        return found


# The compound statements whose header `StatementPositions` generates alone first (a
# `match` statement's cases are not a block).
_HEADED = (
    cst.If,
    cst.For,
    cst.While,
    cst.With,
    cst.Try,
    cst.TryStar,
    cst.FunctionDef,
    cst.ClassDef,
)


def first_token(statement: cst.CSTNode) -> cst.CSTNode:
    """The node whose position starts on the statement's first token."""
    if isinstance(statement, cst.SimpleStatementLine) and statement.body:
        return statement.body[0]
    decorators = getattr(statement, "decorators", ())
    return decorators[0] if decorators else statement


# The leaves whose code is their `value`, whatever parentheses are around them.
_SPELT = (cst.SimpleString, cst.Name, cst.Integer, cst.Float, cst.Imaginary)


def spelling(node: cst.CSTNode) -> str | None:
    """The code between `node`'s syntactic position's ends, where its fields alone say what
    it is: a string, name or number's `value`; a dotted name (`torch.cuda.synchronize`)
    with no space, comment or parenthesis inside it. None for any other node."""
    if isinstance(node, _SPELT):
        return node.value
    if not isinstance(node, cst.Attribute):
        return None
    parts: list[str] = []
    current: cst.BaseExpression = node
    while isinstance(current, cst.Attribute):
        dot = current.dot
        if (
            (current is not node and (current.lpar or current.rpar))
            or not _no_space(dot.whitespace_before)
            or not _no_space(dot.whitespace_after)
        ):
            return None
        parts.append(current.attr.value)
        current = current.value
    if not isinstance(current, cst.Name) or current.lpar or current.rpar:
        return None
    parts.append(current.value)
    return ".".join(reversed(parts))


def _no_space(whitespace: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(whitespace, cst.SimpleWhitespace) and not whitespace.value


def unique_span(code: str, spelt: str) -> Span | None:
    """The position `code_positions` gives the one node whose code between its syntactic
    ends is `spelt` (`spelling`), read off the tree's `code`, where `spelt` occurs in it
    just once (overlapping occurrences counted): the node's own code is then that
    occurrence. None where it occurs twice or more (or not at all)."""
    if not generated_as_written(code):
        return None
    at = code.find(spelt)
    if at < 0 or code.find(spelt, at + 1) >= 0:
        return None
    if "\r" in code:
        # A lone "\r" ends a line too (`_PositionState.add_token`).
        before = _NEWLINE.split(code[:at])
        line, column = len(before), len(before[-1])
    else:
        line = code.count("\n", 0, at) + 1
        column = at - code.rfind("\n", 0, at) - 1
    inside = _NEWLINE.split(spelt) if "\n" in spelt or "\r" in spelt else (spelt,)
    if len(inside) == 1:
        return (line, column, line, column + len(spelt))
    return (line, column, line + len(inside) - 1, len(inside[-1]))
