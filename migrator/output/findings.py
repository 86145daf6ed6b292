"""A run's findings on stdout for machines (`--output-format`), and `--statistics`.

`json` is one array, `json-lines` one object a line (streamable), `github` the workflow
commands GitHub Actions turns into annotations; `sarif` is the report's SARIF document.
Paths are relative to the project root, as the rules and the reports see them.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence

from migrator.core.model import FileResult, Finding, Kind, Status

FORMATS = ("text", "json", "json-lines", "github", "sarif")


def finding_record(item: Finding) -> dict[str, object]:
    """One finding as a flat JSON object: what, where (from .. to) and whether it is fixed."""
    end_line = max(item.location.end_line, item.line)
    record: dict[str, object] = {
        "code": item.code,
        "kind": item.kind.value,
        "message": item.message,
        "path": item.path,
        "cell": item.cell,
        "location": {"line": item.line, "column": item.col},
        "end_location": {"line": end_line},
        "fixed": item.kind is Kind.EDIT,
        "review": item.review,
    }
    if item.kind is Kind.WARNING:
        record["suggestion"] = item.suggestion
    return record


def _failed(result: FileResult) -> dict[str, object]:
    return {
        "code": None,
        "kind": "error",
        "message": result.error or "failed",
        "path": result.path,
        "cell": None,
        "location": {"line": 0, "column": 0},
        "end_location": {"line": 0},
        "fixed": False,
        "review": False,
    }


def records(results: Iterable[FileResult]) -> list[dict[str, object]]:
    """Every edit, warning and failed file of a run, in the run's order."""
    found: list[dict[str, object]] = []
    for result in results:
        if result.status is Status.FAILED:
            found.append(_failed(result))
            continue
        found += [finding_record(item) for item in (*result.changes, *result.warnings)]
    return found


def as_json(results: Iterable[FileResult]) -> str:
    return json.dumps(records(results), indent=2) + "\n"


def as_json_lines(results: Iterable[FileResult]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records(results))


def _escape(text: str, property_value: bool = False) -> str:
    # GitHub's workflow-command escaping: %, CR and LF always; ':' and ',' in properties.
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def as_github(results: Iterable[FileResult]) -> str:
    """`::warning file=..,line=..,col=..,title=CODE::message` lines: warnings are warnings,
    pending edits notices (errors when they need review), failed files errors."""
    lines: list[str] = []
    for record in records(results):
        kind = record["kind"]
        level = {"warning": "warning", "error": "error"}.get(str(kind), "notice")
        if kind == "edit" and record["review"]:
            level = "warning"
        location = record["location"]
        assert isinstance(location, dict)
        props = [f"file={_escape(str(record['path']), True)}"]
        if location["line"]:
            props.append(f"line={location['line']}")
        if location["column"]:
            props.append(f"col={location['column']}")
        code = record["code"] or "migrate"
        props.append(f"title={_escape(str(code), True)}")
        cell = f"cell {record['cell']}: " if record["cell"] is not None else ""
        lines.append(f"::{level} {','.join(props)}::{_escape(cell + str(record['message']))}")
    return "".join(line + "\n" for line in lines)


def statistics(results: Sequence[FileResult], names: dict[str, str]) -> str:
    """Counts per code, most frequent first: `   12  NPU001  [fixable]  autocast-device`."""
    edits = Counter(item.code for result in results for item in result.changes)
    warnings = Counter(item.code for result in results for item in result.warnings)
    rows: list[tuple[int, str, str]] = []
    for code, count in edits.items():
        rows.append((count, code, "fixable"))
    for code, count in warnings.items():
        rows.append((count, code, "not fixable"))
    rows.sort(key=lambda row: (-row[0], row[1], row[2]))
    if not rows:
        return ""
    width = max(len(str(row[0])) for row in rows)
    code_width = max(len(row[1]) for row in rows)
    return "".join(
        f"{count:>{width}}  {code:<{code_width}}  [{what}]  {names.get(code, '')}".rstrip() + "\n"
        for count, code, what in rows
    )
