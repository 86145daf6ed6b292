"""A run that writes nothing (--check, --dry-run, a refused run) says what *would* change,
in every output: the console, the machine formats on stdout and the reports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from migrator import cli
from tests.helpers import installed_migrate, invoke, run_installed

FIXTURE = Path(__file__).parent / "fixtures" / "report_run"


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    shutil.copytree(FIXTURE, root)
    return root


@pytest.mark.parametrize("mode", ["--check", "--dry-run"])
def test_the_console_and_the_reports_say_would(tmp_path: Path, mode: str) -> None:
    root = _project(tmp_path)
    md, js = tmp_path / "report.md", tmp_path / "report.json"
    result = invoke(str(root), mode, "--report", str(md))
    assert result.exit_code == cli.EXIT_PENDING, result.output
    assert invoke(str(root), mode, "--report", str(js)).exit_code == cli.EXIT_PENDING
    lines = result.stderr.splitlines()
    assert "4 files would change, 1 file would be created" in lines[-1]
    assert "NPU_MIGRATION.md: would be created" in result.stderr
    assert not any(line.endswith(": created") for line in lines)
    markdown = md.read_text(encoding="utf-8")
    assert "**Summary:** 6 files scanned, 4 files would change, 1 file would be created" in (
        markdown
    )
    assert "## Every edit the run would make" in markdown
    assert "## Files the run would create" in markdown
    assert "| would edit: " in markdown and "| edited: " not in markdown
    assert "files changed" not in markdown and "## Files created" not in markdown
    report = json.loads(js.read_text(encoding="utf-8"))
    assert report["summary"]["written"] is False
    assert report["summary"]["line"] == lines[-1]
    statuses = {file["status"] for file in report["files"]}
    assert statuses == {"would change", "would be created", "unchanged"}


def test_a_run_that_writes_says_done(tmp_path: Path) -> None:
    root = _project(tmp_path)
    md, js = tmp_path / "report.md", tmp_path / "report.json"
    result = invoke(str(root), "--allow-no-vcs", "--report", str(md))
    assert result.exit_code == cli.EXIT_OK, result.output
    assert "4 files changed, 1 file created" in result.stderr.splitlines()[-1]
    assert "NPU_MIGRATION.md: created" in result.stderr
    markdown = md.read_text(encoding="utf-8")
    assert "## Every edit\n" in markdown and "| edited: " in markdown
    again = _project(tmp_path / "again")
    invoke(str(again), "--allow-no-vcs", "--report", str(js))
    report = json.loads(js.read_text(encoding="utf-8"))
    assert report["summary"]["written"] is True
    assert {file["status"] for file in report["files"]} == {"changed", "created", "unchanged"}


@pytest.mark.parametrize("fmt", ["json", "json-lines"])
def test_machine_formats_fix_nothing_in_a_check(tmp_path: Path, fmt: str) -> None:
    root = _project(tmp_path)
    checked = invoke(str(root), "--check", "--output-format", fmt)
    edits = [r for r in _records(checked.stdout, fmt) if r["kind"] == "edit"]
    assert edits and not any(record["fixed"] for record in edits)
    assert all(record["fix"]["edits"] for record in edits if record["cell"] is None)
    written = invoke(str(root), "--allow-no-vcs", "--output-format", fmt)
    edits = [r for r in _records(written.stdout, fmt) if r["kind"] == "edit"]
    assert edits and all(record["fixed"] for record in edits)


def _records(stdout: str, fmt: str) -> list[dict[str, object]]:
    if fmt == "json":
        found: list[dict[str, object]] = json.loads(stdout)
        return found
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.mark.parametrize("fmt", ["github", "sarif"])
def test_the_other_formats_have_no_past_tense_of_their_own(tmp_path: Path, fmt: str) -> None:
    root = _project(tmp_path)
    text = invoke(str(root), "--check", "--output-format", fmt).stdout
    assert text
    if fmt == "sarif":
        # The rules' help texts are documentation; the results are what this run says.
        text = json.dumps(json.loads(text)["runs"][0]["results"])
    for word in ("fixed", "edited:", "changed", "created"):
        assert word not in text, word


def test_a_refused_run_lists_its_new_files_as_pending(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = invoke(str(root))
    assert result.exit_code == cli.EXIT_ERROR
    assert "refusing to rewrite" in result.stderr and "--allow-no-vcs" in result.stderr
    assert "NPU_MIGRATION.md: would be created" in result.stderr
    assert "would change" in result.stderr.splitlines()[-1]


def test_the_installed_command_says_would_too(tmp_path: Path) -> None:
    if installed_migrate() is None:
        pytest.skip("the migrate command is not installed")
    root = _project(tmp_path)
    report = tmp_path / "report.json"
    done = run_installed(str(root), "--check", "--report", str(report))
    assert done.returncode == cli.EXIT_PENDING, done.stderr
    assert "would be created" in done.stderr
    assert json.loads(report.read_text(encoding="utf-8"))["summary"]["written"] is False
