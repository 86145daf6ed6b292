"""Fault injection in real processes: a kill while writing, then a rerun.

Each case runs `migrate` in a child process whose `os.replace` sends the process a signal
half way through the renames, so the kill lands at the worst moment every time. After it,
every file must be old or new and nothing else may be left (a SIGKILL cannot be handled:
its temporaries are left, and the next run removes them).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from migrator.formats.sources import host_name
from tests.helpers import AUTOCAST, MIGRATED, invoke

NAMES = [f"m{i}.py" for i in range(6)]
KILLER = """
import os, signal, sys
from migrator.engine import writes
from migrator.cli import main
real, calls, signum = os.replace, [0], int(sys.argv[1])
def replace(a, b):
    calls[0] += 1
    if calls[0] == 3:
        os.kill(os.getpid(), signum)
    real(a, b)
writes.os.replace = replace
sys.argv = ["migrate", sys.argv[2], "--jobs", "1", "--ignore", "NPU094", "--allow-no-vcs"]
main()
"""


def project(root: Path) -> None:
    root.mkdir()
    for name in NAMES:
        (root / name).write_text(AUTOCAST)


def kill_half_way(root: Path, signum: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", KILLER, str(int(signum)), str(root)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def contents(root: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in root.iterdir()}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_writing_puts_every_file_back(tmp_path: Path, signum: int) -> None:
    root = tmp_path / "p"
    project(root)
    done = kill_half_way(root, signum)
    assert done.returncode == 128 + signum, done.stderr
    assert f"interrupted by {signal.Signals(signum).name}" in done.stderr
    assert "Traceback" not in done.stderr
    assert contents(root) == dict.fromkeys(NAMES, AUTOCAST), "all old, nothing else left"


def test_a_sigkill_leaves_old_or_new_files_and_the_rerun_removes_its_temporaries(
    tmp_path: Path,
) -> None:
    root = tmp_path / "p"
    project(root)
    done = kill_half_way(root, signal.SIGKILL)
    assert done.returncode == -signal.SIGKILL
    found = contents(root)
    assert all(found[name] in (AUTOCAST, MIGRATED) for name in NAMES)
    assert MIGRATED in found.values(), "the kill landed half way"
    leftovers = sorted(set(found) - set(NAMES))
    assert leftovers and all(name.endswith(".migrate-tmp") for name in leftovers)
    assert all(f".{host_name()}." in name for name in leftovers), leftovers

    rerun = invoke(str(root), "--ignore", "NPU094", "--allow-no-vcs")
    assert rerun.exit_code == 0, rerun.stderr
    assert "left by a migrate that was killed removed" in rerun.stderr
    assert contents(root) == dict.fromkeys(NAMES, MIGRATED)


def dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return int(child.stdout)


def test_a_running_migrates_temporaries_are_left_and_none_are_copied(tmp_path: Path) -> None:
    root = tmp_path / "p"
    project(root)
    stale = root / f".m0.py.{host_name()}.{dead_pid()}.0123abcd.migrate-tmp"
    live = root / f".m1.py.{host_name()}.{os.getpid()}.0123abcd.migrate-tmp"
    stale.write_text("half")
    live.write_text("being written")
    out = tmp_path / "out"
    copied = invoke(str(root), "--out", str(out), "--ignore", "NPU094")
    assert copied.exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == NAMES, "--out never copies temporaries"
    assert stale.exists(), "--out does not touch PATH"
    result = invoke(str(root), "--allow-no-vcs")
    assert result.exit_code == 0
    assert not stale.exists() and live.exists()
    assert "1 file of a migrate still running (or on another host) left alone" in result.stderr
