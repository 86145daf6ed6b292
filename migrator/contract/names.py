"""Naming what a rule inserts: reuse a name the file has bound, or import one.

Rules never invent a name. To refer to `torch.no_grad` or `decord.cpu` a rule first looks
for a name bound to exactly that object, then for a name bound to a module above it
(`th` for `torch`, `de` for `decord`, written `th.no_grad`), and only then asks the engine
for `from <module> import <name>`, provided the name is free wherever it will be used.
"""

from __future__ import annotations

import libcst as cst

from migrator.contract.rule import PythonRule


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
