"""Small helpers shared by the CLI and file-safety tests."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from migrator.cli import main

AUTOCAST = (
    'import torch\n\n\ndef step(m, x):\n    with torch.autocast("cuda"):\n        return m(x)\n'
)
MIGRATED = AUTOCAST.replace('"cuda"', '"npu"')


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, prog_name="migrate")


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def git_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q")
    git(folder, "config", "user.email", "test@example.invalid")
    git(folder, "config", "user.name", "test")
    return folder


def commit_all(folder: Path) -> None:
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "fixture")


def installed_migrate() -> Path | None:
    """The `migrate` console script of the interpreter running the tests, if installed."""
    import sys

    script = Path(sys.executable).parent / "migrate"
    return script if script.is_file() else None


def run_installed(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user runs it (its own process, its own exit code)."""
    script = installed_migrate()
    assert script is not None
    return subprocess.run(
        [str(script), *args], capture_output=True, text=True, check=False, input=stdin
    )


def record_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the engine parses with LibCST from now on (in the test's monkeypatch)."""
    from migrator.engine import python

    parsed: list[str] = []
    parse = python.parse_cst

    def recording(code: str, line_offset: int = 0) -> object:
        parsed.append(code)
        return parse(code, line_offset)

    monkeypatch.setattr(python, "parse_cst", recording)
    return parsed
