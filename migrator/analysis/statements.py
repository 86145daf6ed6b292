"""Statement-level LibCST helpers: what a statement reads and binds, and arrays it builds.

Rules that move or insert whole statements need to know whether doing so changes what the
code means: a statement may only move above others that bind none of the names it reads.
Names are compared as dotted chains (`self.model`), so `self.model = ...` guards a read of
`self.model.parameters` and a read of `self.model` alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.cst_helpers import assigned_targets, dotted_name

Resolver = Callable[[cst.BaseExpression], str | None]

# Calls that turn a list or array into an array or tensor (or stack one).
ARRAY_BUILDERS = frozenset(
    {
        "torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.stack",
        "numpy.array", "numpy.asarray", "numpy.stack",
    }
)  # fmt: skip
# Methods that keep an array or tensor one (device moves, casts, layout).
_KEEPS_ARRAY = frozenset(
    {
        "to", "float", "double", "half", "bfloat16", "bool", "int", "long", "type", "contiguous",
        "cpu", "numpy", "astype", "copy", "clone", "detach",
    }
)  # fmt: skip


class _Reads(cst.CSTVisitor):
    """Dotted chains an expression or statement reads (attribute names and keywords skipped)."""

    def __init__(self) -> None:
        self.chains: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.chains.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        chain = dotted_name(node)
        if chain is not None:
            self.chains.add(chain)
            return False
        cst_walk.visit(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        cst_walk.visit(node.value, self)
        return False

    def visit_Param(self, node: cst.Param) -> bool:
        if node.default is not None:
            cst_walk.visit(node.default, self)
        return False


def reads(node: cst.CSTNode) -> set[str]:
    """Every Name and dotted attribute chain `node` reads."""
    visitor = _Reads()
    cst_walk.visit(node, visitor)
    return visitor.chains


def mentions(node: cst.CSTNode, name: str) -> bool:
    """Whether `node` reads the plain name `name` (alone or as the head of a chain)."""
    return any(chain == name or chain.startswith(name + ".") for chain in reads(node))


def _target_chains(target: cst.BaseExpression) -> Iterable[str]:
    for leaf in assigned_targets(target):
        if isinstance(leaf, cst.Subscript):
            # `x[i] = ...` changes what `x` holds.
            yield from _target_chains(leaf.value)
            continue
        chain = dotted_name(leaf)
        if chain is not None:
            yield chain


class _Binds(cst.CSTVisitor):
    def __init__(self) -> None:
        self.chains: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.chains.update(_target_chains(target.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.chains.update(_target_chains(node.target))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.chains.update(_target_chains(node.target))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.chains.update(_target_chains(node.target))

    def visit_For(self, node: cst.For) -> None:
        self.chains.update(_target_chains(node.target))

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.chains.update(_target_chains(node.asname.name))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.chains.update(_target_chains(node.name.name))

    def visit_Del(self, node: cst.Del) -> None:
        self.chains.update(_target_chains(node.target))

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is not None:
            self.chains.update(_target_chains(cst.ensure_type(node.asname.name, cst.Name)))
        else:
            head = dotted_name(node.name)
            if head is not None:
                self.chains.add(head.split(".", 1)[0])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.chains.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.chains.add(node.name.value)
        return False


def binds(statements: Iterable[cst.CSTNode]) -> set[str]:
    """Every name and dotted chain the statements assign, import, define or delete."""
    visitor = _Binds()
    for statement in statements:
        cst_walk.visit(statement, visitor)
    return visitor.chains


def overlaps(first: Iterable[str], second: Iterable[str]) -> bool:
    """Whether a chain of one set equals or prefixes (by whole parts) a chain of the other."""
    right = list(second)
    for a in first:
        for b in right:
            if a == b or a.startswith(b + ".") or b.startswith(a + "."):
                return True
    return False


def single_assign(statement: cst.CSTNode) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(target, value) of a line holding exactly one `target = value`, else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    return small.targets[0].target, small.value


def assigns_name(statement: cst.CSTNode, name: str) -> cst.BaseExpression | None:
    """The value of `name = value` when `statement` is exactly that, else None."""
    found = single_assign(statement)
    if found is None:
        return None
    target, value = found
    return value if isinstance(target, cst.Name) and target.value == name else None


def builds_array(value: cst.BaseExpression, qualname: Resolver) -> bool:
    """Whether `value` builds an array or tensor: `torch.from_numpy(np.stack(x))`,
    `np.array(x)`, `torch.tensor(x).to(device)`, ... (casts and device moves allowed)."""
    current = value
    while isinstance(current, cst.Call):
        func = current.func
        if qualname(func) in ARRAY_BUILDERS:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value in _KEEPS_ARRAY:
            current = func.value
            continue
        return False
    return False


def derives_from(value: cst.BaseExpression, name: str) -> bool:
    """Whether `value` is `name` itself, methods of it or items of it (`x.to(d).repeat(2)`)."""
    current = value
    while isinstance(current, (cst.Call, cst.Attribute, cst.Subscript)):
        current = current.func if isinstance(current, cst.Call) else current.value
    return isinstance(current, cst.Name) and current.value == name


def array_after(statements: Iterable[cst.BaseStatement], name: str, qualname: Resolver) -> bool:
    """Whether `name` holds an array after these statements run in order.

    Only plain `name = value` lines count; any other assignment leaves the answer unchanged.
    """
    state = False
    for line in statements:
        value = assigns_name(line, name)
        if value is None:
            continue
        if builds_array(value, qualname):
            state = True
        elif not (state and derives_from(value, name)):
            state = False
    return state


def _has_slice(node: cst.Subscript) -> bool:
    return any(isinstance(element.slice, cst.Slice) for element in node.slice)


def is_sliced(node: cst.CSTNode, name: str) -> bool:
    """Whether `node` slices `name`: `name[:, -n:]` anywhere, or `name = <expr>[:, -n:]`."""
    finder = _Sliced(name)
    cst_walk.visit(node, finder)
    return finder.found


class _Sliced(cst.CSTVisitor):
    # A class of the module, not of each call: `cst_walk.visit` learns once per class
    # which subtrees it may skip.
    def __init__(self, name: str) -> None:
        self.name = name
        self.found = False

    def visit_Subscript(self, sub: cst.Subscript) -> None:
        if isinstance(sub.value, cst.Name) and sub.value.value == self.name and _has_slice(sub):
            self.found = True

    def visit_Assign(self, assign: cst.Assign) -> None:
        value = assign.value
        if (
            isinstance(value, cst.Subscript)
            and _has_slice(value)
            and any(
                isinstance(t.target, cst.Name) and t.target.value == self.name
                for t in assign.targets
            )
        ):
            self.found = True


def code_of(node: cst.CSTNode) -> str:
    """Source text of a node (for messages and statement templates)."""
    return cst.Module(body=[]).code_for_node(node)


def walk_statements(
    block: cst.BaseSuite | cst.Module,
) -> Iterator[tuple[cst.BaseStatement, cst.BaseSuite | cst.Module]]:
    """(statement, the block holding it) in source order, entering compound statements but
    not nested functions or classes."""
    if not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return
    for statement in block.body:
        yield statement, block
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        for suite in suites(statement):
            yield from walk_statements(suite)


def suites(statement: cst.BaseStatement) -> Iterator[cst.BaseSuite]:
    """The blocks a compound statement holds (bodies, handlers, match cases, elif, else,
    finally), in source order; a def's or class's body is its one block."""
    if isinstance(statement, cst.SimpleStatementLine):
        return
    body = getattr(statement, "body", None)
    if isinstance(body, cst.BaseSuite):
        yield body
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body
    orelse = getattr(statement, "orelse", None)
    if isinstance(orelse, cst.If):
        yield from suites(orelse)
    elif isinstance(orelse, cst.Else):
        yield orelse.body
    final = getattr(statement, "finalbody", None)
    if isinstance(final, cst.Finally):
        yield final.body


def insert_before(
    original: cst.IndentedBlock,
    updated: cst.IndentedBlock,
    inserts: Mapping[int, Sequence[cst.BaseStatement]],
) -> cst.IndentedBlock:
    """`updated` with `inserts[id(s)]` placed before each statement whose original is `s`.

    An inserted line goes above the anchor's own comments and blank lines, so they stay
    next to the statement they describe.
    """
    if len(original.body) != len(updated.body):
        return updated
    body: list[cst.BaseStatement] = []
    for before, after in zip(original.body, updated.body, strict=True):
        body.extend(inserts.get(id(before), ()))
        body.append(after)
    return updated.with_changes(body=body)


class InsertsIntoFunctions(cst.CSTTransformer):
    """A transformer that inserts statements into the bodies of the functions it chose.

    A subclass calls ``choose(function)`` (from ``visit_FunctionDef``) for each function
    whose body it edits and implements ``plan(function, body)``, which fills
    ``self.inserts``: the id of a body statement -> the statements to put before it.
    ``plan`` runs as the body is entered, with the function's scope open, so names
    resolve there as they do inside the function.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chosen: dict[int, cst.FunctionDef] = {}
        self.inserts: dict[int, list[cst.BaseStatement]] = {}

    def choose(self, function: cst.FunctionDef) -> None:
        self.chosen[id(function.body)] = function

    def plan(self, function: cst.FunctionDef, body: cst.IndentedBlock) -> None:
        raise NotImplementedError

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        function = self.chosen.get(id(node))
        if function is not None:
            self.plan(function, node)

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.BaseSuite:
        if not any(id(line) in self.inserts for line in original_node.body):
            return updated_node
        return insert_before(original_node, updated_node, self.inserts)


def leading_lines(line: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The comment and blank lines above a statement."""
    if isinstance(line, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        return line.leading_lines
    return ()


def with_leading(line: cst.BaseStatement, lines: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    """The statement with these comment and blank lines above it instead of its own."""
    return line.with_changes(leading_lines=list(lines))
