"""The pre-commit hook, installed the way users get it: `pre-commit try-repo` builds a fresh
virtual environment and pip-installs this repository into it (PyPI must be reachable)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import AUTOCAST, MIGRATED, commit_all, git_repo

ROOT = Path(__file__).resolve().parents[1]
# Creating the environment downloads and installs this project's dependencies.
TIMEOUT_S = 1800


def snapshot(folder: Path) -> Path:
    """This working tree (tracked and new files, as git lists them) as a one-commit repo:
    try-repo reads only committed files, and the test must see uncommitted work too."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    repo = git_repo(folder)
    for rel in filter(None, listed.split("\0")):
        source = ROOT / rel
        if source.is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, repo / rel)
    commit_all(repo)
    return repo


def try_repo(hooks: Path, repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks), "migrate-check",
         "--all-files", "--verbose"],
        cwd=repo, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, check=False,
    )  # fmt: skip


def test_hook_fails_on_cuda_code_and_passes_once_migrated(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    repo = git_repo(tmp_path / "user-project")
    (repo / "train.py").write_text(AUTOCAST)
    (repo / "README.md").write_text("notes\n")
    commit_all(repo)
    home = tmp_path / "pre-commit-home"
    hooks = snapshot(tmp_path / "npu-migrator")
    failing = try_repo(hooks, repo, home)
    output = failing.stdout + failing.stderr
    assert failing.returncode == 1, output
    assert "Failed" in output and "train.py:5:10: NPU001" in output
    assert (repo / "train.py").read_text() == AUTOCAST, "the hook only checks"
    (repo / "train.py").write_text(MIGRATED)
    commit_all(repo)
    passing = try_repo(hooks, repo, home)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    assert "Passed" in passing.stdout
