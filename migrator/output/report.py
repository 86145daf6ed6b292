"""Machine- and human-readable reports of a run: JSON, Markdown, SARIF."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from migrator import __version__
from migrator.core.model import FileResult, Finding, RunSummary, SkippedPath, Status


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
        "changes": [change.as_dict() for change in result.changes],
        "warnings": [warning.as_dict() for warning in result.warnings],
        "suppressed": [item.as_dict() for item in result.suppressed],
        "unused_suppressions": [item.as_dict() for item in result.unused_suppressions],
        "notes": list(result.notes),
        "todos_added": result.todos_added,
        "todos_removed": result.todos_removed,
    }


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


def markdown_sections(summary: RunSummary, skipped: Sequence[SkippedPath]) -> list[str]:
    """The report's body, as lines: review items, warnings, failures, edits, new files."""
    lines: list[str] = []
    review = [(r, c) for r in summary.results for c in r.changes if c.review]
    if review:
        lines += [
            "## Edits that need review",
            "",
            "| file | line | code | why |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {_file_cell(c)} | {c.line} | {c.code} | {_md_escape(c.message)} |"
            for _, c in review
        ]
        lines.append("")
    warnings = [w for r in summary.results for w in r.warnings]
    if warnings:
        lines += ["## Warnings: what the tool could not migrate", ""]
        lines += ["| file | line | code | problem | what to do |", "|---|---|---|---|---|"]
        lines += [
            f"| {_file_cell(w)} | {w.line} | {w.code} | {_md_escape(w.message)} | "
            f"{_md_escape(w.suggestion)} |"
            for w in warnings
        ]
        lines.append("")
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
