"""The engine's one step that applies text rules' fixes and records their findings."""

from __future__ import annotations

from migrator.contract.rule import RuleContext
from migrator.core.model import Finding, Fix, Kind, TextEdit
from migrator.engine.fixes import apply_fixes
from migrator.formats.suppressions import text_suppressions

TEXT = "alpha\nbeta\ngamma\n"


def _edit(line: int, *edits: TextEdit) -> Finding:
    return Finding.change("f.sh", line, 1, "TST100", f"edit {line}", fix=Fix(edits))


def test_fixes_are_applied_back_to_front_and_recorded() -> None:
    ctx = RuleContext("f.sh")
    findings = [_edit(3, TextEdit(11, 16, "GAMMA")), _edit(1, TextEdit(0, 5, "ALPHA"))]
    assert apply_fixes(TEXT, findings, ctx) == "ALPHA\nbeta\nGAMMA\n"
    assert [f.line for f in ctx.findings] == [1, 3]


def test_insertions_at_one_offset_keep_their_order_and_touch_a_deletion() -> None:
    ctx = RuleContext("f.sh")
    findings = [
        _edit(2, TextEdit(6, 6, "one\n"), TextEdit(6, 6, "two\n")),
        _edit(2, TextEdit(6, 11, "")),
    ]
    assert apply_fixes(TEXT, findings, ctx) == "alpha\none\ntwo\ngamma\n"
    assert [f.kind for f in ctx.findings] == [Kind.EDIT, Kind.EDIT]


def test_an_overlapping_edit_is_refused_and_reported_as_not_applied() -> None:
    ctx = RuleContext("f.sh")
    findings = [_edit(1, TextEdit(0, 5, "ALPHA")), _edit(1, TextEdit(2, 8, "x"))]
    assert apply_fixes(TEXT, findings, ctx) == "ALPHA\nbeta\ngamma\n"
    refused = ctx.findings[1]
    assert refused.kind is Kind.WARNING and refused.fix is None
    assert "not applied" in refused.message


def test_a_suppressed_finding_edits_nothing_and_is_recorded_as_suppressed() -> None:
    text = "alpha  # migrate: ignore[TST100]\nbeta\n"
    ctx = RuleContext("f.sh", suppressions=text_suppressions(text))
    warning = Finding.warning("f.sh", 2, 1, "TST100", "beta is odd")
    assert apply_fixes(text, [_edit(1, TextEdit(0, 5, "ALPHA")), warning], ctx) == text
    assert {(f.kind, f.line) for f in ctx.findings} == {(Kind.SUPPRESSED, 1), (Kind.WARNING, 2)}
