"""What the walk leaves out is said, path by path, and `--out` copies the rest of the tree.

`--out` copies the project's files and the symbolic links that stay inside the tree (as
links); every other path it leaves out (build output, package metadata, caches, links out
of PATH, FIFOs, git-ignored paths, submodules) is counted in the summary and listed with
`--verbose` and in the report.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import AUTOCAST, MIGRATED, commit_all, git, git_repo, invoke


def skipped_lines(stderr: str) -> dict[str, str]:
    found = {}
    for line in stderr.splitlines():
        if ": skipped (" in line:
            path, _, reason = line.partition(": skipped (")
            found[path.rsplit("/p/", 1)[-1].rsplit("/repo/", 1)[-1]] = reason.rstrip(")")
    return found


def test_out_copies_links_inside_the_tree_and_lists_every_path_it_leaves_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tree is in no git repository, even where the temporary folder lies in one.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "p"
    for folder in ("src", "build", "pkg/dist", "x.egg-info", "__pycache__"):
        (root / folder).mkdir(parents=True)
        (root / folder / "m.py").write_text(AUTOCAST)
    os.symlink("src/m.py", root / "alias.py")
    os.symlink(root / "src", root / "src_link")
    (tmp_path / "outside.py").write_text(AUTOCAST)
    os.symlink(tmp_path / "outside.py", root / "out_link.py")
    os.mkfifo(root / "pipe")
    out = tmp_path / "out"
    result = invoke(str(root), "--out", str(out), "--verbose")
    assert result.exit_code == 0, result.stderr
    assert (out / "src" / "m.py").read_text() == MIGRATED
    assert os.readlink(out / "alias.py") == "src/m.py"
    assert os.readlink(out / "src_link") == "src", "an absolute link into the tree is made relative"
    assert (out / "alias.py").read_text() == MIGRATED, "the copied link points into the copy"
    assert sorted(skipped_lines(result.stderr)) == [
        "__pycache__", "build", "out_link.py", "pipe", "pkg/dist", "x.egg-info",
    ]  # fmt: skip
    assert "6 paths skipped" in result.stderr.splitlines()[-1]
    assert not (out / "pipe").exists() and not (out / "out_link.py").exists()


def test_submodules_and_ignored_paths_are_listed_as_skipped(tmp_path: Path) -> None:
    sub = git_repo(tmp_path / "sub")
    (sub / "k.py").write_text(AUTOCAST)
    commit_all(sub)
    root = git_repo(tmp_path / "repo")
    (root / ".gitignore").write_text("generated/\n")
    (root / "generated").mkdir()
    (root / "generated" / "g.py").write_text(AUTOCAST)
    (root / "main.py").write_text(AUTOCAST)
    subprocess.run(
        ["git", "-C", str(root), "-c", "protocol.file.allow=always", "submodule", "add", "-q",
         str(sub), "vendor/sub"],
        check=True, capture_output=True,
    )  # fmt: skip
    commit_all(root)
    result = invoke(str(root), "--check", "--verbose", "--ignore", "NPU094")
    assert result.exit_code == 1
    assert skipped_lines(result.stderr) == {
        "generated": "ignored by git",
        "vendor/sub": "git submodule or nested repository, not migrated",
    }
    assert "2 paths skipped" in result.stderr.splitlines()[-1]
    assert "1 file scanned" in result.stderr
    assert git(root, "status", "--porcelain") == ""


def test_a_folder_git_ignores_is_walked_when_named_and_git_lists_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from migrator.engine.walk import walk

    # git looks for no repository above the test's folder (a temporary folder may lie in one).
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = git_repo(tmp_path / "repo")
    (root / ".gitignore").write_text("vendor/\n*.log\n")
    (root / "vendor" / "deep").mkdir(parents=True)
    (root / "vendor" / "deep" / "v.py").write_text(AUTOCAST)
    (root / "vendor" / "run.log").write_text("x\n")
    (root / "main.py").write_text(AUTOCAST)
    (root / "note.log").write_text("x\n")
    commit_all(root)
    (root / "untracked.py").write_text(AUTOCAST)
    listed = walk(root)
    assert listed.in_git
    assert listed.files == [".gitignore", "main.py", "untracked.py"]
    assert sorted(item.path for item in listed.skipped) == ["note.log", "vendor"]
    # Named itself, the ignored folder is walked as a plain folder: its .gitignore'd
    # names are no longer git's to leave out.
    named = walk(root / "vendor")
    assert not named.in_git
    assert sorted(named.files) == ["deep/v.py", "run.log"]
    plain = tmp_path / "plain"
    (plain / "pkg").mkdir(parents=True)
    (plain / "pkg" / "m.py").write_text(AUTOCAST)
    outside = walk(plain)
    assert not outside.in_git
    assert outside.files == ["pkg/m.py"]
