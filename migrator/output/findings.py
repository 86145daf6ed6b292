"""A run's findings on stdout for machines (`--output-format`), and `--statistics`.

`json` is one array, `json-lines` one object a line (streamable), `github` the workflow
commands GitHub Actions turns into annotations; `sarif` is the report's SARIF document.
Paths are relative to the project root, as the rules and the reports see them.
"""

from __future__ import annotations

import bisect
import codecs
import difflib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from migrator.core.model import FileResult, Finding, Kind, Status

FORMATS = ("text", "json", "json-lines", "github", "sarif")


# A finding's fix as ruff's `fix.edits`: (finding index -> edits).
Edits = list[dict[str, object]]
FileEdits = Mapping[int, Edits]

# Words, line endings, runs of other blanks, single marks: the units the fallback diffs.
_TOKEN = re.compile(r"\w+|\r\n|[\r\n]|[^\S\r\n]+|[^\w\s]")
_LINE_END = re.compile(r"\r\n|\r|\n")


def _decoded(data: bytes) -> str:
    # As the engine reads a file: a UTF-8 BOM is no part of the text the rules see.
    return data.decode(
        "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8", "surrogateescape"
    )


def fix_edits(result: FileResult) -> dict[int, Edits]:
    """Each edit finding's part of the file's change, as ruff's `fix.edits`: a `content`
    that replaces the original text from `location` up to (not including) `end_location`,
    both 1-based (`line`, `column`), columns counting characters.

    The range is the narrow span the rule edited where the engine knows it: a text rule's
    `TextEdit` offsets, when the file's text rules' edits alone turn the old text into the
    new (one rule edited it, nothing else did). Otherwise (LibCST rules, several text rules
    one after the other, TODO comments) the old and the new text are compared word by word
    within the changed lines, and each changed span goes to the edit finding whose node
    (its first to last line, the nearest column at or before the span) holds it, else to the
    nearest one. Applying every finding's edits to the old text gives the new text; a fix
    applied alone changes its own spans only. Notebooks get none (their lines are JSON, not
    cell lines).
    """
    if result.old_data is None or result.new_data is None or result.path.endswith(".ipynb"):
        return {}
    old, new = _decoded(result.old_data), _decoded(result.new_data)
    starts = _line_starts(old)
    owners = [
        (index, item)
        for index, item in enumerate(result.findings)
        if item.kind is Kind.EDIT and item.cell is None
    ]
    if not owners:
        return {}
    found: dict[int, Edits] = {index: [] for index, _ in owners}
    exact = _exact(old, new, owners)
    if exact is not None:
        for index, spans in exact.items():
            found[index] = [_edit(starts, *span) for span in spans]
        return found
    for start, end, content in _changed_spans(old, new):
        line, col = _position(starts, start)
        found[_owner(owners, line, col)].append(_edit(starts, start, end, content))
    return found


def _exact(
    old: str, new: str, owners: Sequence[tuple[int, Finding]]
) -> dict[int, list[tuple[int, int, str]]] | None:
    """The text rules' own `TextEdit`s, when together they make exactly the new text."""
    spans = {
        index: sorted((e.start, e.end, e.new_text) for e in item.fix.edits)
        for index, item in owners
        if item.fix is not None
    }
    if len(spans) != len(owners):
        return None
    text = old
    every = sorted((span for found in spans.values() for span in found), reverse=True)
    for start, end, content in every:
        if not 0 <= start <= end <= len(old):
            return None
        text = text[:start] + content + text[end:]
    return spans if text == new else None


def _changed_spans(old: str, new: str) -> list[tuple[int, int, str]]:
    """(start, end, new content) of each changed run of words, offsets into `old`: the
    changed lines first (difflib), then the words within each changed block."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    found: list[tuple[int, int, str]] = []
    lines = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in lines.get_opcodes():
        if tag == "equal":
            continue
        before, after = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
        old_tokens, new_tokens = _TOKEN.findall(before), _TOKEN.findall(after)
        token_starts = [0]
        for token in old_tokens:
            token_starts.append(token_starts[-1] + len(token))
        words = difflib.SequenceMatcher(None, old_tokens, new_tokens, autojunk=False)
        for kind, a1, a2, b1, b2 in words.get_opcodes():
            if kind != "equal":
                found.append(
                    (
                        offsets[i1] + token_starts[a1],
                        offsets[i1] + token_starts[a2],
                        "".join(new_tokens[b1:b2]),
                    )
                )
    return found


def _owner(owners: Sequence[tuple[int, Finding]], line: int, col: int) -> int:
    """The edit finding a changed span at (line, col) belongs to."""

    def key(owner: tuple[int, Finding]) -> tuple[int, int, int]:
        item = owner[1]
        first, last = item.line, item.location.last_line
        distance = 0 if first <= line <= last else min(abs(line - first), abs(line - last))
        # On the span's first line, the node starting nearest before the span.
        before = col - item.col if item.line == line and item.col <= col else 10**9
        return (distance, before, owner[0])

    return min(owners, key=key)[0]


def _line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in _LINE_END.finditer(text))]


def _position(starts: Sequence[int], offset: int) -> tuple[int, int]:
    line = bisect.bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


def _edit(starts: Sequence[int], start: int, end: int, content: str) -> dict[str, object]:
    line, col = _position(starts, start)
    end_line, end_col = _position(starts, end)
    return {
        "content": content,
        "location": {"line": line, "column": col},
        "end_location": {"line": end_line, "column": end_col},
    }


def finding_record(
    item: Finding, edits: Edits | None = None, written: bool = True
) -> dict[str, object]:
    """One finding as a flat JSON object: what, where (from .. to) and whether the run
    fixed it (`fixed`: an edit the run wrote; false for every edit of --dry-run / --check,
    whose edits are pending); an edit's `fix` has its applicability and its edits (see
    `fix_edits`)."""
    end_line = max(item.location.end_line, item.line)
    record: dict[str, object] = {
        "code": item.code,
        "kind": item.kind.value,
        "message": item.message,
        "path": item.path,
        "cell": item.cell,
        "location": {"line": item.line, "column": item.col},
        "end_location": {"line": end_line},
        "fixed": item.kind is Kind.EDIT and written,
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
    results: Iterable[FileResult],
    edits: Mapping[str, FileEdits] | None = None,
    written: bool = True,
) -> list[dict[str, object]]:
    """Every edit, warning and failed file of a run, in the run's order; `edits`: each
    file's `fix_edits`, worked out while the run still held the files' bytes; `written`:
    whether the run wrote its edits (not for --dry-run, --check or a refused run)."""
    found: list[dict[str, object]] = []
    for result in results:
        if result.status is Status.FAILED:
            found.append(_failed(result))
            continue
        of_file = (edits or {}).get(result.path, {})
        found += [
            finding_record(item, of_file.get(index), written)
            for index, item in enumerate(result.findings)
            if item.kind is Kind.EDIT
        ]
        found += [finding_record(item) for item in result.warnings]
    return found


def as_json(
    results: Iterable[FileResult],
    edits: Mapping[str, FileEdits] | None = None,
    written: bool = True,
) -> str:
    return json.dumps(records(results, edits, written), indent=2) + "\n"


def as_json_lines(
    results: Iterable[FileResult],
    edits: Mapping[str, FileEdits] | None = None,
    written: bool = True,
) -> str:
    return "".join(json.dumps(record) + "\n" for record in records(results, edits, written))


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
