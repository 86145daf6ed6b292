"""The rule contract: what every rule declares, and the helpers it edits and reports with.

A rule is one class in one module of `rules/` or a `target_*` package. Python rules are
LibCST transformers (`PythonRule`); rules for shell scripts, requirements and config files
are `TextRule`s. Each declares a stable code, a kebab-case name, a one-line summary, its
safety, the tokens it can act on (the engine's fast path skips code without them), and
before/after examples. Its docstring says why; `--explain` and the README print it.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import inspect
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar, TypeVar, cast

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from migrator.analysis import device_regions
from migrator.analysis.bindings import EMPTY, Binding, ModuleBindings
from migrator.analysis.statements import suites
from migrator.core.model import Change, MigrationWarning, Safety, Suppression
from migrator.core.project import EMPTY as EMPTY_PROJECT
from migrator.core.project import ProjectView
from migrator.core.target import NPU, Target
from migrator.formats.suppressions import Suppressions

CODE_PATTERN = re.compile(r"^[A-Z]{3}\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")

NodeT = TypeVar("NodeT", bound=cst.CSTNode)


@dataclass(frozen=True)
class Example:
    """A before/after pair; `after` None means the rule must leave `before` unchanged."""

    before: str
    after: str | None = None
    path: str = "example.py"


@dataclass(frozen=True)
class RuleOptions:
    """Settings a rule may read, filled from flags and `[tool.migrate]`."""

    entry_points: tuple[str, ...] = ()
    transfer_to_npu: bool = True
    # Files never set up as entries (`--no-entry`), even when launched or detected.
    no_entry_points: tuple[str, ...] = ()
    # The mx_driving patcher: "auto" (where the project imports mmcv/mmdet/mmdet3d),
    # "mx-driving" (every entry) or "none".
    patcher: str = "auto"
    # Whether main blocks that only put a model on the device (evaluation, inference,
    # data preparation) are set up as entries; False reports them instead.
    device_entries: bool = True


@dataclass(frozen=True)
class ImportRequest:
    """An import to add, or (`remove`) to drop if nothing uses it any more."""

    module: str
    name: str | None = None
    asname: str | None = None
    remove: bool = False


class PassCache:
    """What the passes over one tree can share while the tree stays the same object."""

    def __init__(self, walrus: bool = True) -> None:
        # False when the code has no `:=`: scopes are then read off statements alone.
        self.walrus = walrus
        self._module: cst.Module | None = None
        self._positions: Mapping[cst.CSTNode, CodeRange] | None = None
        # id(node) -> (node, names): the node is kept so its id cannot be reused.
        self.scopes: dict[int, tuple[cst.CSTNode, dict[str, Binding]]] = {}
        # id(if or assert) -> (node, region or None), decided on the tree as it was before
        # any pass edited it and handed on to the node each pass returns for it: a test the
        # run itself rewrote (`torch.cuda.is_available()` -> `torch.npu...`) must not make
        # the next rule take the chain for code that already handled the NPU.
        self.device_regions: dict[int, tuple[cst.CSTNode, device_regions.Region | None]] = {}

    def positions(self, module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
        if self._module is not module or self._positions is None:
            self._module, self._positions = module, code_positions(module)
        return self._positions

    def bindings(
        self, node: cst.CSTNode, compute: Callable[[], dict[str, Binding]]
    ) -> dict[str, Binding]:
        found = self.scopes.get(id(node))
        if found is None or found[0] is not node:
            found = (node, compute())
            self.scopes[id(node)] = found
        return found[1]


def code_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """What `MetadataWrapper(module).resolve(PositionProvider)` gives, for about half the
    time: the wrapper also walks the whole tree once more for batchable providers, even when
    none is asked for, and copies the result."""
    provider = PositionProvider()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent,
        default_newline=module.default_newline,
        provider=provider,
    )
    module._codegen(state)
    return cast(Mapping[cst.CSTNode, CodeRange], provider._computed)


@dataclass
class RuleContext:
    """Per-file state a rule reports into. Line numbers it records are the file's own."""

    path: str
    target: Target = NPU
    options: RuleOptions = field(default_factory=RuleOptions)
    bindings: ModuleBindings = EMPTY
    suppressions: Suppressions = field(default_factory=Suppressions)
    line_offset: int = 0
    # Earlier passes may have inserted lines: line_map[i] is the original line of line i+1.
    line_map: Sequence[int] | None = None
    # What the rule's `file_facts` found in the whole file (see Rule.file_facts).
    facts: object = None
    # Facts about the whole project (launch entries, config devices, pins...), computed
    # once per run before the per-file passes (see migrator.core.project).
    project: ProjectView = EMPTY_PROJECT
    changes: list[Change] = field(default_factory=list)
    warnings: list[MigrationWarning] = field(default_factory=list)
    suppressed: list[Suppression] = field(default_factory=list)
    imports: list[ImportRequest] = field(default_factory=list)
    # Text files: (first, last) line of the command holding each line, for suppressions.
    spans: list[tuple[int, int]] | None = None
    _module: cst.Module | None = None
    _positions: Mapping[cst.CSTNode, CodeRange] | None = None
    # Shared by the passes over one tree: passes that edit nothing hand the same tree on,
    # so positions and scope bindings worked out once serve the next rule too.
    shared: PassCache = field(default_factory=lambda: PassCache())

    def begin_pass(self, module: cst.Module) -> None:
        """Positions are looked up lazily, once per tree, only if a rule reports."""
        self._module = module
        self._positions = None

    def span(self, node: cst.CSTNode) -> tuple[int, int, int]:
        """(first line, 1-based column, last line) of a node of the current pass."""
        if self._positions is None:
            assert self._module is not None, "begin_pass() was not called"
            self._positions = self.shared.positions(self._module)
        where = self._positions[node]
        return (
            self._original_line(where.start.line),
            where.start.column + 1,
            self._original_line(where.end.line),
        )

    def _original_line(self, line: int) -> int:
        if self.line_map is not None and 0 < line <= len(self.line_map):
            line = self.line_map[line - 1]
        return line + self.line_offset

    def is_suppressed(self, code: str, first: int, last: int) -> bool:
        line = self.suppressions.covering(code, first, last)
        if line is None:
            return False
        self.suppressed.append(Suppression(self.path, line, code))
        return True


