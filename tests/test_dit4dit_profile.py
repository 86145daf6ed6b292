"""The dit4dit profile end to end: DiT4DiT-shaped projects migrated through the CLI.

Every folder `tests/fixtures/dit4dit_*` is migrated with
`migrate <fixture> --profile dit4dit --out <tmp> --report <tmp>/report.json`. The written tree
must equal `tests/golden_trees/<name>/` byte for byte and the report lines must equal
`tests/golden_trees/<name>.changes`. After a rule change (or when rules land on main),
regenerate both with one command and review the diff in git:

    python -m pytest tests/test_dit4dit_profile.py --update-golden

`dit4dit_project` has every construct the profile migrates; `dit4dit_moved` is the same
project after upstream moved on (renamed methods, already-fixed code), where the DiT4DiT
rules must warn and change nothing of their own.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from migrator.core.model import Finding, Kind
from tests.helpers import invoke

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
TREES = HERE / "golden_trees"
PROJECTS = sorted(path.name for path in FIXTURES.glob("dit4dit_*") if path.is_dir())


@dataclass(frozen=True)
class Migrated:
    out: Path
    report: dict[str, Any]
    exit_code: int
    output: str


def _migrate(source: Path, work: Path, *flags: str) -> Migrated:
    out = work / "out"
    report = work / "report.json"
    result = invoke(
        str(source), "--profile", "dit4dit", "--out", str(out), "--report", str(report), *flags
    )
    return Migrated(out, json.loads(report.read_text()), result.exit_code, result.output)


def _report_lines(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for item in report["files"]:
        lines += [Finding.from_dict(change, Kind.EDIT).format() for change in item["changes"]]
        lines += [Finding.from_dict(warning, Kind.WARNING).format() for warning in item["warnings"]]
        lines += [
            Finding.from_dict(entry, Kind.SUPPRESSED).format() for entry in item["suppressed"]
        ]
        if item["error"]:
            lines.append(f"{item['path']}: error: {item['error']}")
    return lines


def _tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module", params=PROJECTS)
def migrated(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Migrated]:
    name: str = request.param
    work = tmp_path_factory.mktemp(name)
    return name, _migrate(FIXTURES / name, work, "--jobs", "1")


def test_there_are_fixture_projects() -> None:
    assert "dit4dit_project" in PROJECTS and "dit4dit_moved" in PROJECTS


def test_profile_output_equals_golden_tree(
    migrated: tuple[str, Migrated], update_golden: bool
) -> None:
    name, run = migrated
    assert run.exit_code == 0, run.output
    assert run.report["run"]["profile"] == "dit4dit"
    lines = _report_lines(run.report)
    golden = TREES / name
    changes = TREES / f"{name}.changes"
    if update_golden:
        shutil.rmtree(golden, ignore_errors=True)
        shutil.copytree(run.out, golden)
        changes.write_text("".join(f"{line}\n" for line in lines))
    assert golden.is_dir(), f"no golden tree for {name}: run with --update-golden"
    expected = _tree(golden)
    actual = _tree(run.out)
    assert sorted(actual) == sorted(expected), f"{name}: the migrated tree has other files"
    for rel, data in expected.items():
        assert actual[rel] == data, f"{name}: {rel} differs from the golden tree"
    assert lines == changes.read_text().splitlines(), f"{name}: the report differs"


def test_second_run_changes_nothing(migrated: tuple[str, Migrated], tmp_path: Path) -> None:
    _, run = migrated
    again = _migrate(run.out, tmp_path, "--jobs", "1")
    assert again.exit_code == 0, again.output
    summary = again.report["summary"]
    assert summary["edits"] == 0, _report_lines(again.report)
    assert summary["files_changed"] == 0 and summary["files_created"] == 0
    assert _tree(again.out) == _tree(run.out)

    # The migrated tree, generated files included, raises no warning the source did not.
    # (Line numbers move where the first run removed lines, so they are left out.)
    def warnings(report: dict[str, Any]) -> set[str]:
        return {
            re.sub(r":\d+:\d+:", ":", line)
            for line in _report_lines(report)
            if " warning: " in line
        }

    first, second = warnings(run.report), warnings(again.report)
    assert second <= first, sorted(second - first)


def test_every_migrated_python_file_parses(migrated: tuple[str, Migrated]) -> None:
    name, run = migrated
    sources = sorted(run.out.rglob("*.py"))
    assert sources, f"{name}: no Python files were written"
    for path in sources:
        text = path.read_text(encoding="utf-8")
        ast.parse(text, filename=str(path))
        cst.parse_module(text)


def test_auto_profile_picks_dit4dit(tmp_path: Path) -> None:
    result = invoke(
        str(FIXTURES / "dit4dit_project"), "--dry-run", "--report", str(tmp_path / "r.json")
    )
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["run"]["profile"] == "dit4dit"
    assert any(code.startswith("DIT") for code in report["run"]["rules"])


def test_moved_upstream_gets_warnings_not_edits(tmp_path: Path) -> None:
    run = _migrate(FIXTURES / "dit4dit_moved", tmp_path, "--jobs", "1")
    # Rule lines only: the generated files (steps DIT090-DIT099) are created either way.
    profile_lines = [
        line for line in _report_lines(run.report) if ": DIT" in line and ": DIT09" not in line
    ]
    edits = [line for line in profile_lines if " warning: " not in line]
    warned = {line.split(": ", 2)[1].split()[0] for line in profile_lines if " warning: " in line}
    assert not edits, edits
    assert {"DIT002", "DIT003", "DIT004", "DIT012"} <= warned


def test_requirements_txt_is_left_alone_where_the_profile_writes_its_own(
    migrated: tuple[str, Migrated],
) -> None:
    """requirements-npu.txt is the Ascend host's file: requirements.txt stays the CUDA lock
    it was, not half of each (NPU102 is left out of the dit4dit profile)."""
    name, result = migrated
    source = FIXTURES / name / "requirements.txt"
    if not source.exists():
        pytest.skip("no requirements.txt in this fixture")
    assert (result.out / "requirements.txt").read_bytes() == source.read_bytes()
    assert not any(
        line.split(":", 1)[0] == "requirements.txt" and " NPU102 " in line
        for line in _report_lines(result.report)
    )
