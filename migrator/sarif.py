"""SARIF 2.1.0 output, so code-scanning views show warnings and edits needing review."""

from __future__ import annotations

import json
from typing import Any

from migrator import __version__
from migrator.model import RunSummary

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _location(path: str, line: int, col: int) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(line, 1), "startColumn": max(col, 1)},
        }
    }


def as_sarif(info: Any, summary: RunSummary) -> str:
    from migrator import registry

    loaded = registry.load()
    results: list[dict[str, Any]] = []
    used: set[str] = set()
    for result in summary.results:
        for warning in result.warnings:
            used.add(warning.code)
            text = warning.message + (f" ({warning.suggestion})" if warning.suggestion else "")
            results.append({
                "ruleId": warning.code,
                "level": "warning",
                "message": {"text": text},
                "locations": [_location(warning.path, warning.line, warning.col)],
            })  # fmt: skip
        for change in result.changes:
            if not change.review:
                continue
            used.add(change.code)
            results.append({
                "ruleId": change.code,
                "level": "note",
                "message": {"text": f"needs review: {change.message}"},
                "locations": [_location(change.path, change.line, change.col)],
            })  # fmt: skip
    rules = []
    for code in sorted(used):
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
                "originalUriBaseIds": {"%SRCROOT%": {"uri": f"file://{info.root}/"}},
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2) + "\n"