@dataclass(frozen=True)
class TokenPattern:
    """A regex for a construct a plain token cannot pin down (`.cpu()\n.numpy()`), with a
    literal it cannot match without: the literal is checked first with `in`, which is far
    cheaper than searching a whole file with a regex."""

    literal: str
    regex: str


@functools.cache
def _compiled(patterns: tuple[TokenPattern, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((pattern.literal, re.compile(pattern.regex)) for pattern in patterns)


@functools.cache
def _from_imports(tokens: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """A dotted token's last name imported from its module (`from torch import compile as
    jit` for "torch.compile"): the file's text never spells the token, its aliases do.
    Each entry is (the imported name, a pattern for the module's from-import statements)."""
    found = []
    for token in tokens:
        module, dot, name = token.rpartition(".")
        if dot and module and name.isidentifier():
            # A literal first: the regex engine then scans for "from" at C speed.
            statement = rf"from\s+{re.escape(module)}\s+import\s*(?:\([^)]*\)|[^\n]*)"
            found.append((name, re.compile(statement)))
    return tuple(found)


def _imports_name(text: str, name: str, statements: re.Pattern[str]) -> bool:
    if name not in text:
        return False
    word = re.compile(rf"\b{re.escape(name)}\b")
    return any(word.search(match.group(0)) for match in statements.finditer(text))


class Rule:
    """Metadata every rule declares; see the module docstring."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    safety: ClassVar[Safety] = Safety.SAFE
    tokens: ClassVar[tuple[str, ...]]
    # Regexes for constructs a plain token cannot pin down (`.cpu()\n.numpy()`); a rule
    # declares tokens, patterns or both, and acts only where one of them matches.
    token_patterns: ClassVar[tuple[TokenPattern, ...]] = ()
    examples: ClassVar[tuple[Example, ...]] = ()
    # Glob patterns (on the path relative to the project root) a rule is limited to.
    paths: ClassVar[tuple[str, ...]] = ()
    # Lower runs first; rules that insert whole lines run late so others report true lines.
    priority: ClassVar[int] = 100
    # False for rules that set up a program's entry (module-level imports, patchers): a
    # notebook is not an entry script, so the engine never runs them on notebook cells.
    notebooks: ClassVar[bool] = True

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx

    @classmethod
    def explain(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def applies_to(cls, path: str) -> bool:
        if not cls.paths:
            return True
        return any(fnmatch.fnmatchcase(path, pattern) for pattern in cls.paths)

    @classmethod
    def may_act_on(cls, text: str) -> bool:
        if any(token in text for token in cls.tokens):
            return True
        for guard, pattern in _compiled(cls.token_patterns):
            if guard in text and pattern.search(text):
                return True
        return any(
            _imports_name(text, name, statements) for name, statements in _from_imports(cls.tokens)
        )

    @classmethod
    def may_act_on_ast(cls, statement: ast.stmt, target: Target) -> bool:
        """A cheap necessary condition, on a statement's stdlib ast, for the rule to act in
        it (the fast path skips the statement when False). It must never be False where
        the rule would act: the fast and full paths are tested against each other."""
        return True

    @classmethod
    def may_act_on_module(
        cls, tree: ast.Module, text: str, path: str, options: RuleOptions
    ) -> bool:
        """For a `whole_module` rule: a cheap necessary condition, on the file's stdlib ast
        and text, for the rule to act anywhere in it. When False the fast path leaves the
        rule out, so one `whole_module` rule that cannot act does not send every rule over
        the whole module. Like `may_act_on_ast`, it must never be False where it would act."""
        return True

    @classmethod
    def file_facts(cls, tree: ast.Module) -> object:
        """Facts about the whole file, read from its stdlib ast (cheap, and identical on both
        engine paths, so a rule seeing one method still knows about its class)."""
        return None

    @classmethod
    def always_for(
        cls, path: str, options: RuleOptions, project: ProjectView = EMPTY_PROJECT
    ) -> bool:
        """Run on `path` even without tokens (e.g. a file the user named with --entry, or
        one the project's launch commands run)."""
        return False

    @property
    def target(self) -> Target:
        return self.ctx.target


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
        if walrus:
            statement.visit(collector)
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
                if star_handler.name is not None:
                    collector._bind_target(star_handler.name.name)
        if isinstance(statement, cst.BaseCompoundStatement):
            for suite in suites(statement):
                _walk_statements(suite.body, collector, walrus)


def _function_bindings(node: cst.FunctionDef, walrus: bool = True) -> dict[str, Binding]:
    collector = _LocalBindings()
    _walk_statements(node.body.body, collector, walrus)
    names = collector.collect()
    for param in _parameter_names(node.params):
        names[param] = None
    return names


def _class_bindings(node: cst.ClassDef, walrus: bool = True) -> dict[str, Binding]:
    collector = _LocalBindings()
    _walk_statements(node.body.body, collector, walrus)
    return collector.collect()


_Comprehension = cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp


def _comprehension_bindings(node: _Comprehension) -> dict[str, Binding]:
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

    def _bind(self, name: str, value: Binding) -> None:
        if name in self.names and self.names[name] != value:
            self.names[name] = None
        else:
            self.names[name] = value

    def _bind_target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self._bind(target.value, None)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._bind_target(element.value)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value)

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

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = _dotted(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._bind(alias.asname.name.value, dotted)
            else:
                head = dotted.split(".", 1)[0]
                self._bind(head, head)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        module = "." * len(node.relative) + (_dotted(node.module) if node.module else "")
        for alias in node.names:
            name = _dotted(alias.name)
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


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _parameter_names(params: cst.Parameters) -> Iterator[str]:
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        yield param.name.value
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            yield star.name.value


_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})


class PythonRule(Rule, cst.CSTTransformer):
    """A rule that rewrites Python code with LibCST.

    Subclasses write ordinary `visit_*`/`leave_*` methods. This base tracks scopes so that
    `qualname()` resolves aliases and sees shadowing, and offers `edit()` / `warn()` which
    record positions, honour `# migrate: ignore` comments and keep the report exact.

    Rules normally see one top-level statement (or one method, wrapped in a stand-in class
    of the same name) at a time; a rule that needs the whole module sets `whole_module`.
    """

    whole_module: ClassVar[bool] = False
    # Device rules leave alone code that already handles the NPU or keeps CUDA-only work on
    # CUDA (`migrator.analysis.device_regions`); rules that only warn, or whose edit does
    # not depend on the device, set this False.
    leaves_device_regions: ClassVar[bool] = True

    def __init__(self, ctx: RuleContext) -> None:
        Rule.__init__(self, ctx)
        cst.CSTTransformer.__init__(self)
        self._scopes: list[_Scope] = []
        self._pending: dict[int, _Scope] = {}
        self._opened: set[int] = set()

    # Scope tracking -------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        # Called for every node: exact-type dispatch, since isinstance on LibCST's abstract
        # node classes is slow.
        if self._pending:
            pending = self._pending.pop(id(node), None)
            if pending is not None:
                self._open(node, pending)
        kind = type(node)
        if kind is cst.FunctionDef:
            function = cast(cst.FunctionDef, node)
            # Decorators and defaults run outside the function: its scope opens at the body.
            walrus = self.ctx.shared.walrus
            self._pending[id(function.body)] = _Scope(
                partial(
                    self.ctx.shared.bindings,
                    function,
                    partial(_function_bindings, function, walrus),
                )
            )
        elif kind is cst.ClassDef:
            klass = cast(cst.ClassDef, node)
            walrus = self.ctx.shared.walrus
            self._pending[id(klass.body)] = _Scope(
                partial(self.ctx.shared.bindings, klass, partial(_class_bindings, klass, walrus)),
                True,
            )
        elif kind is cst.Lambda:
            params = cast(cst.Lambda, node).params
            self._pending[id(cast(cst.Lambda, node).body)] = _Scope(
                lambda: dict.fromkeys(_parameter_names(params), None)
            )
        elif kind in _COMPREHENSIONS:
            comprehension = cast(_Comprehension, node)
            self._open(node, _Scope(partial(_comprehension_bindings, comprehension)))
        elif kind is cst.If or kind is cst.Assert:
            found = self.device_region(node)
            if found is not None and self.leaves_device_regions:
                self.left_alone(node, found)
                return False
        return super().on_visit(node)

    def device_region(self, node: cst.CSTNode) -> device_regions.Region | None:
        """Whether device rules leave this `if` chain or `assert` alone (see the module)."""
        known = self.ctx.shared.device_regions.get(id(node))
        if known is not None and known[0] is node:
            return known[1]
        found = device_regions.region(node, self.qualname, self.target)
        self.ctx.shared.device_regions[id(node)] = (node, found)
        return found

    def left_alone(self, node: cst.CSTNode, region: device_regions.Region) -> None:
        """Called for each region this rule skips; the rule that reports them overrides it."""

    def _open(self, node: cst.CSTNode, scope: _Scope) -> None:
        self._scopes.append(scope)
        self._opened.add(id(node))

    def on_leave(
        self, original_node: NodeT, updated_node: NodeT
    ) -> NodeT | cst.RemovalSentinel | cst.FlattenSentinel[NodeT]:
        result = super().on_leave(original_node, updated_node)
        kind = type(original_node)
        if (kind is cst.If or kind is cst.Assert) and isinstance(result, cst.CSTNode):
            known = self.ctx.shared.device_regions.get(id(original_node))
            if known is not None and known[0] is original_node and result is not original_node:
                self.ctx.shared.device_regions[id(result)] = (result, known[1])
        if self._opened and id(original_node) in self._opened:
            self._opened.discard(id(original_node))
            self._scopes.pop()
        return result

    def resolve_name(self, name: str) -> str | None:
        """The dotted name a plain name refers to here, or None."""
        innermost = True
        for scope in reversed(self._scopes):
            if scope.is_class and not innermost:
                continue
            innermost = False
            if name in scope.names:
                return scope.names[name]
        return self.ctx.bindings.resolve(name)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """`th.cuda.amp.autocast` -> "torch.cuda.amp.autocast" when `th` is `import torch`."""
        parts: list[str] = []
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        if not isinstance(node, cst.Name):
            return None
        head = self.resolve_name(node.value)
        if head is None:
            return None
        return ".".join([head, *reversed(parts)])

    def is_bound(self, name: str) -> bool:
        """Whether `name` is bound here (any kind of binding, in any visible scope)."""
        innermost = True
        for scope in reversed(self._scopes):
            if scope.is_class and not innermost:
                continue
            innermost = False
            if name in scope.names:
                return True
        return self.ctx.bindings.is_bound(name)

    def local_name_for(self, qualified: str) -> str | None:
        """A module-level name bound to exactly `qualified` and not shadowed here."""
        for name in self.ctx.bindings.names_for(qualified):
            if self.resolve_name(name) == qualified:
                return name
        return None

    # Reporting ------------------------------------------------------------------------
    def edit(
        self,
        original: cst.CSTNode,
        updated: NodeT,
        replacement: NodeT,
        message: str,
        *,
        review: bool | None = None,
    ) -> NodeT:
        """Return `replacement` and record the change, unless a suppression covers it."""
        first, col, last = self.ctx.span(original)
        if self.ctx.is_suppressed(self.code, first, last):
            return updated
        needs_review = self.safety is Safety.REVIEW if review is None else review
        self.ctx.changes.append(Change(self.ctx.path, first, col, self.code, message, needs_review))
        return replacement

    def record(self, original: cst.CSTNode, message: str, *, review: bool | None = None) -> bool:
        """Record an edit made elsewhere (a statement inserted or moved) at `original`.

        Returns False, recording nothing, when a suppression forbids the edit.
        """
        keep = cst.Pass()
        return self.edit(original, keep, cst.Pass(), message, review=review) is not keep

    def warn(self, node: cst.CSTNode, message: str, suggestion: str = "") -> None:
        first, col, last = self.ctx.span(node)
        if self.ctx.is_suppressed(self.code, first, last):
            return
        self.ctx.warnings.append(
            MigrationWarning(self.ctx.path, first, col, self.code, message, suggestion)
        )

    def add_import(self, module: str, name: str | None = None, asname: str | None = None) -> None:
        """Ask the engine to add an import (through LibCST's AddImportsVisitor)."""
        self.ctx.imports.append(ImportRequest(module, name, asname))

    def remove_import(self, module: str, name: str | None = None) -> None:
        """Ask the engine to drop an import if nothing uses it (RemoveImportsVisitor)."""
        self.ctx.imports.append(ImportRequest(module, name, remove=True))


class TextRule(Rule):
    """A rule for non-Python files (shell scripts, requirements, configs).

    `patterns` are globs matched against the file name and against the relative path.
    `apply` returns the new text; it must keep every byte it does not mean to edit.
    """

    patterns: ClassVar[tuple[str, ...]]

    @classmethod
    def handles(cls, path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        return any(
            fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(path, pattern)
            for pattern in cls.patterns
        ) and cls.applies_to(path)

    def apply(self, text: str) -> str:
        raise NotImplementedError

    def change_at(
        self, line: int, col: int, message: str, *, review: bool | None = None, last: int = 0
    ) -> bool:
        """Record an edit at a 1-based line/column; False if a suppression forbids it.

        `last` is the final line of a multi-line construct the rule knows better than the
        engine's continued-command spans.
        """
        if self._suppressed(line, last):
            return False
        needs_review = self.safety is Safety.REVIEW if review is None else review
        self.ctx.changes.append(Change(self.ctx.path, line, col, self.code, message, needs_review))
        return True

    def warn_at(
        self, line: int, col: int, message: str, suggestion: str = "", *, last: int = 0
    ) -> None:
        if self._suppressed(line, last):
            return
        self.ctx.warnings.append(
            MigrationWarning(self.ctx.path, line, col, self.code, message, suggestion)
        )

    def _suppressed(self, line: int, last: int = 0) -> bool:
        """A comment on the line, or on the first or last line of its continued command."""
        if self.ctx.is_suppressed(self.code, line, max(line, last)):
            return True
        spans = self.ctx.spans
        if spans is None or not 1 <= line <= len(spans):
            return False
        first, last = spans[line - 1]
        return (first, last) != (line, line) and self.ctx.is_suppressed(self.code, first, last)
