"""The one place text rules' edits are applied, and their findings recorded.

A text rule returns findings; an edit finding carries its `Fix` (offsets into the text the
rule read). Here, in one step per rule, each finding is checked against the file's
`# migrate: ignore` comments, edits that overlap an edit already taken are refused, the
rest are applied, and what was applied is what is recorded: the report and the edited
text cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from migrator.contract.rule import NOT_SAFE, NOT_SAFE_SUGGESTION, RuleContext
from migrator.core.model import Finding, Kind, TextEdit


def apply_fixes(text: str, findings: Iterable[Finding], ctx: RuleContext) -> str:
    """`text` with the fixes of the findings no comment suppresses; records them in `ctx`."""
    taken: list[TextEdit] = []
    for finding in sorted(findings, key=_first_edit):
        if _suppressed(finding, ctx):
            continue
        if finding.fix is not None and finding.review and ctx.options.safe_only:
            finding = replace(
                finding,
                kind=Kind.WARNING,
                message=f"{finding.message}: {NOT_SAFE}",
                suggestion=NOT_SAFE_SUGGESTION,
                review=False,
                fix=None,
            )
        elif finding.fix is not None:
            edits = finding.fix.edits
            if any(_overlaps(edit, other) for edit in edits for other in taken):
                finding = replace(
                    finding,
                    kind=Kind.WARNING,
                    message=f"{finding.message}: not applied, it overlaps another edit",
                    suggestion="run again to apply it",
                    review=False,
                    fix=None,
                )
            else:
                taken.extend(edits)
        ctx.findings.append(finding)
    # Back to front, so offsets stay true; insertions at one offset keep their order.
    for edit in reversed(sorted(taken, key=lambda edit: (edit.start, edit.end))):
        text = text[: edit.start] + edit.new_text + text[edit.end :]
    return text


def _first_edit(finding: Finding) -> tuple[int, int]:
    """Findings with fixes in the order of their edits; the others first, as found."""
    if finding.fix is None or not finding.fix.edits:
        return (-1, -1)
    return min((edit.start, edit.end) for edit in finding.fix.edits)


def _overlaps(edit: TextEdit, other: TextEdit) -> bool:
    # An insertion where another edit starts or ends touches it without overlapping.
    return edit.start < other.end and other.start < edit.end


def _suppressed(finding: Finding, ctx: RuleContext) -> bool:
    """A comment on the line, or on the first or last line of its continued command."""
    line, last = finding.line, finding.location.last_line
    if ctx.is_suppressed(finding.code, line, last):
        return True
    spans = ctx.spans
    if spans is None or not 1 <= line <= len(spans):
        return False
    first, last = spans[line - 1]
    return (first, last) != (line, line) and ctx.is_suppressed(finding.code, first, last)
