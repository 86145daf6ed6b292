"""Migrating imports none of the user's code, even packages named like the tool's own.

A project with `target_x/` (a would-be profile package) and `rules/` (the tool's generic
rule package's name) on the path, `PYTHONPATH=$(pwd)` as ML projects often set it: each
package writes a marker file and raises when imported. Neither may ever be imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import AUTOCAST

HOSTILE = """\
import pathlib
pathlib.Path(__file__).parent.parent.joinpath("IMPORTED-{name}").write_text("imported")
raise SystemExit("the user's {name} package was imported")
"""
CONSOLE_SCRIPT = Path(sys.executable).parent / "migrate"


def _project(tmp_path: Path, packages: tuple[str, ...]) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "train.py").write_text(AUTOCAST)
    for name in packages:
        (root / name).mkdir()
        (root / name / "__init__.py").write_text(HOSTILE.format(name=name))
        (root / name / "more.py").write_text(HOSTILE.format(name=name))
    return root


def _migrate(root: Path, *args: str, console: bool) -> subprocess.CompletedProcess[str]:
    command = [str(CONSOLE_SCRIPT)] if console else [sys.executable, "-m", "migrator"]
    env = {**os.environ, "PYTHONPATH": str(root), "NPU_MIGRATOR_CACHE_DIR": str(root.parent)}
    return subprocess.run(
        [*command, *args], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )


def _imported(root: Path) -> list[str]:
    return sorted(path.name for path in root.glob("IMPORTED-*"))


@pytest.mark.parametrize("console", [False, True], ids=["python_m", "console_script"])
def test_version_imports_no_project_package(tmp_path: Path, console: bool) -> None:
    root = _project(tmp_path, ("target_x", "rules"))
    done = _migrate(root, "--version", console=console)
    assert done.returncode == 0, done.stderr
    assert "npu-migrator, version" in done.stdout
    assert _imported(root) == []


def test_python_m_dry_run_drops_the_current_folder(tmp_path: Path) -> None:
    root = _project(tmp_path, ("target_x", "rules"))
    done = _migrate(root, ".", "--dry-run", console=False)
    assert done.returncode == 1, done.stderr
    assert '+    with torch.autocast("npu"):' in done.stdout
    assert _imported(root) == []


def test_console_script_dry_run_never_imports_a_target_package(tmp_path: Path) -> None:
    root = _project(tmp_path, ("target_x",))
    done = _migrate(root, ".", "--dry-run", console=True)
    assert done.returncode == 1, done.stderr
    assert '+    with torch.autocast("npu"):' in done.stdout
    assert _imported(root) == []


def test_console_script_refuses_a_shadowing_rules_package(tmp_path: Path) -> None:
    root = _project(tmp_path, ("target_x", "rules"))
    done = _migrate(root, ".", "--dry-run", console=True)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"error: {root / 'rules'}: this folder shadows npu-migrator's")
    assert "pipx" in lines[0]
    assert done.stdout == ""
    assert _imported(root) == []
