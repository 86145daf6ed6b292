"""SARIF 2.1.0 output, so code-scanning views show warnings and edits needing review.

- Warnings are results of level "warning"; edits that need review are "note"s.
- Sites skipped by a `# migrate: ignore` comment are results with an `inSource`
  suppression, so viewers list them as suppressed instead of hiding them entirely.
- Files that failed are tool execution notifications, and the invocation is marked
  unsuccessful when any did.
- Columns count Unicode code points (`columnKind`), as the tool's own messages do.
- Warnings and edits needing review carry what a person must do as `properties.action`
  (`migrator.output.actions`), and each rule its declared action.
- Notebook sites carry their cell in the message and in `properties.cell`; their region is
  left out, because a cell's line is not a line of the .ipynb file.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from migrator import __version__
from migrator.core.model import Finding, RunSummary, Status
from migrator.output.actions import OTHER, action_of

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
    code: str, level: str, text: str, path: str, line: int, col: int | None, cell: int | None,
    action: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    found: dict[str, Any] = {
        "ruleId": code,
        "level": level,
        "message": {"text": _where(cell, line) + text},
        "locations": [_location(path, line, col, cell)],
    }
    properties: dict[str, Any] = {}
    if cell is not None:
        properties.update(cell=cell, cellLine=line)
    if action is not None:
        properties["action"] = action
    if properties:
        found["properties"] = properties
    return found


def _readme() -> tuple[str, str]:
    """The README beside the installed package (a checkout or an editable install) as a
    file URI, and its text; ("", "") when there is none (a wheel ships no README). The
    project has no published home, so links point only at what is there."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "README.md"
    try:
        return path.as_uri(), path.read_text(encoding="utf-8")
    except OSError:
        return "", ""


def _documented(readme: str, code: str) -> bool:
    """Whether the README has the rule's anchor (its row in the generated rule table)."""
    return f'<a id="{code.lower()}"></a>' in readme


def _action(finding: Finding) -> str:
    action = action_of(finding)
    return action.value if action is not None else OTHER


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
                        warning.cell, _action(warning))
            )  # fmt: skip
        for change in result.changes:
            if change.review:
                results.append(
                    _result(change.code, "note", f"needs review: {change.message}", change.path,
                            change.line, change.col, change.cell, _action(change))
                )  # fmt: skip
        for item in result.suppressed:
            found = _result(
                item.code, "note", f"{item.code} skipped by a migrate: ignore comment",
                item.path, item.line, None, item.cell,
            )  # fmt: skip
            found["suppressions"] = [{"kind": "inSource"}]
            results.append(found)
    readme, readme_text = _readme()
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
            "properties": {"action": getattr(rule, "action", OTHER)},
            **({"helpUri": f"{readme}#{code.lower()}"} if _documented(readme_text, code) else {}),
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
                        **({"informationUri": readme} if readme_text else {}),
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
