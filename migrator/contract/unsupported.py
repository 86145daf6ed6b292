"""What cannot be migrated: a declarative base for rules that only report.

A rule of this kind names a CUDA-only construct and says where the project uses it; it
never edits. Its class declares

- `modules`: dotted module names whose import is reported (`import triton`,
  `from flash_attn.bert_padding import pad_input`, `import torch.cuda.nvtx as nvtx`);
- `uses`: qualified names whose call or use as a decorator is reported; a name covers what
  lies under it (`"apex"` covers `apex.optimizers.FusedAdam`). Matching is by qualified
  name, so aliases are found and a local variable that shadows the import is not;
- `message`: why it cannot run there, and `suggestion`: what to do, one line each (both
  are templates, see below); `suggestions` can give a more specific suggestion per
  qualified-name prefix (longest prefix wins);
- `describe()`, overridden where a call is CUDA-only only with some arguments.

Messages and suggestions are templates: `{device}` and `{runtime}` are the target's device
type and runtime module (`{DEVICE}`: the device type in capitals, for prose), and any
other `{topic}` is read from `Target.equivalents`, so no rule names the target's own tools
in code.

Each construct is reported once per site: one warning per import statement, one per call,
and one per decorated function however many of its decorators match (a `@triton.autotune`
+ `@triton.jit` kernel is one warning, and its `triton.Config(...)` arguments are not
reported). What a construct's API does inside a reported site (`tl.load` in a kernel) is not
reported again.

An import guarded as optional is not reported: inside a `try` whose handlers catch
ImportError (or ModuleNotFoundError, Exception, a bare `except`), under an
`if is_<x>_available():` test, or under `if TYPE_CHECKING:`. A test of a name the file
assigns such a call to guards the same way (`is_fa2 = is_flash_attn_2_available()`, then
`if is_fa2:`): `availability_flags` reads those names off the whole file, so the fast path,
which walks a rule only through the statements that hold its tokens, sees the flags the
full path sees. The code already runs without the package, and on the target host it takes
the fallback; calls through names the guarded import binds are still reported where they
resolve, also when the `except` handler or the `else` branch assigns a fallback to the name
(`flash_attn_func = None`): that code path is what a person has to replace.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

import libcst as cst

from migrator.analysis import cst_walk
from migrator.analysis.ast_lines import statements_spelling, walk
from migrator.analysis.bindings import AVAILABILITY
from migrator.analysis.cst_helpers import dotted_name, is_availability_test
from migrator.contract.rule import Example, PythonRule, RuleContext
from migrator.contract.trigger import FileView, TokenPattern
from migrator.core.model import FixAvailability
from migrator.core.target import Target
from migrator.formats.sources import split_lines

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def reported(before: str, path: str = "example.py") -> Example:
    """An example the rule reports and leaves unchanged (its `after` equals `before`)."""
    return Example(before, before, path)


class _Fill(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "the target's equivalent"


def fill(template: str, target: Target) -> str:
    """A suggestion template with the target's names filled in."""
    values = _Fill(target.equivalents)
    values.update(
        device=target.device_type, DEVICE=target.device_type.upper(), runtime=target.runtime_module
    )
    return template.format_map(values)


def under(name: str, prefixes: Sequence[str] | Mapping[str, str]) -> str | None:
    """The longest prefix in `prefixes` that is `name` or a dotted parent of it."""
    best: str | None = None
    for prefix in prefixes:
        if (name == prefix or name.startswith(prefix + ".")) and (
            best is None or len(prefix) > len(best)
        ):
            best = prefix
    return best


def covers(names: Iterable[str], prefixes: frozenset[str]) -> bool:
    """Whether a name in `names` is one of `prefixes` or lies under one (`under`, for a
    set of names: each name's dotted parents are looked up)."""
    for name in names:
        while name:
            if name in prefixes:
                return True
            name = name.rpartition(".")[0]
    return False


@dataclasses.dataclass(frozen=True)
class UsesGate:
    """The names gate of a rule that reports only what `modules` and `uses` name: a region
    none of whose qualified names (and imports) lies under one of them holds nothing the
    rule reports. A plain value, so a trigger holding it still pickles."""

    prefixes: frozenset[str]

    def __call__(self, names: frozenset[str], view: FileView) -> bool:
        return covers(names, self.prefixes)


# An availability test's name (`AVAILABILITY`) as a word: the lines that may assign one.
_AVAILABILITY_WORDS = (r"\bis_\w*available\b", r"\bTYPE_CHECKING\b")


