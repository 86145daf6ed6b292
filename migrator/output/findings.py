"""A run's findings on stdout for machines (`--output-format`), and `--statistics`.

`json` is one array, `json-lines` one object a line (streamable), `github` the workflow
commands GitHub Actions turns into annotations; `sarif` is the report's SARIF document.
Paths are relative to the project root, as the rules and the reports see them.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from migrator.core.model import FileResult, Finding, Kind, Status

FORMATS = ("text", "json", "json-lines", "github", "sarif")


# A finding's fix as the line ranges of the file it changes: (finding index -> edits).
Edits = list[dict[str, object]]
FileEdits = Mapping[int, Edits]


def fix_edits(result: FileResult) -> dict[int, Edits]:
    """Each edit finding's part of the file's change, as ruff's `fix.edits`: the new
    `content` of lines `location` up to (not including) `end_location`, columns 1.

    Worked out from the old and the new file (difflib's opcodes), so Python and text rules
    alike get one: the changed lines a finding's own lines (first to last) touch, or lines
    inserted at them. Notebooks get none (their lines are JSON, not cell lines).
    """
    if result.old_data is None or result.new_data is None or result.path.endswith(".ipynb"):
        return {}
    old = result.old_data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    new = result.new_data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    opcodes: list[tuple[str, int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, old, new, autojunk=False
    ).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            # As many lines in as out: line for line, so neighbours' fixes stay apart.
            opcodes += [(tag, i1 + k, i1 + k + 1, j1 + k, j1 + k + 1) for k in range(i2 - i1)]
        else:
            opcodes.append((tag, i1, i2, j1, j2))
    found: dict[int, Edits] = {}
    for index, item in enumerate(result.findings):
        if item.kind is not Kind.EDIT or item.cell is not None:
            continue
        first, last = item.line, max(item.location.end_line, item.line)
        edits: Edits = []
        for kind, i1, i2, j1, j2 in opcodes:
            if kind == "equal":
                continue
            touches = (
                (first <= i1 + 1 <= last + 1) if kind == "insert" else (i1 < last and i2 >= first)
            )
            if touches:
                edits.append(
                    {
                        "content": "".join(new[j1:j2]),
                        "location": {"line": i1 + 1, "column": 1},
                        "end_location": {"line": i2 + 1, "column": 1},
                    }
                )
        found[index] = edits
    return found


def finding_record(item: Finding, edits: Edits | None = None) -> dict[str, object]:
    """One finding as a flat JSON object: what, where (from .. to) and whether it is fixed;
    an edit's `fix` has its applicability and its edits (see `fix_edits`)."""
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
    if item.kind is Kind.EDIT:
        applicability = "unsafe" if item.review else "safe"
        record["fix"] = {"applicability": applicability, "edits": edits or []}
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


def records(
    results: Iterable[FileResult], edits: Mapping[str, FileEdits] | None = None
) -> list[dict[str, object]]:
    """Every edit, warning and failed file of a run, in the run's order; `edits`: each
    file's `fix_edits`, worked out while the run still held the files' bytes."""
    found: list[dict[str, object]] = []
    for result in results:
        if result.status is Status.FAILED:
            found.append(_failed(result))
            continue
        of_file = (edits or {}).get(result.path, {})
        found += [
            finding_record(item, of_file.get(index))
            for index, item in enumerate(result.findings)
            if item.kind is Kind.EDIT
        ]
        found += [finding_record(item) for item in result.warnings]
    return found


def as_json(results: Iterable[FileResult], edits: Mapping[str, FileEdits] | None = None) -> str:
    return json.dumps(records(results, edits), indent=2) + "\n"


def as_json_lines(
    results: Iterable[FileResult], edits: Mapping[str, FileEdits] | None = None
) -> str:
    return "".join(json.dumps(record) + "\n" for record in records(results, edits))


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
