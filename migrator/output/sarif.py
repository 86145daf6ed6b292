"""SARIF 2.1.0 output, so code-scanning views show warnings and edits needing review.

- Warnings are results of level "warning"; edits that need review are "note"s.
- Sites skipped by a `# migrate: ignore` comment are results with an `inSource`
  suppression, so viewers list them as suppressed instead of hiding them entirely.
- Files that failed are tool execution notifications, and the invocation is marked
  unsuccessful when any did.
- Columns count Unicode code points (`columnKind`), as the tool's own messages do.
- Notebook sites carry their cell in the message and in `properties.cell`; their region is
  left out, because a cell's line is not a line of the .ipynb file.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from migrator import __version__
from migrator.core.model import RunSummary, Status

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _location(path: str, line: int, col: int | None, cell: int | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": quote(path), "uriBaseId": SRCROOT}}
    if cell is None:
        region: dict[str, int] = {"startLine": max(line, 1)}
        if col is not None:
            region["startColumn"] = max(col, 1)
        physical["region"] = region
    return {"physicalLocation": physical}


def _where(cell: int | None, line: int) -> str:
    return "" if cell is None else f"cell {cell}, line {line}: "


def _result(
    code: str, level: str, text: str, path: str, line: int, col: int | None, cell: int | None
) -> dict[str, Any]:
    found: dict[str, Any] = {
        "ruleId": code,
        "level": level,
        "message": {"text": _where(cell, line) + text},
        "locations": [_location(path, line, col, cell)],
    }
    if cell is not None:
        found["properties"] = {"cell": cell, "cellLine": line}
    return found


def as_sarif(info: Any, summary: RunSummary) -> str:
    from pathlib import Path

    from migrator.engine import registry

    loaded = registry.load()
    results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for result in summary.results:
        if result.status is Status.FAILED:
            notifications.append({
                "level": "error",
                "message": {"text": f"{result.path}: {result.error}"},
                "locations": [_location(result.path, 1, None, None)],
            })  # fmt: skip
        for warning in result.warnings:
            text = warning.message + (f" ({warning.suggestion})" if warning.suggestion else "")
            results.append(
                _result(warning.code, "warning", text, warning.path, warning.line, warning.col,
                        warning.cell)
            )  # fmt: skip
        for change in result.changes:
            if change.review:
                results.append(
                    _result(change.code, "note", f"needs review: {change.message}", change.path,
                            change.line, change.col, change.cell)
                )  # fmt: skip
        for item in result.suppressed:
            found = _result(
                item.code, "note", f"{item.code} skipped by a migrate: ignore comment",
                item.path, item.line, None, item.cell,
            )  # fmt: skip
            found["suppressions"] = [{"kind": "inSource"}]
            results.append(found)
    rules = []
    for code in sorted({result["ruleId"] for result in results}):
        rule = loaded.by_code(code)
        if rule is None:
            continue
        rules.append({
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.explain().split("\n\n", 1)[0]},
            "help": {"text": rule.explain()},
        })  # fmt: skip
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "npu-migrator",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/npu-migrator/",
                        "rules": rules,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not notifications,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "originalUriBaseIds": {SRCROOT: {"uri": Path(info.root).as_uri() + "/"}},
                "columnKind": "unicodeCodePoints",
                "properties": {
                    "targetRelease": {"torchNpu": info.torch_npu, "reason": info.torch_npu_reason}
                },
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"
