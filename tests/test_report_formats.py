"""The reports of one fixed run, byte for byte: JSON, SARIF, Markdown and the console.

A guard for changes to how findings travel from the rules to the reports: the fixture
project (`tests/fixtures/report_run`) has edits, edits needing review, warnings,
suppressed sites, an unused suppression, a notebook, shell, requirements and CUDA source
files. Regenerate the expected files with `--update-golden` only when the report is
meant to change, and review the diff.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import invoke

FIXTURE = Path(__file__).parent / "fixtures" / "report_run"
EXPECTED = Path(__file__).parent / "fixtures" / "report_run.expected"


def _normalized(name: str, text: str, root: Path) -> str:
    text = text.replace(str(root), "<root>")
    if name == "report.sarif":
        # Rule descriptions are the rules' docstrings, which change with the rules.
        data = json.loads(text)
        for run in data["runs"]:
            driver = run["tool"]["driver"]
            driver["rules"] = [rule["id"] for rule in driver["rules"]]
            driver["version"] = "<version>"
            # The README beside the package: a file URI of this checkout.
            if "informationUri" in driver:
                driver["informationUri"] = "<readme>"
        return json.dumps(data, indent=2) + "\n"
    if name == "report.json":
        data = json.loads(text)
        data["version"] = "<version>"
        return json.dumps(data, indent=2) + "\n"
    if name == "report.md":
        # The first paragraph names the tool's version.
        return text.partition("\n\n")[2]
    return text


@pytest.mark.parametrize("name", ["report.json", "report.sarif", "report.md"])
def test_report_of_a_fixed_run_is_unchanged(tmp_path: Path, name: str, update_golden: bool) -> None:
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root)
    report = tmp_path / name
    result = invoke(str(root), "--dry-run", "--no-cache", "-j1", "-v", "--report", str(report))
    assert result.exit_code == 1, result.output
    found = {
        name: _normalized(name, report.read_text(encoding="utf-8"), root),
        "console.txt": _normalized("console.txt", result.output, root),
    }
    for file, text in found.items():
        expected = EXPECTED / file
        if update_golden:
            EXPECTED.mkdir(exist_ok=True)
            expected.write_text(text, encoding="utf-8")
        assert text == expected.read_text(encoding="utf-8"), file
