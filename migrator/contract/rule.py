"""The rule contract: what every rule declares, and the helpers it edits and reports with.

A rule is one class in one module of `rules/` or a `target_*` package. Python rules are
LibCST transformers (`PythonRule`); rules for shell scripts, requirements and config files
are `TextRule`s, which return their findings with fixes as data. Each declares a stable
code, a kebab-case name, a one-line summary, its safety and fix availability, a `Trigger`
saying what it can act on (`migrator.contract.trigger`: the engine's fast path skips code
the trigger rules out), and before/after examples.
Its docstring says why; `--explain` and the README print it. Name resolution lives in
`migrator.analysis.scopes`, which `PythonRule` keeps in step with its walk.
"""

from __future__ import annotations

import inspect
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import libcst as cst

from migrator.analysis import cst_walk, device_regions
from migrator.analysis.bindings import EMPTY, ModuleBindings
from migrator.analysis.scopes import PassCache, Scopes
from migrator.contract.trigger import TokenPattern as TokenPattern
from migrator.contract.trigger import Trigger as Trigger
from migrator.contract.trigger import Unit as Unit
from migrator.core.model import ActionName, Finding, Fix, FixAvailability, Kind, Safety, TextEdit
from migrator.core.options import RuleOptions as RuleOptions
from migrator.core.project import EMPTY as EMPTY_PROJECT
from migrator.core.project import ProjectView
from migrator.core.target import NPU, Target
from migrator.formats.suppressions import Suppressions

CODE_PATTERN = re.compile(r"^[A-Z]{3}\d{3}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")

NodeT = TypeVar("NodeT", bound=cst.CSTNode)

# The statement node types (`PythonRule` keeps the ones its walk is in).
_STATEMENTS = frozenset(
    {
        cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While,
        cst.With, cst.Try, cst.TryStar, cst.Match,
    }
)  # fmt: skip


@dataclass(frozen=True)
class Example:
    """A before/after pair; `after` None means the rule must leave `before` unchanged."""

    before: str
    after: str | None = None
    path: str = "example.py"


# What an edit that needs review becomes under `--safe-only` (Python and text rules alike).
NOT_SAFE = "not applied (--safe-only: this edit needs review)"
NOT_SAFE_SUGGESTION = "run without --safe-only to apply it"


@dataclass(frozen=True)
class ImportRequest:
    """An import to add, or (`remove`) to drop if nothing uses it any more."""

    module: str
    name: str | None = None
    asname: str | None = None
    remove: bool = False


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
    # What the rule's trigger's `facts` found in the whole file (see Trigger.facts), worked
    # out when the rule first reads `facts` (they walk the whole file; most passes never
    # read them).
    facts_of: Callable[[], object] | None = None
    # Facts about the whole project (launch entries, config devices, pins...), computed
    # once per run before the per-file passes (see migrator.core.project).
    project: ProjectView = EMPTY_PROJECT
    # What the rules found, in the order they found it (the engine sorts it).
    findings: list[Finding] = field(default_factory=list)
    imports: list[ImportRequest] = field(default_factory=list)
    # Text files: (first, last) line of the command holding each line, for suppressions.
    spans: list[tuple[int, int]] | None = None
    # ids of the statements the pass does not walk into: a `local` rule's statements
    # that hold none of its tokens (`migrator.analysis.statement_spans.cold`).
    cold: frozenset[int] | set[int] = frozenset()
    # The pass is walked without building a new tree (`cst_walk.walk_pass`): the first
    # edit stops it with WouldEdit, and the engine walks it again with LibCST.
    read_only: bool = False
    _module: cst.Module | None = None
    # Shared by the passes over one tree: passes that edit nothing hand the same tree on,
    # so positions and scope bindings worked out once serve the next rule too.
    shared: PassCache = field(default_factory=lambda: PassCache())

    @property
    def facts(self) -> object:
        return None if self.facts_of is None else self.facts_of()

    def begin_pass(self, module: cst.Module) -> None:
        """Positions are looked up lazily (`PassCache.span`), only if a rule reports."""
        self._module = module

    def span(self, node: cst.CSTNode, path: Sequence[cst.CSTNode] = ()) -> tuple[int, int, int]:
        """(first line, 1-based column, last line) of a node of the current pass; `path`:
        the statements the walk is in, outermost first (`PythonRule` keeps them), which
        lets its position come from its own statement's code generation."""
        assert self._module is not None, "begin_pass() was not called"
        line, column, end_line, _ = self.shared.span(self._module, node, path)
        return (self._original_line(line), column + 1, self._original_line(end_line))

    def first_line(self, statement: cst.CSTNode, path: Sequence[cst.CSTNode] = ()) -> int:
        """The file line of a statement's first token, its decorators included (a line of
        the statement, where `span` gives the `def` line): read off the stdlib parse the
        engine made where it can, which generates no code."""
        assert self._module is not None, "begin_pass() was not called"
        return self._original_line(self.shared.first_line(self._module, statement, path))

    def _original_line(self, line: int) -> int:
        if self.line_map is not None and 0 < line <= len(self.line_map):
            line = self.line_map[line - 1]
        return line + self.line_offset

    def is_suppressed(self, code: str, first: int, last: int) -> bool:
        line = self.suppressions.covering(code, first, last)
        if line is None:
            return False
        self.findings.append(Finding.suppression(self.path, line, code))
        return True

    @property
    def edits(self) -> int:
        """How many edits have been recorded (a pass that records none changed nothing)."""
        return sum(1 for finding in self.findings if finding.kind is Kind.EDIT)


