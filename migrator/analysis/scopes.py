"""Name resolution: which names a point of a LibCST tree binds, and to what.

The one home for it. `Scopes` follows a walk (`enter`/`leave` on every node, which
`PythonRule` does) and answers what rules ask: `qualname(node)`, `resolve_name(name)`,
`is_bound(name)`, `local_name_for(qualified)`. Module-level names come from the file's
`ModuleBindings` (read with the stdlib `ast`, so both engine paths share them); function,
class, lambda and comprehension scopes are read here, lazily, with one binding collector
(`_LocalBindings`) and one assignment-target walker (`cst_helpers.assigned_targets`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import cast

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.bindings import Binding, ModuleBindings
from migrator.analysis.cst_helpers import (
    assigned_targets,
    dotted_name,
    dotted_parts,
    is_availability_test,
)
from migrator.analysis.device_regions import Decisions
from migrator.analysis.positions import (
    Span,
    StartLines,
    StatementPositions,
    StatementTexts,
    code_positions,
    first_token,
    module_code,
    spelling,
    statement_texts,
    unique_span,
)
from migrator.analysis.statements import suites


class PassCache:
    """What the passes over one tree can share while the tree stays the same object."""

    def __init__(self, walrus: bool = True) -> None:
        # False when the code has no `:=`: scopes are then read off statements alone.
        self.walrus = walrus
        self._module: cst.Module | None = None
        self._positions: Mapping[cst.CSTNode, Span] | None = None
        # id(node) -> (node, names): the node is kept so its id cannot be reused.
        self.scopes: dict[int, tuple[cst.CSTNode, dict[str, Binding]]] = {}
        # id(if or assert) -> (node, region or None), decided on the tree as it was before
        # any pass edited it and handed on to the node each pass returns for it: a test the
        # run itself rewrote (`torch.cuda.is_available()` -> `torch.npu...`) must not make
        # the next rule take the chain for code that already handled the NPU.
        self.device_regions: Decisions = {}
        # The text of the tree the passes walk, when the engine has it (see `code`).
        self._code: tuple[cst.Module, str] | None = None
        # The tree the engine parsed, with where its statements start (see `span`).
        self._starts: tuple[cst.Module, Callable[[], StartLines]] | None = None
        self._by_statement: StatementPositions | None = None

    def know_code(self, module: cst.Module, code: str) -> None:
        """Say that `code` is `module.code` (the text it was parsed from, or generated)."""
        self._code = (module, code)

    def code(self, module: cst.Module) -> str:
        """`module.code`, without generating it again when the engine already has it (on a
        large module, generating its code takes as long as a rule's pass)."""
        if self._code is None or self._code[0] is not module:
            self._code = (module, module_code(module))
        return self._code[1]

    def positions(self, module: cst.Module) -> Mapping[cst.CSTNode, Span]:
        if self._module is not module or self._positions is None:
            self._module, self._positions = module, code_positions(module)
        return self._positions

    def know_starts(self, module: cst.Module, starts: Callable[[], StartLines]) -> None:
        """Say where `module`'s statements start (`statement_spans.statement_starts`, read
        off the stdlib parse of the text it was parsed from), so that a node's position
        comes from its statement's code generation (`span`)."""
        self._starts = (module, starts)
        self._by_statement = None

    def span(self, module: cst.Module, node: cst.CSTNode, path: Sequence[cst.CSTNode]) -> Span:
        """`node`'s position in `module`; `path`: the statements the walk is in, outermost
        first. On the tree the engine parsed (`know_starts`), worked out for the statement
        around it; on a tree a pass built, from the whole tree's code generation. A
        string, name, number or dotted name whose code occurs once in the tree's code
        (`know_code`) is found there, without generating any (`positions.unique_span`)."""
        if self._code is not None and self._code[0] is module:
            spelt = spelling(node)
            found = None if spelt is None else unique_span(self._code[1], spelt)
            if found is not None:
                return found
        by_statement = self._statement_positions(module)
        if by_statement is not None:
            return by_statement.span(node, path)
        return self.positions(module)[node]

    def first_line(
        self, module: cst.Module, statement: cst.CSTNode, path: Sequence[cst.CSTNode]
    ) -> int:
        """The line of a statement's first token, decorators included: where the engine
        knows where `module`'s statements start, without generating any code."""
        by_statement = self._statement_positions(module)
        if by_statement is not None:
            return by_statement.first_line(statement, path)
        return self.positions(module)[first_token(statement)][0]

    def statement_texts(self, module: cst.Module, lines: Sequence[str]) -> StatementTexts:
        """The code of `module`'s simple statement lines (`positions.statement_texts`;
        `lines`: its code's), where the engine knows where they are: none elsewhere."""
        by_statement = self._statement_positions(module)
        return {} if by_statement is None else statement_texts(by_statement.starts, lines)

    def _statement_positions(self, module: cst.Module) -> StatementPositions | None:
        if self._starts is None or self._starts[0] is not module:
            return None
        if self._by_statement is None:
            self._by_statement = StatementPositions(module, self._starts[1]())
        return self._by_statement

    def bindings(
        self, node: cst.CSTNode, compute: Callable[[], dict[str, Binding]]
    ) -> dict[str, Binding]:
        found = self.scopes.get(id(node))
        if found is None or found[0] is not node:
            found = (node, compute())
            self.scopes[id(node)] = found
        return found[1]


class _Scope:
    """A function, class, lambda or comprehension scope; its names are read lazily.

    Most scopes are never asked about a name, so walking a function body to collect its
    bindings is deferred until a rule resolves a name inside it.
    """

    __slots__ = ("_compute", "_names", "is_class")

    def __init__(self, compute: Callable[[], dict[str, Binding]], is_class: bool = False) -> None:
        self._compute = compute
        self._names: dict[str, Binding] | None = None
        self.is_class = is_class

    @property
    def names(self) -> dict[str, Binding]:
        if self._names is None:
            self._names = self._compute()
        return self._names


def _walk_statements(
    statements: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
    collector: _LocalBindings,
    walrus: bool,
) -> None:
    """Feed a scope's binding statements to `collector` without visiting expressions.

    Only statements bind names (targets are read off them directly), except `:=`, so
    expression subtrees are entered only when the code has a walrus at all.
    """
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            _walk_statements(statement.body, collector, walrus)
            continue
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            collector._bind(statement.name.value, None)
            continue
        if isinstance(statement, (cst.Try, cst.If)) and _walk_optional_import(
            statement, collector, walrus
        ):
            continue
        if walrus:
            cst_walk.visit(statement, collector)
            continue
        visit = getattr(collector, f"visit_{type(statement).__name__}", None)
        if visit is not None:
            visit(statement)
        if isinstance(statement, cst.With):
            for item in statement.items:
                collector.visit_WithItem(item)
        elif isinstance(statement, cst.Try):
            for handler in statement.handlers:
                collector.visit_ExceptHandler(handler)
        elif isinstance(statement, cst.TryStar):
            for star_handler in statement.handlers:
                collector.visit_ExceptStarHandler(star_handler)
        if isinstance(statement, cst.BaseCompoundStatement):
            for suite in suites(statement):
                _walk_statements(suite.body, collector, walrus)


def _imported_names(block: cst.BaseSuite) -> frozenset[str]:
    """Names the import statements directly in a block bind."""
    found = _LocalBindings()
    if isinstance(block, cst.IndentedBlock):
        for line in block.body:
            if isinstance(line, cst.SimpleStatementLine):
                for small in line.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        cst_walk.visit(small, found)
    return frozenset(found.names)


def _walk_optional_import(
    statement: cst.Try | cst.If, collector: _LocalBindings, walrus: bool
) -> bool:
    """The optional-import idioms, as `migrator.analysis.bindings` reads them at module
    level: a fallback assignment in an `except` handler (or the `else` of an
    `if is_x_available():`) does not spoil the name the import binds. False: not one."""
    if isinstance(statement, cst.If):
        if not is_availability_test(statement.test) or statement.orelse is None:
            return False
        if walrus:
            cst_walk.visit(statement.test, collector)
        _walk_statements(statement.body.body, collector, walrus)
        with collector.falling_back(_imported_names(statement.body)):
            orelse = statement.orelse
            _walk_statements(
                [orelse] if isinstance(orelse, cst.If) else orelse.body.body, collector, walrus
            )
        return True
    _walk_statements(statement.body.body, collector, walrus)
    imported = _imported_names(statement.body)
    for handler in statement.handlers:
        collector.visit_ExceptHandler(handler)
        with collector.falling_back(imported):
            _walk_statements(handler.body.body, collector, walrus)
    for block in (statement.orelse, statement.finalbody):
        if block is not None:
            _walk_statements(block.body.body, collector, walrus)
    return True


def function_bindings(node: cst.FunctionDef, walrus: bool = True) -> dict[str, Binding]:
    collector = _LocalBindings()
    _walk_statements(node.body.body, collector, walrus)
    names = collector.collect()
    for param in parameter_names(node.params):
        names[param] = None
    return names


def class_bindings(node: cst.ClassDef, walrus: bool = True) -> dict[str, Binding]:
    collector = _LocalBindings()
    _walk_statements(node.body.body, collector, walrus)
    return collector.collect()


_Comprehension = cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp


def comprehension_bindings(node: _Comprehension) -> dict[str, Binding]:
    targets = _LocalBindings()
    comp: cst.CompFor | None = node.for_in
    while comp is not None:
        targets._bind_target(comp.target)
        comp = comp.inner_for_in
    return targets.names


class _LocalBindings(cst.CSTVisitor):
    """Names one function (or class body) binds, without entering nested scopes."""

    def __init__(self) -> None:
        self.names: dict[str, Binding] = {}
        self.declared: set[str] = set()
        # Names an optional import bound, while its fallback branch is walked.
        self.fallback: frozenset[str] = frozenset()

    @contextlib.contextmanager
    def falling_back(self, names: frozenset[str]) -> Iterator[None]:
        outer, self.fallback = self.fallback, self.fallback | names
        try:
            yield
        finally:
            self.fallback = outer

    def _bind(self, name: str, value: Binding) -> None:
        if value is None and name in self.fallback:
            return
        if name in self.names and self.names[name] != value:
            self.names[name] = None
        else:
            self.names[name] = value

    def _bind_target(self, target: cst.BaseExpression) -> None:
        for leaf in assigned_targets(target):
            if isinstance(leaf, cst.Name):
                self._bind(leaf.value, None)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self._bind(node.name.value, None)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._bind(node.name.value, None)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        # Comprehension targets do not leak; walrus targets inside still bind here.
        return True

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind_target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind_target(node.name.name)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        # `except* E as name:` binds `name` as `except E as name:` does (a walk of a scope
        # with a `:=` in it meets the handler here).
        if node.name is not None:
            self._bind_target(node.name.name)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = dotted_name(alias.name) or ""
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, dotted)
            else:
                head = dotted.split(".", 1)[0]
                self._bind(head, head)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        module = "." * len(node.relative) + (dotted_name(node.module) or "" if node.module else "")
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            dotted = f"{module}.{name}" if module and not module.endswith(".") else module + name
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self._bind(local, dotted)

    def visit_Global(self, node: cst.Global) -> None:
        self.declared.update(item.name.value for item in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared.update(item.name.value for item in node.names)

    def collect(self) -> dict[str, Binding]:
        return {k: v for k, v in self.names.items() if k not in self.declared}


def parameter_names(params: cst.Parameters) -> Iterator[str]:
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        yield param.name.value
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star.name.value


_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})


