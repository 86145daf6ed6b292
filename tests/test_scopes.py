"""The one name resolver: `Scopes` followed through a walk, asked what rules ask."""

from __future__ import annotations

import ast

import libcst as cst

from migrator.analysis.bindings import module_bindings
from migrator.analysis.cst_helpers import assigned_targets
from migrator.analysis.scopes import PassCache, Scopes

SOURCE = """\
import torch as th
from torch import autocast as ac


def f(th):
    return th.cuda


class C:
    ac = 1

    def g(self):
        return ac, th.cuda, [th for th in range(3)]
"""


class _Asker(cst.CSTVisitor):
    """Records, at each `return`, what `th.cuda` and `ac` resolve to there."""

    def __init__(self, scopes: Scopes) -> None:
        super().__init__()
        self.scopes = scopes
        self.seen: list[tuple[str | None, str | None, str | None, int]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.scopes.enter(node)
        if isinstance(node, cst.Return):
            chain = cst.Attribute(cst.Name("th"), cst.Name("cuda"))
            self.seen.append((
                self.scopes.qualname(chain), self.scopes.resolve_name("ac"),
                self.scopes.local_name_for("torch"), self.scopes.depth,
            ))  # fmt: skip
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.scopes.leave(original_node)


def test_scopes_see_parameters_and_skip_class_bodies_from_methods() -> None:
    scopes = Scopes(module_bindings(ast.parse(SOURCE)), PassCache())
    asker = _Asker(scopes)
    cst.parse_module(SOURCE).visit(asker)
    assert asker.seen == [
        # The parameter `th` shadows the import: nothing resolves, no local name for torch.
        (None, "torch.autocast", None, 1),
        # A method does not see its class's `ac`; the comprehension's `th` stays inside it.
        ("torch.cuda", "torch.autocast", "th", 2),
    ]
    assert scopes.depth == 0
    assert scopes.is_bound("th") and not scopes.is_bound("nowhere")


def test_assigned_targets_unpack_tuples_lists_and_stars() -> None:
    target = cst.parse_expression("a, [b.c, *d], e[0]")
    assert [cst.Module([]).code_for_node(t) for t in assigned_targets(target)] == [
        "a",
        "b.c",
        "d",
        "e[0]",
    ]


def test_an_except_star_name_binds_in_its_function_with_or_without_a_walrus() -> None:
    """`except* E as torch:` binds `torch` in the function, as `except E as torch:` does,
    whether the scope is read off its statements or walked (a `:=` in it): walked, the
    name was missed, and the full path rewrote `torch.cuda` where the fast path did not."""
    from migrator.analysis.scopes import function_bindings

    for test in ("(n := 1) > 0", "True"):
        source = (
            f"def f(x):\n    if {test}:\n        pass\n    try:\n        pass\n"
            "    except* ValueError as torch:\n        pass\n    return torch.cuda\n"
        )
        function = cst.parse_module(source).body[0]
        assert isinstance(function, cst.FunctionDef)
        assert "torch" in function_bindings(function, walrus=True)
        assert "torch" in function_bindings(function, walrus=False)
