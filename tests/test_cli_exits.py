"""Exit codes and the lines that explain them: usage errors, refusals, internal errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from migrator import cli
from migrator.engine import session
from tests.helpers import (
    AUTOCAST,
    MIGRATED,
    commit_all,
    git_repo,
    installed_migrate,
    invoke,
    run_installed,
)


def project(folder: Path) -> Path:
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "train.py").write_text(AUTOCAST)
    return folder


def test_a_report_path_that_is_a_folder_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    (tmp_path / "reports").mkdir()
    result = invoke(str(root), "--check", "--report", str(tmp_path / "reports"))
    assert result.exit_code == cli.EXIT_ERROR
    lines = result.stderr.splitlines()
    assert [line for line in lines if line.startswith("error:")] == [
        f"error: --report {tmp_path / 'reports'}: is a folder; name a file (.json, .md or .sarif)"
    ]
    assert "Traceback" not in result.stderr


def test_usage_errors_name_the_command_as_typed(tmp_path: Path) -> None:
    result = invoke(str(tmp_path), "--bogus")
    assert result.exit_code == cli.EXIT_ERROR
    assert result.stderr.splitlines()[0].startswith("error: No such option '--bogus'")
    assert "Try 'migrate --help' for help." in result.stderr
    assert "migrate migrate" not in result.stderr


def test_quiet_and_verbose_together_are_a_usage_error(tmp_path: Path) -> None:
    result = invoke(str(tmp_path), "-q", "-v")
    assert result.exit_code == cli.EXIT_ERROR
    assert "error: choose one of --quiet and --verbose" in result.stderr


def test_a_crashing_step_names_the_step_and_exits_70(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "p")

    def broken(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(session, "write_in_place", broken)
    result = invoke(str(root), "--allow-no-vcs")
    assert result.exit_code == cli.EXIT_INTERNAL
    last = result.stderr.splitlines()[-1]
    assert last.startswith("error: internal error (RuntimeError: boom) while writing 2 files;")
    assert (root / "pkg" / "train.py").read_text() == AUTOCAST


def test_a_file_the_engine_crashes_on_is_named_and_the_run_exits_70(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from migrator.engine import files

    root = project(tmp_path / "p")

    def broken(*_: object, **__: object) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(files, "migrate_python", broken)
    result = invoke(str(root), "--check", "-j", "1", "--no-cache")
    assert result.exit_code == cli.EXIT_INTERNAL, "not 1 (pending) nor 2 (bad input)"
    assert "pkg/train.py: internal error (KeyError: 'boom')" in result.stderr
    assert "1 file failed" in result.stderr.splitlines()[-1]


def test_outside_git_a_rewrite_in_place_is_refused_unless_allow_no_vcs(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    refused = invoke(str(root))
    assert refused.exit_code == cli.EXIT_ERROR
    lines = refused.stderr.splitlines()
    assert lines[0].startswith("error: ")
    assert "refusing to rewrite 2 files in place outside a git work tree" in lines[0]
    assert "--allow-no-vcs" in lines[0]
    assert lines[1] == "nothing was written; the run would make these edits:"
    assert "train.py:5:10: NPU001 autocast device" in lines[2]
    assert lines[-1].startswith(
        "2 files scanned, 1 file would change, 1 file would be created, 1 edit"
    )
    assert (root / "pkg" / "train.py").read_text() == AUTOCAST
    allowed = invoke(str(root), "--allow-no-vcs")
    assert allowed.exit_code == cli.EXIT_OK
    assert (root / "pkg" / "train.py").read_text() == MIGRATED
    assert allowed.stderr.splitlines()[-1].startswith(
        "2 files scanned, 1 file changed, 1 file created"
    )


def test_outside_git_a_run_with_nothing_to_write_is_not_refused(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("x = 1\n")
    assert invoke(str(tmp_path)).exit_code == cli.EXIT_OK


def test_a_dirty_tree_refusal_comes_first_then_the_pending_edits_then_the_summary(
    tmp_path: Path,
) -> None:
    root = project(git_repo(tmp_path / "repo"))
    commit_all(root)
    (root / "pkg" / "train.py").write_text(AUTOCAST + "# edited\n")
    result = invoke(str(root))
    assert result.exit_code == cli.EXIT_ERROR
    lines = result.stderr.splitlines()
    assert "refusing to rewrite 1 file(s) with uncommitted changes" in lines[0]
    assert lines[1] == "nothing was written; the run would make these edits:"
    assert lines[-1].startswith("2 files scanned, 1 file would change, 1 file would be created")
    committed = project(git_repo(tmp_path / "clean"))
    commit_all(committed)
    assert invoke(str(committed)).exit_code == cli.EXIT_OK, "inside git in place stays the default"
    assert (committed / "pkg" / "train.py").read_text() == MIGRATED


def test_check_and_dry_run_say_would_change(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    for mode in ("--check", "--dry-run"):
        result = invoke(str(root), mode)
        assert result.exit_code == cli.EXIT_PENDING
        assert (
            "1 file would change, 1 file would be created, 1 edit" in result.stderr.splitlines()[-1]
        )


@pytest.mark.skipif(installed_migrate() is None, reason="the console script is not installed")
def test_the_installed_command_refuses_outside_git_and_crashes_never_exit_1(
    tmp_path: Path,
) -> None:
    root = project(tmp_path / "p")
    (tmp_path / "reports").mkdir()
    run = run_installed
    bad = run(str(root), "--report", str(tmp_path / "reports"))
    assert bad.returncode == 2 and bad.stderr.startswith("error: --report")
    refused = run(str(root))
    assert refused.returncode == 2 and "--allow-no-vcs" in refused.stderr
    assert refused.stderr.splitlines()[-1].startswith(
        "2 files scanned, 1 file would change, 1 file would be created"
    )
    usage = run(str(root), "-q", "-v")
    assert usage.returncode == 2 and "Try 'migrate --help' for help." in usage.stderr
