"""PythonRule's own visitor dispatch calls what LibCST's would: a rule's `visit_<Node>`,
`leave_<Node>` and field hooks (`visit_If_test`), found once per node type; a class with
no field hook skips LibCST's two calls per field; LibCST's no-op stubs count as none. And
the engine's phases: report-only rules after a report-only whole-module rule still run by
region."""

from __future__ import annotations

import operator
from typing import ClassVar

import libcst as cst

from migrator.contract.rule import _FIELD_HOOK, PythonRule, RuleContext, RuleOptions, Trigger, _hook
from migrator.core.model import FixAvailability
from migrator.core.target import NPU
from migrator.engine import registry
from migrator.engine.python import _pass, _phases, migrate_python

SOURCE = "if a:\n    x = b\nelse:\n    y = c\n"


class _Seen(PythonRule):
    """Records what it is called for. Why: a test."""

    code = "TST001"
    action = "review"
    name = "seen"
    summary = "Records visits (test)."
    fix_availability = FixAvailability.NEVER
    trigger = Trigger(tokens=("if",))
    calls: ClassVar[list[str]] = []

    def visit_Name(self, node: cst.Name) -> bool:
        self.calls.append(f"visit {node.value}")
        return True

    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        self.calls.append("leave Assign")
        return updated_node

    def visit_If_test(self, node: cst.If) -> None:
        self.calls.append("test")

    def leave_If_orelse(self, node: cst.If) -> None:
        self.calls.append("orelse done")


class _Skips(_Seen):
    """Skips the else branch. Why: a test of a visit that returns False."""

    code = "TST002"
    calls: ClassVar[list[str]] = []

    def visit_Else(self, node: cst.Else) -> bool:
        return False


class _Plain(PythonRule):
    """No field hook. Why: a test."""

    code = "TST003"
    action = "review"
    name = "plain"
    summary = "No field hooks (test)."
    trigger = Trigger(tokens=("if",))

    def visit_Name(self, node: cst.Name) -> None:
        pass


def _walk(rule: type[PythonRule]) -> None:
    module = cst.parse_module(SOURCE)
    ctx = RuleContext(path="t.py", target=NPU, options=RuleOptions())
    ctx.begin_pass(module)
    module.visit(rule(ctx))


def test_hooks_are_called_in_libcsts_order() -> None:
    _walk(_Seen)
    assert _Seen.calls == [
        "test", "visit a", "visit x", "visit b", "leave Assign",
        "visit y", "visit c", "leave Assign", "orelse done",
    ]  # fmt: skip


def test_a_visit_that_returns_false_skips_the_children() -> None:
    _walk(_Skips)
    assert _Skips.calls == ["test", "visit a", "visit x", "visit b", "leave Assign", "orelse done"]


def test_a_class_without_field_hooks_skips_them_and_a_subclass_with_one_gets_them() -> None:
    assert vars(_Plain)["on_visit_attribute"] is operator.is_
    assert vars(_Plain)["on_leave_attribute"] is operator.is_
    assert _Seen.on_visit_attribute is vars(PythonRule)["on_visit_attribute"]

    class _WithHook(_Plain):
        """Adds a field hook. Why: a test."""

        def visit_If_body(self, node: cst.If) -> None:
            pass

    assert _WithHook.on_visit_attribute is vars(PythonRule)["on_visit_attribute"]
    # LibCST's typed stubs (visit_Name for every visitor) are not hooks.
    assert _Plain._visits == {}
    _walk(_Plain)
    assert _Plain._visits[cst.Name] == "visit_Name"
    assert _Plain._visits[cst.If] == ""


def test_only_a_class_below_python_rule_can_hold_a_field_hook() -> None:
    # PythonRule.__init_subclass__ reads only the names the classes below it define.
    assert not [
        name for name in dir(PythonRule) if _FIELD_HOOK.match(name) and _hook(PythonRule, name)
    ]

    class _Hooked(PythonRule):
        """A field hook in a class between the rule and PythonRule. Why: a test."""

        def leave_Call_func(self, node: cst.Call) -> None:
            pass

    class _Below(_Hooked):
        """Holds no field hook of its own. Why: a test."""

    assert _Below.field_hooks and _Hooked.field_hooks and not _Plain.field_hooks


def _ordered(profile: str) -> list[type[PythonRule]]:
    """A profile's Python rules in the order a run applies them (priority, code)."""
    catalog = registry.load()
    chosen = catalog.for_profile(catalog.profile(profile))  # type: ignore[arg-type]
    rules = [rule for rule in chosen if issubclass(rule, PythonRule)]
    return sorted(rules, key=lambda rule: (rule.priority, rule.code))


