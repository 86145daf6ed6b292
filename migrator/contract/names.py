"""Naming what a rule inserts: reuse a name the file has bound, or import one; and which
of the names a rule visits read a binding at all (`SpeltNames`).

Rules never invent a name. To refer to `torch.no_grad` or `decord.cpu` a rule first looks
for a name bound to exactly that object, then for a name bound to a module above it
(`th` for `torch`, `de` for `decord`, written `th.no_grad`), and only then asks the engine
for `from <module> import <name>`, provided the name is free wherever it will be used.
"""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import PythonRule, RuleContext


def bound_reference(rule: PythonRule, qualified: str) -> cst.BaseExpression | None:
    """An expression for `qualified` made of names the file binds here, or None.

    `from torch import no_grad as ng` gives `ng`; `import torch as th` gives `th.no_grad`.
    """
    exact = rule.local_name_for(qualified)
    if exact is not None:
        return cst.Name(exact)
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = rule.local_name_for(".".join(parts[:cut]))
        if head is None:
            continue
        expression: cst.BaseExpression = cst.Name(head)
        for part in parts[cut:]:
            expression = cst.Attribute(value=expression, attr=cst.Name(part))
        return expression
    return None


def imported_reference(rule: PythonRule, qualified: str) -> cst.Name | None:
    """`name`, after asking for `from <module> import <name>`; None if `name` is taken here."""
    module, _, name = qualified.rpartition(".")
    if not module or rule.is_bound(name):
        return None
    rule.add_import(module, name)
    return cst.Name(name)


class SpeltNames(PythonRule):
    """For a rule that resolves every `Name` it visits (`visit_Name`): the names that only
    spell a name and read no binding, which `spelt(node)` tells. They are a keyword
    argument's (`f(is_nccl_available=x)`), a parameter's (`def f(inference_mode=None)`),
    a definition's (`def name`, `class name`) and a `global` / `nonlocal` item's; each is
    met before its name is visited. Resolved, such a name gave the import it shadows or
    spells: a warning on the full path that the fast path's stdlib gates, which see no
    name there, did not foresee.

    Listed before the rule's other bases (`class R(SpeltNames, StringPositionRule)`): the
    hooks it shares with them call theirs (none of which skips a node's children)."""

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self._spelt: set[int] = set()

    def spelt(self, node: cst.Name) -> bool:
        return id(node) in self._spelt

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._spelt.add(id(node.keyword))
        super().visit_Arg(node)

    def visit_Param(self, node: cst.Param) -> None:
        self._spelt.add(id(node.name))
        super().visit_Param(node)

    def visit_NameItem(self, node: cst.NameItem) -> None:
        self._spelt.add(id(node.name))
        super().visit_NameItem(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._spelt.add(id(node.name))
        super().visit_FunctionDef(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._spelt.add(id(node.name))
        super().visit_ClassDef(node)