def availability_flags(tree: ast.Module, text: str) -> frozenset[str]:
    """The names the file assigns an availability test's result to, anywhere in it
    (`is_fa2 = is_flash_attn_2_available()`): an `if` that tests one guards the imports it
    holds as `if is_flash_attn_2_available():` does. The callee is read as
    `cst_helpers.is_availability_test` reads it: any name in it, an attribute's, a keyword
    argument's or a lambda parameter's included. A plain function, the `facts` of the
    triggers of the rules that report imports.

    Only the top-level statements on a line that spells such a name are walked (most
    files that hold one say `if TYPE_CHECKING:` once). The name is read as the text
    spells it, as LibCST keeps it (the stdlib parser folds a name written in fullwidth
    letters to its ASCII form; LibCST and this do not)."""
    statements = statements_spelling(tree, text, split_lines(text), _AVAILABILITY_WORDS)
    nodes = (node for statement in statements for node in walk(statement))
    return frozenset(
        target.id
        for node in nodes
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and _names_availability(node.value.func)
        for target in node.targets
        if isinstance(target, ast.Name)
    )


def _names_availability(expression: ast.expr) -> bool:
    for node in ast.walk(expression):
        if isinstance(node, ast.Name):
            name: str | None = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, (ast.keyword, ast.arg)):
            name = node.arg
        else:
            continue
        if name is not None and AVAILABILITY.match(name):
            return True
    return False


def _catches_import_error(node: cst.Try) -> bool:
    for handler in node.handlers:
        if handler.type is None:
            return True
        caught = handler.type.elements if isinstance(handler.type, cst.Tuple) else None
        names = [e.value for e in caught] if caught is not None else [handler.type]
        for name in names:
            text = dotted_name(name)
            if text is not None and text.rsplit(".", 1)[-1] in _IMPORT_ERRORS:
                return True
    return False


def _names(node: cst.CSTNode) -> list[cst.Name]:
    return cst_walk.find_all(node, cst.Name)