class WouldEdit(BaseException):
    """A pass walked read-only (`RuleContext.read_only`) is about to edit. A BaseException,
    so that no `except Exception` in a rule swallows it."""


class Rule:
    """Metadata every rule declares; see the module docstring."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    safety: ClassVar[Safety] = Safety.SAFE
    # Whether its findings come with an edit: always, sometimes (it warns where it cannot
    # edit), or never (a report-only rule, whose `safety` then says nothing).
    fix_availability: ClassVar[FixAvailability] = FixAvailability.SOMETIMES
    # What a person must do about its warnings (an `Action` value: "replace-library",
    # "port-code", ...): the reports group them by it. No default: every rule declares one
    # (tests/test_report_actions.py names any that do not), since a guessed group would
    # send a reviewer to the wrong work.
    action: ClassVar[ActionName]
    # What it matches: tokens, patterns, unit, files, paths and cheap checks
    # (`migrator.contract.trigger`); the engine reads nothing else to skip work.
    trigger: ClassVar[Trigger]
    examples: ClassVar[tuple[Example, ...]] = ()
    # Lower runs first; rules that insert whole lines run late so others report true lines.
    priority: ClassVar[int] = 100

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx

    @classmethod
    def explain(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @property
    def target(self) -> Target:
        return self.ctx.target


# `visit_If_body`, `leave_Try_orelse`: a hook LibCST calls around one field of a node.
_FIELD_HOOK = re.compile(r"(?:visit|leave)_[A-Z][A-Za-z]*_[a-z]")


def _hook(cls: type, name: str) -> str:
    """`name` when the class has such a method (LibCST's visitor dispatch), else "": the
    stubs LibCST's typed base classes define for every node and field, marked as doing
    nothing, count as none."""
    return name if cst_walk.does_something(cls, name) else ""


class PythonRule(Rule, cst.CSTTransformer):
    """A rule that rewrites Python code with LibCST.

    Subclasses write ordinary `visit_*`/`leave_*` methods. This base keeps `self.names`
    (`migrator.analysis.scopes.Scopes`) in step with the walk, so that `qualname()`
    resolves aliases and sees shadowing, and offers `edit()` / `warn()` which
    record positions, honour `# migrate: ignore` comments and keep the report exact.

    Rules normally see one top-level statement (or one method, wrapped in a stand-in class
    of the same name) at a time; a rule that needs the whole module declares
    `Trigger(unit=Unit.MODULE)`.
    """

    # Device rules leave alone code that already handles the NPU or keeps CUDA-only work on
    # CUDA (`migrator.analysis.device_regions`); rules that only warn, or whose edit does
    # not depend on the device, set this False.
    leaves_device_regions: ClassVar[bool] = True

    # The `visit_<Node>` / `leave_<Node>` (and `_<field>`) method names of each rule class,
    # by node type: "" where it has none. LibCST's own dispatch formats a name and calls
    # getattr for every node and every field of it, in every pass.
    _visits: ClassVar[dict[type, str]] = {}
    _leaves: ClassVar[dict[type, str]] = {}
    _attribute_visits: ClassVar[dict[tuple[type, str], str]] = {}
    _attribute_leaves: ClassVar[dict[tuple[type, str], str]] = {}
    # Whether the class does anything in LibCST's per-field calls (a field hook, or its
    # own on_visit_attribute): a read-only walk makes those calls only then.
    field_hooks: ClassVar[bool] = True
    # The node types a pass of the class need not walk (see `walk_skips`), once known.
    _walk_skips: ClassVar[frozenset[type] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._visits, cls._leaves = {}, {}
        cls._attribute_visits, cls._attribute_leaves = {}, {}
        # A class with no field hook at all answers LibCST's two calls per field with a C
        # function of two arguments that does nothing (a builtin binds no `self`). Only the
        # classes below PythonRule can define one: LibCST's typed bases define a stub that
        # does nothing for every field of every node, and PythonRule none
        # (tests/test_rule_dispatch.py).
        below = cst_walk.names_below(cls, PythonRule)
        hooks = any(_FIELD_HOOK.match(name) and _hook(cls, name) for name in below)
        for name in ("on_visit_attribute", "on_leave_attribute"):
            own = vars(PythonRule)[name]
            if getattr(cls, name) in (own, operator.is_):  # not a class's own override
                setattr(cls, name, own if hooks else operator.is_)
        cls.field_hooks = any(
            getattr(cls, name) is not operator.is_
            for name in ("on_visit_attribute", "on_leave_attribute")
        )
        cls._walk_skips = None

    @classmethod
    def walk_skips(cls) -> frozenset[type]:
        """The node types a pass of this rule need not walk: no node under one of them is
        of a type it has a hook for (`cst_walk.skippable`), nor an `if` or `assert`,
        which `on_visit` reads for every device rule (`device_region`). Whitespace,
        punctuation and operators are most of a tree's nodes. A rule with its own
        `on_visit` / `on_leave` is walked everywhere."""
        if cls._walk_skips is None:
            hooked = cst_walk.hooked_types(cls, PythonRule)
            cls._walk_skips = (
                frozenset() if hooked is None else cst_walk.skippable(hooked | {cst.If, cst.Assert})
            )
        return cls._walk_skips

    def __init__(self, ctx: RuleContext) -> None:
        Rule.__init__(self, ctx)
        cst.CSTTransformer.__init__(self)
        # Where the walk is: which names are bound, to what (the one name resolver).
        self.names = Scopes(ctx.bindings, ctx.shared)
        self._cold = ctx.cold
        # The statements the walk is in, outermost first (for `RuleContext.span`).
        self._statements: list[cst.CSTNode] = []

    # Name resolution (see migrator.analysis.scopes) --------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        if self._cold and id(node) in self._cold:
            # Nothing in it for this rule: neither its hooks nor the scopes see it.
            return False
        self.names.enter(node)
        kind = type(node)
        if kind in _STATEMENTS:
            self._statements.append(node)
        if kind is cst.If or kind is cst.Assert:
            found = self.device_region(node)
            if found is not None and self.leaves_device_regions:
                self.left_alone(node, found)
                return False
        # What CSTTransformer.on_visit does, with the method found once per node type.
        name = self._visits.get(kind)
        if name is None:
            name = self._visits[kind] = _hook(type(self), f"visit_{kind.__name__}")
        return not name or getattr(self, name)(node) is not False

    def on_leave(
        self, original_node: NodeT, updated_node: NodeT
    ) -> NodeT | cst.RemovalSentinel | cst.FlattenSentinel[NodeT]:
        if self._cold and id(original_node) in self._cold:
            return updated_node
        kind = type(original_node)
        name = self._leaves.get(kind)
        if name is None:
            name = self._leaves[kind] = _hook(type(self), f"leave_{kind.__name__}")
        result = getattr(self, name)(original_node, updated_node) if name else updated_node
        if kind is cst.If or kind is cst.Assert:
            device_regions.hand_on(self.ctx.shared.device_regions, original_node, result)
        self.names.leave(original_node)
        if kind in _STATEMENTS:
            self._statements.pop()
        return result

    # LibCST calls these for every field of every node; most rules have no such method.
    # The two are written out, not shared through a helper: a call more per field of
    # every node costs more than the repetition.
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        key = (type(node), attribute)
        name = self._attribute_visits.get(key)
        if name is None:
            name = f"visit_{key[0].__name__}_{attribute}"
            name = self._attribute_visits[key] = _hook(type(self), name)
        if name:
            getattr(self, name)(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        key = (type(original_node), attribute)
        name = self._attribute_leaves.get(key)
        if name is None:
            name = f"leave_{key[0].__name__}_{attribute}"
            name = self._attribute_leaves[key] = _hook(type(self), name)
        if name:
            getattr(self, name)(original_node)

    # Code every device rule leaves alone (see migrator.analysis.device_regions) ----------
    def device_region(self, node: cst.CSTNode) -> device_regions.Region | None:
        """Whether device rules leave this `if` chain or `assert` alone, decided once on the
        tree as it was written (the decision is handed on to the nodes later passes build)."""
        return device_regions.decided(
            self.ctx.shared.device_regions, node, self.qualname, self.target
        )

    def left_alone(self, node: cst.CSTNode, region: device_regions.Region) -> None:
        """Called for each region this rule skips; the rule that reports them overrides it."""

    def resolve_name(self, name: str) -> str | None:
        """The dotted name a plain name refers to here, or None."""
        return self.names.resolve_name(name)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """`th.cuda.amp.autocast` -> "torch.cuda.amp.autocast" when `th` is `import torch`."""
        return self.names.qualname(node)

    def is_bound(self, name: str) -> bool:
        """Whether `name` is bound here (any kind of binding, in any visible scope)."""
        return self.names.is_bound(name)

    def local_name_for(self, qualified: str) -> str | None:
        """A module-level name bound to exactly `qualified` and not shadowed here."""
        return self.names.local_name_for(qualified)

    # Reporting ------------------------------------------------------------------------
    def edit(
        self,
        original: cst.CSTNode,
        updated: NodeT,
        replacement: NodeT,
        message: str,
        *,
        review: bool | None = None,
        within: Sequence[cst.CSTNode] | None = None,
    ) -> NodeT:
        """Return `replacement` and record the change, unless a suppression covers it.
        `within`: the statements around `original`, outermost first, where the walk is not
        in them (a rule reporting from `leave_Module`): its position then comes from their
        code generation, not the whole module's."""
        if self.ctx.read_only:
            raise WouldEdit
        first, col, last = self.ctx.span(original, self._statements if within is None else within)
        if self.ctx.is_suppressed(self.code, first, last):
            return updated
        needs_review = self.safety is Safety.REVIEW if review is None else review
        if needs_review and self.ctx.options.safe_only:
            text = f"{message}: {NOT_SAFE}"
            left = Finding.warning(
                self.ctx.path, first, col, self.code, text, NOT_SAFE_SUGGESTION, end_line=last
            )
            self.ctx.findings.append(left)
            return updated
        self.ctx.findings.append(
            Finding.change(
                self.ctx.path, first, col, self.code, message, needs_review, end_line=last
            )
        )
        return replacement

    def record(self, original: cst.CSTNode, message: str, *, review: bool | None = None) -> bool:
        """Record an edit made elsewhere (a statement inserted or moved) at `original`.

        Returns False, recording nothing, when a suppression forbids the edit.
        """
        keep = cst.Pass()
        return self.edit(original, keep, cst.Pass(), message, review=review) is not keep

    def warn(
        self,
        node: cst.CSTNode,
        message: str,
        suggestion: str = "",
        *,
        within: Sequence[cst.CSTNode] | None = None,
    ) -> None:
        """Report `node` (`within`: as for `edit`)."""
        first, col, last = self.ctx.span(node, self._statements if within is None else within)
        if self.ctx.is_suppressed(self.code, first, last):
            return
        self.ctx.findings.append(
            Finding.warning(
                self.ctx.path, first, col, self.code, message, suggestion, end_line=last
            )
        )

    def add_import(self, module: str, name: str | None = None, asname: str | None = None) -> None:
        """Ask the engine to add an import (through LibCST's AddImportsVisitor)."""
        self.ctx.imports.append(ImportRequest(module, name, asname))

    def remove_import(
        self, module: str, name: str | None = None, asname: str | None = None
    ) -> None:
        """Ask the engine to drop an import if nothing uses it (RemoveImportsVisitor)."""
        self.ctx.imports.append(ImportRequest(module, name, asname, remove=True))


class TextRule(Rule):
    """A rule for non-Python files (shell scripts, requirements, configs).

    Its trigger's `files` are globs matched against the file name and against the relative
    path, and its unit is `Unit.FILE`.
    `check` returns what the rule found; its fixes are data: an edit finding (`change`)
    carries `TextEdit`s, offsets into the text it was given, and the engine applies them
    unless a `# migrate: ignore` comment covers the finding or its edits overlap another's.
    """

    def check(self, text: str) -> list[Finding]:
        raise NotImplementedError

    def change(
        self, line: int, col: int, message: str, *edits: TextEdit, review: bool | None = None,
        last: int = 0,
    ) -> Finding:  # fmt: skip
        """An edit at a 1-based line/column made by `edits`.

        `last` is the final line of a multi-line construct the rule knows better than the
        engine's continued-command spans (a suppression comment there covers the finding).
        """
        needs_review = self.safety is Safety.REVIEW if review is None else review
        fix = Fix(edits, Safety.REVIEW if needs_review else Safety.SAFE)
        return Finding.change(
            self.ctx.path, line, col, self.code, message, needs_review, end_line=last, fix=fix
        )

    def warning(
        self, line: int, col: int, message: str, suggestion: str = "", *, last: int = 0
    ) -> Finding:
        return Finding.warning(
            self.ctx.path, line, col, self.code, message, suggestion, end_line=last
        )
