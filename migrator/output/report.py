"""Machine- and human-readable reports of a run: JSON, Markdown, SARIF."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from migrator import __version__
from migrator.core.model import FileResult, Finding, Kind, RunSummary, SkippedPath, Status
from migrator.output.actions import OTHER, action_of, groups


@dataclass(frozen=True)
class RunInfo:
    root: str
    target: str
    profile: str
    mode: str
    rules: tuple[str, ...]
    # The torch-npu release the run targeted and why (migrator.data.release).
    torch_npu: str = ""
    torch_npu_reason: str = ""

    @property
    def pending(self) -> bool:
        """Nothing was written (--dry-run, --check): files "would change", edits "would"
        be made, as the run's last line says."""
        return self.mode in PENDING_MODES


PENDING_MODES = ("dry-run", "check")


def status_word(status: Status, pending: bool) -> str:
    """A file's status as the reports write it: in a run that wrote nothing, "would
    change" / "would be created" (as the summary line says), else the status's value."""
    if pending and status is Status.CHANGED:
        return "would change"
    if pending and status is Status.CREATED:
        return "would be created"
    return status.value


def _file(result: FileResult, pending: bool) -> dict[str, Any]:
    return {
        "path": result.path,
        "status": status_word(result.status, pending),
        "error": result.error,
        "changes": [_with_action(change) for change in result.changes],
        "warnings": [_with_action(warning) for warning in result.warnings],
        "suppressed": [item.as_dict() for item in result.suppressed],
        "unused_suppressions": [item.as_dict() for item in result.unused_suppressions],
        "notes": list(result.notes),
        "todos_added": result.todos_added,
        "todos_removed": result.todos_removed,
    }


def _with_action(finding: Finding) -> dict[str, object]:
    """A finding's JSON object; warnings and edits needing review name their action."""
    found = finding.as_dict()
    action = action_of(finding)
    if action is not None or finding.kind is Kind.WARNING:
        found["action"] = action.value if action is not None else OTHER
    return found


def as_json(info: RunInfo, summary: RunSummary, skipped: Sequence[SkippedPath]) -> str:
    document = {
        "tool": "npu-migrator",
        "version": __version__,
        "run": {k: v for k, v in asdict(info).items() if not k.startswith("torch_npu")},
        "target": {"torch_npu": info.torch_npu, "reason": info.torch_npu_reason},
        "summary": {
            # Whether the run wrote its edits; when not, the counts are what it would do.
            "written": not info.pending,
            "line": summary.line(pending=info.pending),
            "files_scanned": summary.scanned,
            "files_changed": summary.changed,
            "files_created": summary.created,
            "edits": summary.edits,
            "edits_needing_review": summary.review,
            "warnings": summary.warnings,
            "suppressed": summary.suppressed,
            "files_failed": summary.failed,
            "files_from_cache": summary.from_cache,
            "todos_added": summary.todos_added,
            "todos_removed": summary.todos_removed,
        },
        # What needs a person, by action (warnings and edits needing review).
        "actions": [
            {"action": g.key, "title": g.title, "sites": len(g.sites), "codes": list(g.codes)}
            for g in groups(summary.results)
        ],
        "files": [
            _file(result, info.pending)
            for result in summary.results
            if result.status is not Status.UNCHANGED
            or result.changes
            or result.warnings
            or result.suppressed
            or result.unused_suppressions
            or result.notes
        ],
        "skipped": [asdict(item) for item in skipped],
    }
    return json.dumps(document, indent=2) + "\n"


def _file_cell(item: Finding) -> str:
    cell = f" cell {item.cell}" if item.cell is not None else ""
    return f"`{item.path}`{cell}"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def as_markdown(info: RunInfo, summary: RunSummary, skipped: Sequence[SkippedPath]) -> str:
    lines = [
        "# NPU migration report",
        "",
        f"npu-migrator {__version__}, target `{info.target}`, profile `{info.profile}`, "
        f"mode `{info.mode}`.",
        "",
        f"**Target release:** torch-npu {info.torch_npu} ({_md_escape(info.torch_npu_reason)}).",
        "",
        f"**Summary:** {summary.line(pending=info.pending)}.",
        "",
        *markdown_sections(summary, skipped, pending=info.pending),
    ]
    return "\n".join(lines)