class UnsupportedConstruct(PythonRule):
    """Reports imports, calls and decorators of a CUDA-only API; see the module docstring."""

    fix_availability = FixAvailability.NEVER

    modules: ClassVar[tuple[str, ...]] = ()
    uses: ClassVar[tuple[str, ...]] = ()
    # The needs `__init_subclass__` derived from `modules` and `uses` (None: declared).
    _derived_needs: ClassVar[tuple[TokenPattern, ...] | None] = None
    message: ClassVar[str]
    suggestion: ClassVar[str]
    suggestions: ClassVar[Mapping[str, str]] = {}
    # A CUDA-only construct is worth a warning inside code that is left alone too.
    leaves_device_regions = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass that reports only through this class's visits (it adds no `visit_` or
        `leave_` method of its own) acts only where a name lies under its `modules` or
        `uses`: its trigger gets that names gate, unless it declares one, and the last
        name of each as its `needs`, unless it declares some. Code that names anything
        under `torch.jit.script` spells `script` as a word, in an attribute or an import
        (a star import or a name assigned from another binds nothing qualnames follow),
        so a file that only calls `torch.jit.is_scripting()` is not parsed for NPU070.

        Such a subclass is also `local`: this class decides from the statement that spells
        the name, the `try` and `if` headers around it, name resolution and the file's
        availability flags (`availability_flags`, the `facts` of every subclass that
        reports imports)."""
        super().__init_subclass__(**kwargs)
        trigger = getattr(cls, "trigger", None)
        if trigger is None:
            return
        if cls.modules and trigger.facts is not availability_flags:
            if trigger.facts is not None:
                raise TypeError(
                    f"{cls.__name__} reports imports, which reads availability_flags as its "
                    "trigger's facts: it cannot declare facts of its own"
                )
            trigger = cls.trigger = dataclasses.replace(trigger, facts=availability_flags)
        # Any class of its own, or a mixin beside this one, may add visits.
        own = any(
            name.startswith(("visit_", "leave_"))
            for klass in cls.__mro__
            if klass not in UnsupportedConstruct.__mro__
            for name in vars(klass)
        )
        # Only an import statement reports a module, and it spells the module's name: an
        # alias leads to a report only through `uses` (`Trigger.through`), which a
        # `through` the trigger carries (its own or a parent's) is widened to hold.
        if own:
            # Its own visits may act through any alias, and at any name (a call's or not).
            if trigger.through is not None or trigger.names_called:
                cls.trigger = dataclasses.replace(trigger, through=None, names_called=False)
            return
        through = tuple(dict.fromkeys((*(trigger.through or ()), *cls.uses)))
        if trigger.through != through:
            trigger = cls.trigger = dataclasses.replace(trigger, through=through)
        if not trigger.local:
            trigger = cls.trigger = dataclasses.replace(trigger, local=True)
        if not isinstance(trigger.names, (UsesGate, type(None))):
            # A gate of its own reads every name (a parent's `names_called` came with the
            # parent's uses gate).
            if trigger.names_called:
                cls.trigger = dataclasses.replace(trigger, names_called=False)
            return
        names = (*cls.modules, *cls.uses)
        last = sorted({name.rsplit(".", 1)[-1] for name in names})
        # Needs this method derived for a parent class, which a subclass inheriting its
        # trigger with other `uses` must not keep, are derived again.
        declared_needs = trigger.needs if trigger.needs is not cls._derived_needs else ()
        needs = declared_needs or tuple(TokenPattern(w, rf"\b{re.escape(w)}\b") for w in last)
        cls._derived_needs = needs if not declared_needs else None
        # It reports imports, calls and decorators only (no visits of its own): the names
        # the region calls or decorates with, and its imports, are all its gate reads.
        cls.trigger = dataclasses.replace(
            trigger, names=UsesGate(frozenset(names)), needs=needs, names_called=True
        )

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._guards = 0
        self._decorator_calls: set[int] = set()

    # What is reported -----------------------------------------------------------------
    def describe(self, name: str, call: cst.Call | None) -> str | None:
        """The message for a use of `name` (None: not reported). `call` is None for a bare
        decorator such as `@triton.jit`."""
        return fill(self.message, self.target)

    def suggest(self, name: str) -> str:
        key = under(name, self.suggestions)
        return fill(self.suggestions[key] if key is not None else self.suggestion, self.target)

    # Optional-import guards -----------------------------------------------------------
    def visit_Try_body(self, node: cst.Try) -> None:
        if _catches_import_error(node):
            self._guards += 1

    def leave_Try_body(self, node: cst.Try) -> None:
        if _catches_import_error(node):
            self._guards -= 1

    # A guard matters to the imports a rule reports only (`modules`).
    def visit_If_body(self, node: cst.If) -> None:
        if self.modules and self._is_guard(node.test):
            self._guards += 1

    def leave_If_body(self, node: cst.If) -> None:
        if self.modules and self._is_guard(node.test):
            self._guards -= 1

    def _is_guard(self, test: cst.BaseExpression) -> bool:
        if is_availability_test(test):
            return True
        # `is_fa2 = is_flash_attn_2_available()`, tested as `if ... and is_fa2:`.
        flags = self.ctx.facts
        return (
            isinstance(flags, frozenset)
            and bool(flags)
            and any(isinstance(node, cst.Name) and node.value in flags for node in _names(test))
        )

    # Imports --------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        if self._guards:
            return
        names = [n for n in (dotted_name(alias.name) for alias in node.names) if n]
        found = [name for name in names if under(name, self.modules)]
        if found:
            self._report_import(node, found)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if self._guards or node.relative or node.module is None:
            return
        module = dotted_name(node.module)
        if module is None:
            return
        if isinstance(node.names, cst.ImportStar):
            full = [module]
        else:
            full = [f"{module}.{dotted_name(alias.name)}" for alias in node.names]
        if under(module, self.modules):
            self._report_import(node, full if len(full) == 1 else [module, *full])
            return
        found = [name for name in full if under(name, self.modules)]
        if found:
            self._report_import(node, found)

    def import_message(self, name: str) -> str:
        """Why an import of `name` is reported (default: the rule's `message`)."""
        return fill(self.message, self.target)

    def _report_import(self, node: cst.CSTNode, names: list[str]) -> None:
        shown = names[0]
        hints = {self.suggest(name) for name in names}
        suggestion = hints.pop() if len(hints) == 1 else fill(self.suggestion, self.target)
        self.warn(node, f"import of {shown}: {self.import_message(shown)}", suggestion)

    # Decorators and calls -------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._decorators(node.decorators)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._decorators(node.decorators)

    def _decorators(self, decorators: Sequence[cst.Decorator]) -> None:
        reported = False
        for decorator in decorators:
            expression = decorator.decorator
            call = expression if isinstance(expression, cst.Call) else None
            name = self.qualname(call.func if call is not None else expression)
            if name is None or under(name, self.uses) is None:
                continue
            if call is not None:
                self._decorator_calls.add(id(call))
            if reported:
                continue
            text = self.describe(name, call)
            if text is not None:
                self.warn(decorator, f"@{name}: {text}", self.suggest(name))
                reported = True

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self._decorator_calls:
            return
        name = self.qualname(node.func)
        if name is None or under(name, self.uses) is None:
            return
        text = self.describe(name, node)
        if text is not None:
            self.warn(node, f"{name}(): {text}", self.suggest(name))
