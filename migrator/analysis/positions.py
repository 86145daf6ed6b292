"""Node positions of a LibCST tree: the one module that uses LibCST's private API.

`MetadataWrapper(module).resolve(PositionProvider)` walks the whole tree once more for
batchable providers, even when none is asked for, copies the result, and its code
generation state splits every token with a regex and builds two frozen dataclasses per
node. `code_positions` runs the module's code generation (`Module._codegen`, a name
LibCST does not export) with a state of its own that gives the same positions as plain
tuples, for about a third of the time: `tests/test_positions.py` checks it against the
public wrapper and pins the libcst versions `pyproject.toml` allows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import TracebackType

import libcst as cst
from libcst._nodes.internal import CodegenState

# (first line, 0-based first column, last line, 0-based column after the end): what
# PositionProvider's CodeRange holds, as (start.line, start.column, end.line, end.column).
Span = tuple[int, int, int, int]

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


def code_positions(module: cst.Module) -> Mapping[cst.CSTNode, Span]:
    """What `MetadataWrapper(module).resolve(PositionProvider)` gives, as `Span` tuples,
    for about a third of the time."""
    state = _PositionState(module.default_indent, module.default_newline)
    module._codegen(state)
    return state.found
