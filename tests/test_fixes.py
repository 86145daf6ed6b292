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


def _edits(finding: Finding) -> tuple[TextEdit, ...]:
    assert finding.fix is not None
    return tuple(finding.fix.edits)


def _first(finding: Finding) -> tuple[int, int]:
    return min((edit.start, edit.end) for edit in _edits(finding))


def _one_by_one(text: str, findings: list[Finding]) -> tuple[str, list[bool]]:
    """What `apply_fixes` did before it searched the taken edits: each edit checked against
    every one taken, the text copied once per edit, back to front."""
    taken: list[TextEdit] = []
    applied = []
    for finding in sorted(findings, key=_first):
        edits = _edits(finding)
        overlaps = any(
            edit.start < other.end and other.start < edit.end for edit in edits for other in taken
        )
        applied.append(not overlaps)
        if not overlaps:
            taken.extend(edits)
    for edit in reversed(sorted(taken, key=lambda edit: (edit.start, edit.end))):
        text = text[: edit.start] + edit.new_text + text[edit.end :]
    return text, applied


def test_many_edits_give_what_checking_and_copying_one_by_one_gave() -> None:
    """Thousands of edits (a long launch script's) are checked against the taken ones by a
    search and joined once: the same text and the same refusals as checking each against
    all and copying the text per edit, with insertions, touching edits, overlaps, and
    findings whose own edits overlap."""
    import random

    generator = random.Random(7)
    text = "".join(f"line {i} CUDA_VISIBLE_DEVICES=0 python train.py\n" for i in range(300))
    for case in range(40):
        findings = []
        for number in range(generator.randint(1, 60)):
            edits = []
            for _ in range(generator.choice((1, 1, 2))):
                start = generator.randrange(len(text) + 1)
                end = min(len(text), start + generator.choice((0, 0, 1, 3, 12, 40)))
                edits.append(TextEdit(start, end, f"<{case}.{number}>"))
            findings.append(_edit(1, *edits))
        ctx = RuleContext("f.sh")
        expected, applied = _one_by_one(text, findings)
        assert apply_fixes(text, findings, ctx) == expected
        order = sorted(findings, key=_first)
        refused = [f.message for f in ctx.findings if f.kind is Kind.WARNING]
        assert refused == [
            f"{f.message}: not applied, it overlaps another edit"
            for f, ok in zip(order, applied, strict=True)
            if not ok
        ]
