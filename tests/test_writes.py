"""Writing a run's results: all files or none, never over a concurrent edit.

Faults are injected (a write that fails on the Nth file, a rename that fails half way, a
file edited between the read and the write), so no real full disk is needed.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from migrator import cli
from migrator.engine import session, writes
from tests.helpers import AUTOCAST, MIGRATED, commit_all, git_repo, invoke

NAMES = ("a.py", "pkg/b.py", "pkg/sub/c.py", "d.py")


def tree(root: Path) -> dict[str, bytes]:
    for name in NAMES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(AUTOCAST)
    (root / "notes.txt").write_text("not code\n")
    return snapshot(root)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def fail_on_call(n: int, error: BaseException, real: Callable[..., Any]) -> Callable[..., Any]:
    calls = [0]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == n:
            raise error
        return real(*args, **kwargs)

    return wrapper


def test_a_full_disk_half_way_through_leaves_every_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(tmp_path)
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(writes, "write_fd", fail_on_call(3, full, writes.write_fd))
    result = invoke(str(tmp_path), "--allow-no-vcs")
    assert result.exit_code == cli.EXIT_WRITE
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "No space left on device" in errors[0], result.stderr
    assert "nothing was written" in errors[0]
    assert (
        "5 files scanned, 4 files would change, 1 file would be created"
        in result.stderr.splitlines()[-1]
    )
    assert snapshot(tmp_path) == before, "every file old, no temporary left"


def test_a_rename_failing_half_way_puts_the_renamed_files_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(tmp_path)
    denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(tmp_path / "d.py"))
    monkeypatch.setattr(writes.os, "replace", fail_on_call(3, denied, os.replace))
    result = invoke(str(tmp_path), "--allow-no-vcs")
    assert result.exit_code == cli.EXIT_WRITE, result.stderr
    assert "d.py: Permission denied; nothing was written" in result.stderr
    assert snapshot(tmp_path) == before


def test_a_read_only_folder_is_one_line_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Root ignores permission bits, so the refusal a read-only folder gives is injected.
    before = tree(tmp_path)
    real = writes.open_temp

    def read_only(path: Path, mode: int = 0o600) -> tuple[int, Path]:
        if path.parent.name == "sub":
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path, mode)

    monkeypatch.setattr(writes, "open_temp", read_only)
    result = invoke(str(tmp_path), "--allow-no-vcs")
    assert result.exit_code == cli.EXIT_WRITE
    assert "c.py: Permission denied" in result.stderr
    assert snapshot(tmp_path) == before


def test_an_unwritable_report_path_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    before = tree(root)
    (tmp_path / "a-file").write_text("")
    result = invoke(str(root), "--allow-no-vcs", "--report", str(tmp_path / "a-file" / "r.json"))
    assert result.exit_code == cli.EXIT_WRITE
    assert "error: could not write the report" in result.stderr
    assert "Not a directory" in result.stderr
    assert "files scanned" in result.stderr.splitlines()[-1], "the summary is still printed"
    assert snapshot(root) == before


def test_a_file_edited_during_the_run_is_left_and_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree(tmp_path)
    edited = "# edited by a person while migrate ran\n" + AUTOCAST
    real = session.write_in_place

    def racing(root: Path, results: Any) -> Any:
        (tmp_path / "pkg" / "b.py").write_text(edited)
        return real(root, results)

    monkeypatch.setattr(session, "write_in_place", racing)
    result = invoke(str(tmp_path), "--allow-no-vcs")
    assert result.exit_code == cli.EXIT_ERROR
    assert "pkg/b.py: changed by another process during the run" in result.stderr
    assert (tmp_path / "pkg" / "b.py").read_text() == edited, "the edit is not lost"
    assert (tmp_path / "a.py").read_text() == MIGRATED
    assert "3 files changed" in result.stderr and "1 file failed" in result.stderr


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(tmp_path: Path) -> None:
    target = tmp_path / "a.py"
    target.write_text(AUTOCAST)
    seen = os.stat(target)
    other = AUTOCAST.replace("step", "pets").encode()
    target.write_bytes(other)
    os.utime(target, ns=(seen.st_atime_ns, seen.st_mtime_ns))
    write = writes.Write(
        "a.py", MIGRATED.encode(), AUTOCAST.encode(), (seen.st_size, seen.st_mtime_ns)
    )
    outcome = writes.commit(tmp_path, [write])
    assert outcome.left == {"a.py": writes.CHANGED_DURING_RUN}
    assert target.read_bytes() == other
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py"]


def test_out_on_a_full_disk_leaves_out_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    before = tree(root)
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(shutil, "copyfile", fail_on_call(1, full, shutil.copyfile))
    out = tmp_path / "out"
    result = invoke(str(root), "--out", str(out))
    assert result.exit_code == cli.EXIT_WRITE
    assert "could not write --out" in result.stderr and "No space left" in result.stderr
    assert not out.exists(), "no truncated copy is left"
    assert snapshot(root) == before


def test_out_copies_through_temporaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "p"
    root.mkdir()
    tree(root)
    out = tmp_path / "out"
    out.mkdir()
    written: list[str] = []
    real = writes.os.replace

    def seen(source: Any, target: Any) -> None:
        written.append(Path(source).name)
        real(source, target)

    monkeypatch.setattr(writes.os, "replace", seen)
    assert invoke(str(root), "--out", str(out)).exit_code == 0
    # Five files of the tree and the generic profile's NPU_MIGRATION.md.
    assert len(written) == 6 and all(name.endswith(".migrate-tmp") for name in written)
    assert (out / "a.py").read_text() == MIGRATED
    assert (out / "notes.txt").read_text() == "not code\n"


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_owner_group_and_mode_are_kept_when_root_rewrites(tmp_path: Path) -> None:
    file = tmp_path / "a.py"
    file.write_text(AUTOCAST)
    os.chown(file, 12345, 23456)
    file.chmod(0o640)
    assert invoke(str(tmp_path), "--allow-no-vcs").exit_code == 0
    after = file.stat()
    assert (after.st_uid, after.st_gid, after.st_mode & 0o7777) == (12345, 23456, 0o640)
    assert file.read_text() == MIGRATED


def test_a_split_hard_link_is_named_in_the_output_and_the_report(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    file = root / "a.py"
    file.write_text(AUTOCAST)
    os.link(file, tmp_path / "elsewhere.py")
    report = tmp_path / "r.json"
    result = invoke(str(root), "--allow-no-vcs", "--report", str(report))
    assert result.exit_code == 0
    assert "a.py: had 1 other hard link(s); the link was split" in result.stderr
    notes = json.loads(report.read_text())["files"][0]["notes"]
    assert any("the link was split" in note for note in notes)
    assert (tmp_path / "elsewhere.py").read_text() == AUTOCAST
    assert file.read_text() == MIGRATED


def test_a_tracked_folder_swapped_for_a_link_out_of_path_is_not_written_through(
    tmp_path: Path,
) -> None:
    root = git_repo(tmp_path / "repo")
    (root / "pkg").mkdir()
    (root / "pkg" / "m.py").write_text(AUTOCAST)
    (root / "own.py").write_text(AUTOCAST)
    commit_all(root)
    outside = tmp_path / "outside"
    (root / "pkg").rename(outside)
    os.symlink(outside, root / "pkg")
    result = invoke(str(root), "--allow-dirty", "--verbose")
    assert result.exit_code == 0, result.stderr
    assert (outside / "m.py").read_text() == AUTOCAST
    assert (root / "own.py").read_text() == MIGRATED
    assert "pkg/m.py: skipped (inside a symbolic link to a folder" in result.stderr


def test_a_write_never_goes_through_a_folder_that_leads_out(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "m.py").write_text(AUTOCAST)
    outside = tmp_path / "outside"
    (root / "pkg").rename(outside)
    os.symlink(outside, root / "pkg")
    write = writes.Write("pkg/m.py", MIGRATED.encode(), AUTOCAST.encode())
    outcome = writes.commit(root, [write])
    assert "leads out of PATH" in outcome.left["pkg/m.py"]
    assert (outside / "m.py").read_text() == AUTOCAST


def test_a_path_git_ignores_is_not_treated_as_committed(tmp_path: Path) -> None:
    root = git_repo(tmp_path / "repo")
    (root / ".gitignore").write_text("vendor/\n")
    (root / "vendor").mkdir()
    (root / "vendor" / "m.py").write_text(AUTOCAST)
    commit_all(root)
    refused = invoke(str(root / "vendor"))
    assert refused.exit_code == 2
    assert "refusing to rewrite 1 file(s) that git ignores" in refused.stderr
    assert (root / "vendor" / "m.py").read_text() == AUTOCAST
    assert invoke(str(root / "vendor" / "m.py")).exit_code == 2, "a single ignored file too"
    assert invoke(str(root / "vendor"), "--allow-dirty").exit_code == 0
    assert (root / "vendor" / "m.py").read_text() == MIGRATED


def test_a_bug_in_the_tool_is_one_line_and_exit_70(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = tree(tmp_path)

    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(session, "settle", broken)
    result = invoke(str(tmp_path), "--ignore", "NPU094", "--allow-no-vcs")
    assert result.exit_code == cli.EXIT_INTERNAL
    assert result.stderr.splitlines()[-1].startswith("error: internal error (RuntimeError: boom)")
    assert "Traceback" not in result.stderr
    assert (
        "Traceback"
        in invoke(str(tmp_path), "--allow-no-vcs", "--verbose", "--ignore", "NPU094").stderr
    )
    assert set(snapshot(tmp_path)) == set(before), "no temporary left"
