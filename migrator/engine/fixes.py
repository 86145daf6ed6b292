"""The one place text rules' edits are applied, and their findings recorded.

A text rule returns findings; an edit finding carries its `Fix` (offsets into the text the
rule read). Here, in one step per rule, each finding is checked against the file's
`# migrate: ignore` comments, edits that overlap an edit already taken are refused, the
rest are applied, and what was applied is what is recorded: the report and the edited
text cannot drift apart.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable
from dataclasses import replace

from migrator.contract.rule import NOT_SAFE, NOT_SAFE_SUGGESTION, RuleContext
from migrator.core.model import Finding, Kind, TextEdit


def apply_fixes(text: str, findings: Iterable[Finding], ctx: RuleContext) -> str:
    """`text` with the fixes of the findings no comment suppresses; records them in `ctx`."""
    taken = _Taken()
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
            if any(taken.overlaps(edit) for edit in edits):
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
    return _applied(text, sorted(taken.edits, key=lambda edit: (edit.start, edit.end)))


class _Taken:
    """The edits taken so far. Each edit a finding brings is checked against them with a
    search of those sorted by where they start, not one by one (a shell script with
    thousands of launch lines had each edit checked against all the others): taken edits
    never overlap, so sorted by (start, end) their ends never fall either, and the last
    edit that starts before a new one ends is the one that reaches furthest. Where a
    finding's own edits overlap one another that no longer holds, and each is checked."""

    def __init__(self) -> None:
        self.edits: list[TextEdit] = []
        self._sorted: list[tuple[int, int]] = []
        self._ordered = True

    def overlaps(self, edit: TextEdit) -> bool:
        if not self._ordered:
            return any(_overlaps(edit, other) for other in self.edits)
        index = bisect.bisect_left(self._sorted, (edit.end,))
        return index > 0 and self._sorted[index - 1][1] > edit.start

    def extend(self, edits: Iterable[TextEdit]) -> None:
        for edit in edits:
            self.edits.append(edit)
            key = (edit.start, edit.end)
            index = bisect.bisect_right(self._sorted, key)
            self._sorted.insert(index, key)
            before = self._sorted[index - 1][1] if index else key[1]
            after = self._sorted[index + 1][1] if index + 1 < len(self._sorted) else key[1]
            self._ordered = self._ordered and before <= key[1] <= after


def _applied(text: str, edits: list[TextEdit]) -> str:
    """`text` with `edits` (sorted by where they start and end) applied: back to front, so
    offsets stay true, and insertions at one offset keep their order. Where no edit
    reaches into the next, the text between them is joined once instead of the whole text
    copied for each edit."""
    if all(first.end <= second.start for first, second in itertools.pairwise(edits)):
        pieces: list[str] = []
        at = 0
        for edit in edits:
            pieces += (text[at : edit.start], edit.new_text)
            at = edit.end
        pieces.append(text[at:])
        return "".join(pieces)
    for edit in reversed(edits):
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
