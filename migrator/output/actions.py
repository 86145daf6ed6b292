"""What a person must do after a run: warnings and edits needing review, grouped by action.

Each rule declares its `Action` (`Rule.action`, by value): "replace-library", "port-code",
"host-setup"... The reports (Markdown, JSON, SARIF, the console summary and NPU_MIGRATION.md)
group the run's warnings by it, so that a reviewer can plan the work: which libraries to
replace, which dtypes to change, what to install, which version to decide, how to set up
the host. Edits that need review form the "review" group whatever their rule.

A profile step's warnings say that a file it generates was not written (the user's file was
kept): "generated-file", unless the step declares an `action` of its own. A rule that
declares no action (a third-party one; the tool's own are checked by
tests/test_report_actions.py) is listed under "Other" rather than guessed into a group.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from migrator.core.model import Action, FileResult, Finding, Kind

OTHER = "other"
OTHER_TITLE = "Other (the rule declares no action)"


@dataclass(frozen=True)
class Group:
    """The sites of one action, in the report's order (by file, then line)."""

    action: Action | None
    sites: tuple[Finding, ...]

    @property
    def key(self) -> str:
        return self.action.value if self.action is not None else OTHER

    @property
    def title(self) -> str:
        return self.action.title if self.action is not None else OTHER_TITLE

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(sorted({site.code for site in self.sites}))


def declared(code: str) -> Action | None:
    """The action a registered code declares (a step's default: generated-file)."""
    from migrator.engine import registry

    # The catalog: a rule's action is in the trigger index, so no rule is imported for it.
    loaded = registry.catalog()
    code = loaded.aliases.get(code, code)
    rule = loaded.by_code(code)
    if rule is not None:
        return _parse(rule.action)
    step = loaded.steps.get(code.upper())
    if step is not None:
        return _parse(getattr(step, "action", Action.GENERATED_FILE.value))
    return None


def _parse(value: object) -> Action | None:
    try:
        return Action(value)
    except ValueError:
        return None


def action_of(finding: Finding) -> Action | None:
    """What a person must do about one finding; None for plain edits and suppressions."""
    if finding.kind is Kind.EDIT:
        return Action.REVIEW if finding.review else None
    if finding.kind is Kind.WARNING:
        return declared(finding.code)
    return None


def needs_a_person(finding: Finding) -> bool:
    return finding.kind is Kind.WARNING or (finding.kind is Kind.EDIT and finding.review)


def groups(results: Iterable[FileResult]) -> list[Group]:
    """The run's warnings and review edits by action, in `Action` order, "Other" last."""
    found: dict[Action | None, list[Finding]] = {}
    for result in results:
        for finding in result.findings:
            if needs_a_person(finding):
                found.setdefault(action_of(finding), []).append(finding)
    order = {action: index for index, action in enumerate(Action)}
    keys = sorted(found, key=lambda action: len(order) if action is None else order[action])
    return [Group(key, tuple(sorted(found[key], key=_site_key))) for key in keys]


def _site_key(finding: Finding) -> tuple[str, int, int, int, str]:
    return (finding.path, finding.cell or 0, finding.line, finding.col, finding.code)


def site(finding: Finding) -> str:
    """`path:line` (`path:cell N:line` in a notebook), as the console prints sites."""
    cell = f":cell {finding.cell}" if finding.cell is not None else ""
    return f"{finding.path}{cell}:{finding.line}"


def console_lines(found: Sequence[Group], limit: int = 3) -> list[str]:
    """The end-of-run summary's block: one line per action, with its codes (how many sites
    each) and its first sites; the Markdown report lists every site."""
    if not found:
        return []
    total = sum(len(group.sites) for group in found)
    lines = [f"what needs a person, by action ({total} site{'' if total == 1 else 's'}):"]
    for group in found:
        counts = Counter(item.code for item in group.sites)
        codes = ", ".join(
            code if counts[code] == 1 else f"{code} x{counts[code]}" for code in group.codes
        )
        shown = ", ".join(site(item) for item in group.sites[:limit])
        more = len(group.sites) - limit
        tail = f", and {more} more (--report FILE.md lists them)" if more > 0 else ""
        lines.append(f"  {group.title} ({codes}): {shown}{tail}")
    return lines
