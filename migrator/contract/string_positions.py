"""Finding the string literals that name a device or a backend, and rewriting them in place.

A literal such as `"cuda"` means a device only where the code uses it as one; the same
text in a log message, a docstring or a dict of model names must stay. Rules built on
`StringPositionRule` mark the literals that sit in such a position while LibCST walks
down the tree (`visit_*`, on original nodes) and rewrite the marked literals on the way
back up (`leave_SimpleString`, `leave_FormattedString`), so every edit is one literal,
reported at its own line and column and subject to its own suppression comment.

Positions found by name (the rule supplies the name test, e.g. "contains `device`"):

- a setting: `device = ...`, `self.device = ...`, `cfg["device"] = ...`, `device: str = ...`,
  also the default inside `field(default=...)`, pydantic `Field(...)`, `typer.Option(...)`;
- a parameter default: `def f(device="cuda")`, keyword-only and lambda parameters too;
- a dict entry `{"device": ...}` and a keyword argument `f(device=...)` of any call;
- a command-line option `add_argument("--device", default=..., choices=[...])`, click's
  `option("--device", default=..., type=click.Choice([...]))`;
- a default looked up by name: `getattr(x, "device", ...)`, `kw.get("device", ...)`,
  `os.getenv("DEVICE", ...)`,
  `.pop(...)`, `.setdefault(...)`;
- the value returned by a function named so (`def get_device(): return ...`);
- a positional argument of a call named so (`set_device(...)`, `to_device(x, ...)`);
- a comparison with an operand named so: `device_type == ...`, `x.device.type != ...`,
  `... in str(device)`, `device in (..., ...)`, `str(device).startswith(...)`.

In each position the literal may sit behind `a if c else b`, `a or b`, a list, tuple or
set display, a comprehension or a dict's values (`literal_leaves`); conditions are never
added or removed, only the literals change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

import libcst as cst

from migrator.analysis.cst_helpers import (
    code_of,
    find_arg,
    literal_leaves,
    mentions_name,
    string_value,
    terminal_name,
)
from migrator.contract.rule import PythonRule, RuleContext

# A marked literal: the new content of a plain string, or of an f-string's first part.
_Mark = str

_SETTING_CALLS = frozenset({"get", "pop", "setdefault"})
# Declarations whose default is a setting: dataclasses, pydantic, typer.
_FIELD_CALLS = frozenset({"field", "Field", "Option"})
# Command-line options: argparse's add_argument, click's option/argument.
_OPTION_CALLS = frozenset({"add_argument", "option", "argument"})
_PREFIX_METHODS = frozenset({"startswith", "endswith"})


class LiteralMarks(PythonRule):
    """Mark literals on the way down, rewrite them on the way up (one edit per literal)."""

    # The report wording: '{kind} "cuda" -> "npu"'.
    kind: ClassVar[str] = "string"

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._marks: dict[int, _Mark] = {}

    def literal(
        self, node: cst.BaseExpression, *, prefix: bool = False
    ) -> tuple[cst.SimpleString | cst.FormattedString, str] | None:
        """The literal in `node` this rule rewrites, and its new content."""
        raise NotImplementedError

    def mark(self, node: cst.BaseExpression | None, *, prefix: bool = False) -> None:
        if node is None:
            return
        for leaf in literal_leaves(node):
            found = self.literal(leaf, prefix=prefix)
            if found is not None:
                self._marks[id(found[0])] = found[1]

    def leave_SimpleString(
        self, original_node: cst.SimpleString, updated_node: cst.SimpleString
    ) -> cst.SimpleString:
        new = self._marks.pop(id(original_node), None)
        if new is None:
            return updated_node
        quote = updated_node.quote
        replacement = updated_node.with_changes(value=f"{updated_node.prefix}{quote}{new}{quote}")
        message = f"{self.kind} {code_of(original_node)} -> {code_of(replacement)}"
        return self.edit(original_node, updated_node, replacement, message)

    def leave_FormattedString(
        self, original_node: cst.FormattedString, updated_node: cst.FormattedString
    ) -> cst.FormattedString:
        new = self._marks.pop(id(original_node), None)
        if new is None:
            return updated_node
        head = updated_node.parts[0]
        assert isinstance(head, cst.FormattedStringText)
        parts = [head.with_changes(value=new), *updated_node.parts[1:]]
        replacement = updated_node.with_changes(parts=parts)
        message = f"{self.kind} {code_of(original_node)} -> {code_of(replacement)}"
        return self.edit(original_node, updated_node, replacement, message)


class StringPositionRule(LiteralMarks):
    """Rewrite literals in the positions the module docstring lists, found by name."""

    def names_thing(self, name: str) -> bool:
        """Whether a variable, attribute, key, keyword or function name holds the thing."""
        raise NotImplementedError

    def is_target_literal(self, node: cst.BaseExpression) -> bool:
        """Whether `node` already spells the target (then a collection is left alone)."""
        raise NotImplementedError

    def call_positions(self, call: cst.Call) -> Iterable[cst.BaseExpression]:
        """Arguments of this call that are positions for reasons other than a name."""
        return ()

    def skips_call(self, call: cst.Call) -> bool:
        """Calls whose arguments another rule owns."""
        return False

    # Scope of `return` ------------------------------------------------------------------
    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._functions: list[str] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node.name.value)

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self._functions.pop()
        return updated_node

    def visit_Return(self, node: cst.Return) -> None:
        if self._functions and self.names_thing(self._functions[-1]):
            self.mark(node.value)

    # Settings -----------------------------------------------------------------------
    def _named(self, target: cst.BaseExpression) -> bool:
        name = terminal_name(target)
        return name is not None and self.names_thing(name)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._setting(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._setting(node.target, node.value)

    def _setting(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
            pairs = list(zip(target.elements, value.elements, strict=False))
            if len(target.elements) == len(value.elements):
                for name, item in pairs:
                    self._setting(name.value, item.value)
            return
        if self._named(target):
            self._mark_default(value)

    def visit_Param(self, node: cst.Param) -> None:
        if node.default is not None and self.names_thing(node.name.value):
            self._mark_default(node.default)

    def _mark_default(self, value: cst.BaseExpression) -> None:
        """A setting's value, or the default inside `field(default=...)`, `Field(...)`,
        `typer.Option(...)`."""
        self.mark(value)
        if isinstance(value, cst.Call) and terminal_name(value.func) in _FIELD_CALLS:
            positional = None if terminal_name(value.func) == "field" else 0
            default = find_arg(value, positional, "default")
            if default is not None:
                self.mark(default.value)

    def visit_DictElement(self, node: cst.DictElement) -> None:
        if self._named_key(node.key):
            self.mark(node.value)

    def _named_key(self, node: cst.BaseExpression) -> bool:
        key = string_value(node)
        return key is not None and self.names_thing(key)

    # Calls --------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        for position in self.call_positions(node):
            self.mark(position)
        if self.skips_call(node):
            return
        for arg in node.args:
            if arg.keyword is not None and self.names_thing(arg.keyword.value):
                self.mark(arg.value)
        func = node.func
        method = func.attr.value if isinstance(func, cst.Attribute) else None
        if method in _OPTION_CALLS:
            self._argparse(node)
        elif method in _SETTING_CALLS:
            self._looked_up(node, 0)
        elif method == "getenv" or (isinstance(func, cst.Name) and func.value == "getenv"):
            # `os.getenv("DEVICE", "cuda")`, like `os.environ.get("DEVICE", "cuda")`.
            self._looked_up(node, 0)
        elif isinstance(func, cst.Name) and func.value == "getattr":
            self._looked_up(node, 1)
        elif method in _PREFIX_METHODS and isinstance(func, cst.Attribute):
            first = find_arg(node, 0, None)
            if first is not None and mentions_name(func.value, self.names_thing):
                self.mark(first.value, prefix=True)
        name = terminal_name(func)
        if name is not None and self.names_thing(name):
            for arg in node.args:
                if arg.keyword is None and not arg.star:
                    self.mark(arg.value)

    def _argparse(self, call: cst.Call) -> None:
        options = [
            arg.value.evaluated_value
            for arg in call.args
            if arg.keyword is None and isinstance(arg.value, cst.SimpleString)
        ]
        dest = find_arg(call, None, "dest")
        names = [o.lstrip("-").replace("-", "_") for o in options if isinstance(o, str)]
        if dest is not None and isinstance(dest.value, cst.SimpleString):
            value = dest.value.evaluated_value
            names += [value] if isinstance(value, str) else []
        if not any(self.names_thing(name) for name in names):
            return
        for keyword in ("default", "choices", "const"):
            arg = find_arg(call, None, keyword)
            if arg is not None:
                self.mark(arg.value)
        kind = find_arg(call, None, "type")
        choice = kind.value if kind is not None else None
        if isinstance(choice, cst.Call) and terminal_name(choice.func) == "Choice" and choice.args:
            self.mark(choice.args[0].value)

    def _looked_up(self, call: cst.Call, key_at: int) -> None:
        key = find_arg(call, key_at, None)
        default = find_arg(call, key_at + 1, None)
        if key is None or default is None:
            return
        if self._named_key(key.value):
            self.mark(default.value)

    # Comparisons --------------------------------------------------------------------
    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            right = target.comparator
            operator = target.operator
            if isinstance(operator, (cst.Equal, cst.NotEqual)):
                if mentions_name(left, self.names_thing):
                    self.mark(right)
                if mentions_name(right, self.names_thing):
                    self.mark(left)
            elif isinstance(operator, (cst.In, cst.NotIn)):
                if mentions_name(right, self.names_thing):
                    self.mark(left)
                elif mentions_name(left, self.names_thing) and isinstance(
                    right, (cst.List, cst.Tuple, cst.Set)
                ):
                    elements = [e.value for e in right.elements if isinstance(e, cst.Element)]
                    if not any(self.is_target_literal(e) for e in elements):
                        self.mark(right)
            left = right