def counted(
    results: Sequence[FileResult], own: FileResult, skipped: Sequence[SkippedPath]
) -> RunSummary:
    """The summary of a run with a report's own result in it (a report written into the
    tree, such as NPU_MIGRATION.md), as the run's last line counts it."""
    summary = RunSummary()
    for result in (*results, own):
        summary.add(result)
        summary.results.append(result)
    summary.skipped = len(skipped)
    return summary


def markdown_sections(
    summary: RunSummary, skipped: Sequence[SkippedPath], pending: bool = False
) -> list[str]:
    """The report's body, as lines: what needs a person (by action), failures, edits,
    suppressed sites, new files, paths left out; `pending`: the run wrote nothing, so the
    edits and new files are what it would make."""
    lines: list[str] = []
    lines += action_sections(summary.results, pending)
    failed = [r for r in summary.results if r.status is Status.FAILED]
    if failed:
        lines += ["## Files that failed", ""]
        lines += [f"- `{r.path}`: {r.error}" for r in failed]
        lines.append("")
    edits = [c for r in summary.results for c in r.changes]
    if edits:
        title = "## Every edit the run would make" if pending else "## Every edit"
        lines += [title, "", "| file | line | code | edit |", "|---|---|---|---|"]
        lines += [
            f"| {_file_cell(c)} | {c.line} | {c.code} | {_md_escape(c.message)} |" for c in edits
        ]
        lines.append("")
    suppressed = [s for r in summary.results for s in r.suppressed]
    if suppressed:
        lines += ["## Sites suppressed by `# migrate: ignore`", ""]
        lines += ["| file | line | code |", "|---|---|---|"]
        lines += [f"| {_file_cell(s)} | {s.line} | {s.code} |" for s in suppressed]
        lines.append("")
    created = [r.path for r in summary.results if r.status is Status.CREATED]
    if created:
        title = "## Files the run would create" if pending else "## Files created"
        lines += [title, ""] + [f"- `{path}`" for path in created] + [""]
    if skipped:
        lines += ["## Paths left out", ""]
        lines += [f"- `{item.path}`: {item.reason}" for item in skipped]
        lines.append("")
    return lines


def action_sections(results: Sequence[FileResult], pending: bool = False) -> list[str]:
    """Warnings and edits that need review, grouped by what a person must do: a table of
    the actions (the plan), then one table of sites per action; `pending`: the edits were
    not made (a dry run), so they are what the run would edit."""
    found = groups(results)
    if not found:
        return []
    lines = [
        "## What needs a person, by action",
        "",
        "| action | sites | codes |",
        "|---|---|---|",
        *(f"| {g.title} | {len(g.sites)} | {', '.join(g.codes)} |" for g in found),
        "",
    ]
    for group in found:
        lines += [f"### {group.title}", ""]
        lines += ["| file | line | code | problem | what to do |", "|---|---|---|---|---|"]
        for item in group.sites:
            if item.kind is Kind.EDIT:
                done = "would edit" if pending else "edited"
                problem, todo = f"{done}: {item.message}", "check the edit (it needs review)"
            else:
                problem, todo = item.message, item.suggestion
            lines.append(
                f"| {_file_cell(item)} | {item.line} | {item.code} | {_md_escape(problem)} | "
                f"{_md_escape(todo)} |"
            )
        lines.append("")
    return lines


def write_report(
    path: Path, info: RunInfo, summary: RunSummary, skipped: Sequence[SkippedPath]
) -> None:
    from migrator.formats.sources import write_atomic

    if path.suffix.lower() == ".md":
        text = as_markdown(info, summary, skipped)
    elif path.suffix.lower() == ".sarif":
        from migrator.output.sarif import as_sarif

        text = as_sarif(info, summary)
    else:
        text = as_json(info, summary, skipped)
    write_atomic(path, text.encode("utf-8"))
