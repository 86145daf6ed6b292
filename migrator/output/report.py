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


def _file(result: FileResult) -> dict[str, Any]:
    return {
        "path": result.path,
        "status": result.status.value,
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
            _file(result)
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
        f"**Summary:** {summary.line()}.",
        "",
        *markdown_sections(summary, skipped),
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


def markdown_sections(summary: RunSummary, skipped: Sequence[SkippedPath]) -> list[str]:
    """The report's body, as lines: what needs a person (by action), failures, edits,
    suppressed sites, new files, paths left out."""
    lines: list[str] = []
    lines += action_sections(summary.results)
    failed = [r for r in summary.results if r.status is Status.FAILED]
    if failed:
        lines += ["## Files that failed", ""]
        lines += [f"- `{r.path}`: {r.error}" for r in failed]
        lines.append("")
    edits = [c for r in summary.results for c in r.changes]
    if edits:
        lines += ["## Every edit", "", "| file | line | code | edit |", "|---|---|---|---|"]
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
        lines += ["## Files created", ""] + [f"- `{path}`" for path in created] + [""]
    if skipped:
        lines += ["## Paths left out", ""]
        lines += [f"- `{item.path}`: {item.reason}" for item in skipped]
        lines.append("")
    return lines


def action_sections(results: Sequence[FileResult]) -> list[str]:
    """Warnings and edits that need review, grouped by what a person must do: a table of
    the actions (the plan), then one table of sites per action."""
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
                problem, todo = f"edited: {item.message}", "check the edit (it needs review)"
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