class Scopes:
    """The scopes open at the current node of a walk, and what their names resolve to."""

    def __init__(self, module: ModuleBindings, shared: PassCache) -> None:
        self.module = module
        self.shared = shared
        self._scopes: list[_Scope] = []
        self._pending: dict[int, _Scope] = {}
        self._opened: set[int] = set()

    @property
    def depth(self) -> int:
        """How many scopes are open (0: module level)."""
        return len(self._scopes)

    def enter(self, node: cst.CSTNode) -> None:
        """Call before visiting `node`. Exact-type dispatch: this runs for every node, and
        isinstance on LibCST's abstract node classes is slow."""
        if self._pending:
            pending = self._pending.pop(id(node), None)
            if pending is not None:
                self._open(node, pending)
        kind = type(node)
        if kind is cst.FunctionDef:
            function = cast(cst.FunctionDef, node)
            # Decorators and defaults run outside the function: its scope opens at the body.
            walrus = self.shared.walrus
            self._pending[id(function.body)] = _Scope(
                partial(
                    self.shared.bindings, function, partial(function_bindings, function, walrus)
                )
            )
        elif kind is cst.ClassDef:
            klass = cast(cst.ClassDef, node)
            walrus = self.shared.walrus
            self._pending[id(klass.body)] = _Scope(
                partial(self.shared.bindings, klass, partial(class_bindings, klass, walrus)), True
            )
        elif kind is cst.Lambda:
            params = cast(cst.Lambda, node).params
            self._pending[id(cast(cst.Lambda, node).body)] = _Scope(
                lambda: dict.fromkeys(parameter_names(params), None)
            )
        elif kind in _COMPREHENSIONS:
            comprehension = cast(_Comprehension, node)
            self._open(node, _Scope(partial(comprehension_bindings, comprehension)))

    def leave(self, node: cst.CSTNode) -> None:
        """Call after leaving `node` (the original node, not an updated copy)."""
        if self._opened and id(node) in self._opened:
            self._opened.discard(id(node))
            self._scopes.pop()

    def _open(self, node: cst.CSTNode, scope: _Scope) -> None:
        self._scopes.append(scope)
        self._opened.add(id(node))

    def _visible(self) -> Iterator[_Scope]:
        """Innermost first; a class body is visible only from directly inside it."""
        innermost = True
        for scope in reversed(self._scopes):
            if scope.is_class and not innermost:
                continue
            innermost = False
            yield scope

    def resolve_name(self, name: str) -> str | None:
        """The dotted name a plain name refers to here, or None."""
        for scope in self._visible():
            if name in scope.names:
                return scope.names[name]
        return self.module.resolve(name)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """`th.cuda.amp.autocast` -> "torch.cuda.amp.autocast" when `th` is `import torch`."""
        parts = dotted_parts(node)
        if parts is None:
            return None
        head = self.resolve_name(parts[0])
        if head is None:
            return None
        return ".".join([head, *parts[1:]])

    def is_bound(self, name: str) -> bool:
        """Whether `name` is bound here (any kind of binding, in any visible scope)."""
        return any(name in scope.names for scope in self._visible()) or self.module.is_bound(name)

    def local_name_for(self, qualified: str) -> str | None:
        """A module-level name bound to exactly `qualified` and not shadowed here."""
        for name in self.module.names_for(qualified):
            if self.resolve_name(name) == qualified:
                return name
        return None