def test_report_only_rules_after_report_only_whole_module_rules_run_by_region() -> None:
    early, late = _phases(_ordered("generic"))
    assert [rule.code for rule in late] == ["NPU082", "NPU090", "NPU030"]
    assert {"NPU083", "NPU091", "NPU092", "NPU093"} <= {rule.code for rule in early}
    assert all(not rule.trigger.whole_module for rule in early)
    # From the first rule that edits on, every rule runs on the whole parse, in order.
    dit = _ordered("dit4dit")
    early, late = _phases(dit)
    first = next(i for i, rule in enumerate(dit) if rule.trigger.whole_module)
    assert early == dit[:first] and late == dit[first:]


def test_a_suggestion_after_the_whole_module_rules_reports_as_on_the_full_path() -> None:
    rules = _ordered("generic")
    text = (
        "import torch\n\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n"
        "    loss = model(torch.ones(2).cuda()).sum()\n    loss.backward()\n\n\n"
        'if __name__ == "__main__":\n    main()\n'
    )
    fast = migrate_python(text, "train.py", rules, NPU, RuleOptions())
    full = migrate_python(text, "train.py", rules, NPU, RuleOptions(), full=True)
    assert (fast.text, fast.findings) == (full.text, full.findings)
    assert {"NPU030", "NPU090"} <= {finding.code for finding in fast.findings}


class _Renames(PythonRule):
    """Warns at `a`, renames `b` to `bb`. Why: a test of a pass that edits."""

    code = "TST004"
    action = "review"
    name = "renames"
    summary = "Renames b (test)."
    trigger = Trigger(tokens=("b",))
    passes: ClassVar[list[str]] = []

    def __init__(self, ctx: RuleContext) -> None:
        super().__init__(ctx)
        self.passes.append("read-only" if ctx.read_only else "libcst")

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        if original_node.value == "a":
            self.warn(original_node, "a seen")
        if original_node.value != "b":
            return updated_node
        return self._rename(original_node, updated_node)

    def _rename(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return self.edit(original_node, updated_node, cst.Name("bb"), "b -> bb")


class _SwallowsErrors(_Renames):
    """Catches every Exception around its edit. Why: a test that the read-only walk's stop
    signal gets through."""

    code = "TST005"
    passes: ClassVar[list[str]] = []

    def _rename(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        try:
            return super()._rename(original_node, updated_node)
        except Exception:
            return updated_node


def _engine_pass(rule: type[PythonRule], source: str) -> tuple[str, list[str]]:
    module = cst.parse_module(source)
    ctx = RuleContext(path="t.py", target=NPU, options=RuleOptions())
    result = _pass(module, rule, ctx)
    return result.code, [finding.message for finding in ctx.findings]


def test_the_engines_read_only_walk_calls_the_hooks_libcsts_walk_calls() -> None:
    _Seen.calls.clear()
    _walk(_Seen)
    libcsts = list(_Seen.calls)
    _Seen.calls.clear()
    module = cst.parse_module(SOURCE)
    assert _pass(module, _Seen, RuleContext(path="t.py", target=NPU)) is module
    assert _Seen.calls == libcsts


def test_a_pass_that_edits_starts_again_on_libcsts_walk_with_fresh_findings() -> None:
    for rule in (_Renames, _SwallowsErrors):
        code, messages = _engine_pass(rule, "a = b\n")
        assert code == "a = bb\n"
        # The warning the stopped walk made is not reported twice.
        assert messages == ["a seen", "b -> bb"]
        assert rule.passes == ["read-only", "libcst"]
    # No edit: one read-only walk, the same tree back.
    _Renames.passes.clear()
    assert _engine_pass(_Renames, "a = c\n") == ("a = c\n", ["a seen"])
    assert _Renames.passes == ["read-only"]


def test_a_pass_skips_what_no_hook_of_the_rule_can_see() -> None:
    skips = _Seen.walk_skips()
    # Whitespace, punctuation, numbers: nothing there for a rule hooking Name and Assign.
    assert {cst.SimpleWhitespace, cst.Comma, cst.Integer, cst.SimpleString} <= skips
    # Nor anything that can hold a name, nor an if (every device rule reads `if` tests).
    assert not {cst.Name, cst.Attribute, cst.Assign, cst.If, cst.Assert} & skips

    class _OwnVisit(_Seen):
        def on_visit(self, node: cst.CSTNode) -> bool:
            return super().on_visit(node)

    assert _OwnVisit.walk_skips() == frozenset()
